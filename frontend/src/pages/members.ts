/**
 * The members list's rules and words: what the person reading the list may do on each
 * row (owners change roles and remove members; every member may leave), and what each
 * of those actions will do, said before it is done. The server decides in the end: an
 * action the list offers may still be refused (the last owner), and the page shows why.
 */

import type { Member, Role } from "../api/resources";

/** Who reads the list: the signed-in user and their role in the workspace. */
export interface Reader {
  readonly userId: number;
  readonly role: Role;
}

export type MemberAction =
  | { readonly kind: "change-role"; readonly member: Member; readonly role: Role }
  | { readonly kind: "remove"; readonly member: Member }
  | { readonly kind: "leave" };

/** The roles from most to least allowed, as the role select lists them. */
export const ROLES: readonly Role[] = ["owner", "editor", "viewer"];

/** What each role may do, in a few words. */
export const ROLE_POWERS: Readonly<Record<Role, string>> = {
  owner: "Manages members and the workspace; edits, saves and runs pipelines",
  editor: "Edits, saves and runs pipelines; reads and comments",
  viewer: "Reads pipelines and comments on them",
};

const RANK: Readonly<Record<Role, number>> = { viewer: 0, editor: 1, owner: 2 };

export interface RowActions {
  readonly isYou: boolean;
  /** A role select: owners get one on every row, their own included. */
  readonly changeRole: boolean;
  /** A Remove button: owners, on the others' rows (one leaves rather than removes oneself). */
  readonly remove: boolean;
}

export function rowActions(reader: Reader, member: Member): RowActions {
  const isYou = member.user.id === reader.userId;
  const owner = reader.role === "owner";
  return { isYou, changeRole: owner, remove: owner && !isYou };
}

/** "1 owner, 2 editors, 1 viewer": the roles present, most allowed first. */
export function roleCounts(members: readonly Member[]): string {
  return ROLES.map((role) => [role, members.filter((m) => m.role === role).length] as const)
    .filter(([, count]) => count > 0)
    .map(([role, count]) => `${count} ${role}${count === 1 ? "" : "s"}`)
    .join(", ");
}

/** Whether the action changes what the reader may do (their list of workspaces, their role). */
export function changesOwnAccess(action: MemberAction, reader: Reader): boolean {
  return action.kind === "leave" || action.member.user.id === reader.userId;
}

/** Whether the action is the one on this member's row. */
export function concerns(action: MemberAction, member: Member): boolean {
  return action.kind !== "leave" && action.member.user.id === member.user.id;
}

export interface Confirmation {
  readonly question: string;
  /** What will happen, in a sentence or two. */
  readonly consequence: string;
  /** The label of the button that does it. */
  readonly confirm: string;
  /** Someone loses access or power. */
  readonly danger: boolean;
}

function withArticle(role: Role): string {
  return `${role === "owner" || role === "editor" ? "an" : "a"} ${role}`;
}

function roleConsequence(who: string, from: Role, to: Role, workspace: string): string {
  if (to === "owner") {
    return (
      `${who} will be able to add and remove members of ${workspace}, change their roles ` +
      `(yours too) and delete ${workspace}.`
    );
  }
  if (from === "owner") {
    return to === "editor"
      ? `${who} will no longer be able to manage the members of ${workspace} or delete it, ` +
          `but will still edit, save and run its pipelines.`
      : `${who} will no longer be able to manage the members of ${workspace}, delete it ` +
          `or edit its pipelines, only read them and comment.`;
  }
  if (to === "viewer") {
    return (
      `${who} will no longer be able to edit, save or run the pipelines of ${workspace}, ` +
      `only read them and comment.`
    );
  }
  return `${who} will be able to edit, save and run the pipelines of ${workspace}.`;
}

/**
 * What the page asks before doing `action`, or null when there is nothing to do (a role
 * changed to the one the member has).
 */
export function confirmation(
  action: MemberAction,
  reader: Reader,
  workspace: string,
): Confirmation | null {
  switch (action.kind) {
    case "leave":
      return {
        question: `Leave ${workspace}?`,
        consequence:
          `You will lose access to every pipeline of ${workspace}; ` +
          `only an owner can add you again.`,
        confirm: "Leave workspace",
        danger: true,
      };
    case "remove": {
      const name = action.member.user.username;
      return {
        question: `Remove ${name} from ${workspace}?`,
        consequence:
          `${name} will lose access to every pipeline of ${workspace}; ` +
          `an owner can add them again.`,
        confirm: `Remove ${name}`,
        danger: true,
      };
    }
    case "change-role": {
      const { member, role } = action;
      if (member.role === role) {
        return null;
      }
      const self = member.user.id === reader.userId;
      const name = member.user.username;
      const consequence = roleConsequence(self ? "You" : name, member.role, role, workspace);
      return {
        question: self
          ? `Make yourself ${withArticle(role)} of ${workspace}?`
          : `Make ${name} ${withArticle(role)} of ${workspace}?`,
        consequence:
          self && member.role === "owner"
            ? `${consequence} Only another owner can make you an owner again.`
            : consequence,
        confirm: self ? `Become ${withArticle(role)}` : `Make ${name} ${withArticle(role)}`,
        danger: RANK[role] < RANK[member.role],
      };
    }
  }
}

/** What the page says once the server took the action. */
export function outcome(action: MemberAction, reader: Reader, workspace: string): string {
  switch (action.kind) {
    case "leave":
      return `You left ${workspace}.`;
    case "remove":
      return `Removed ${action.member.user.username} from ${workspace}.`;
    case "change-role":
      return action.member.user.id === reader.userId
        ? `You are now ${withArticle(action.role)} of ${workspace}.`
        : `${action.member.user.username} is now ${withArticle(action.role)} of ${workspace}.`;
  }
}
