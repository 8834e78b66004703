import { describe, expect, it } from "vitest";

import type { Member, Role } from "../api/resources";
import {
  changesOwnAccess,
  concerns,
  confirmation,
  outcome,
  roleCounts,
  rowActions,
  type Reader,
} from "./members";

function member(id: number, username: string, role: Role): Member {
  return { user: { id, username }, role };
}

const OLIVIA = member(1, "olivia", "owner");
const EDDIE = member(2, "eddie", "editor");
const VERA = member(3, "vera", "viewer");
const AS_OLIVIA: Reader = { userId: 1, role: "owner" };

describe("what the reader of the members list may do", () => {
  it("gives owners a role select on every row and Remove on the others'", () => {
    expect(rowActions(AS_OLIVIA, EDDIE)).toEqual({ isYou: false, changeRole: true, remove: true });
    expect(rowActions(AS_OLIVIA, OLIVIA)).toEqual({ isYou: true, changeRole: true, remove: false });
  });

  it.each<Role>(["editor", "viewer"])("gives an %s no change to anyone's membership", (role) => {
    const reader: Reader = { userId: 2, role };
    for (const m of [OLIVIA, { ...EDDIE, role }, VERA]) {
      const actions = rowActions(reader, m);
      expect([actions.changeRole, actions.remove]).toEqual([false, false]);
    }
    expect(rowActions(reader, EDDIE).isYou).toBe(true);
  });

  it("knows which actions change the reader's own access", () => {
    expect(changesOwnAccess({ kind: "leave" }, AS_OLIVIA)).toBe(true);
    expect(
      changesOwnAccess({ kind: "change-role", member: OLIVIA, role: "editor" }, AS_OLIVIA),
    ).toBe(true);
    expect(changesOwnAccess({ kind: "change-role", member: EDDIE, role: "owner" }, AS_OLIVIA)).toBe(
      false,
    );
    expect(changesOwnAccess({ kind: "remove", member: VERA }, AS_OLIVIA)).toBe(false);
  });

  it("puts a row's confirmation under that row only", () => {
    const removal = { kind: "remove", member: VERA } as const;
    expect(concerns(removal, VERA)).toBe(true);
    expect(concerns(removal, EDDIE)).toBe(false);
    expect(concerns({ kind: "leave" }, OLIVIA)).toBe(false);
  });
});

describe("the roles present", () => {
  it("are counted most allowed first, leaving out the absent", () => {
    expect(roleCounts([VERA, OLIVIA, EDDIE, member(4, "vic", "viewer")])).toBe(
      "1 owner, 1 editor, 2 viewers",
    );
    expect(roleCounts([OLIVIA, member(5, "otto", "owner")])).toBe("2 owners");
    expect(roleCounts([])).toBe("");
  });
});

describe("what each action says before it is done", () => {
  it("says a removed member loses every pipeline of the workspace", () => {
    expect(confirmation({ kind: "remove", member: EDDIE }, AS_OLIVIA, "Acme")).toEqual({
      question: "Remove eddie from Acme?",
      consequence: "eddie will lose access to every pipeline of Acme; an owner can add them again.",
      confirm: "Remove eddie",
      danger: true,
    });
  });

  it("says leaving loses every pipeline, whatever the reader's role", () => {
    const asVera: Reader = { userId: 3, role: "viewer" };
    expect(confirmation({ kind: "leave" }, asVera, "Acme")).toEqual({
      question: "Leave Acme?",
      consequence:
        "You will lose access to every pipeline of Acme; only an owner can add you again.",
      confirm: "Leave workspace",
      danger: true,
    });
  });

  it("says what a promotion to owner hands over", () => {
    const promotion = confirmation(
      { kind: "change-role", member: VERA, role: "owner" },
      AS_OLIVIA,
      "Acme",
    );
    expect(promotion).toEqual({
      question: "Make vera an owner of Acme?",
      consequence:
        "vera will be able to add and remove members of Acme, change their roles (yours too) " +
        "and delete Acme.",
      confirm: "Make vera an owner",
      danger: false,
    });
  });

  it.each<[Role, Role, string, boolean]>([
    ["viewer", "editor", "eddie will be able to edit, save and run the pipelines of Acme.", false],
    [
      "editor",
      "viewer",
      "eddie will no longer be able to edit, save or run the pipelines of Acme, only read them " +
        "and comment.",
      true,
    ],
    [
      "owner",
      "editor",
      "eddie will no longer be able to manage the members of Acme or delete it, but will still " +
        "edit, save and run its pipelines.",
      true,
    ],
    [
      "owner",
      "viewer",
      "eddie will no longer be able to manage the members of Acme, delete it or edit its " +
        "pipelines, only read them and comment.",
      true,
    ],
  ])("says what a change from %s to %s does", (from, to, consequence, danger) => {
    const change = confirmation(
      { kind: "change-role", member: { ...EDDIE, role: from }, role: to },
      AS_OLIVIA,
      "Acme",
    );
    expect(change?.consequence).toBe(consequence);
    expect(change?.danger).toBe(danger);
    expect(change?.confirm).toBe(`Make eddie ${to === "editor" ? "an" : "a"} ${to}`);
  });

  it("warns an owner stepping down that only another owner can undo it", () => {
    expect(
      confirmation({ kind: "change-role", member: OLIVIA, role: "viewer" }, AS_OLIVIA, "Acme"),
    ).toEqual({
      question: "Make yourself a viewer of Acme?",
      consequence:
        "You will no longer be able to manage the members of Acme, delete it or edit its " +
        "pipelines, only read them and comment. Only another owner can make you an owner again.",
      confirm: "Become a viewer",
      danger: true,
    });
  });

  it("asks nothing when the role does not change", () => {
    expect(
      confirmation({ kind: "change-role", member: EDDIE, role: "editor" }, AS_OLIVIA, "Acme"),
    ).toBeNull();
  });
});

describe("what the page says once the server took the action", () => {
  it("names who changed and how", () => {
    expect(outcome({ kind: "leave" }, AS_OLIVIA, "Acme")).toBe("You left Acme.");
    expect(outcome({ kind: "remove", member: VERA }, AS_OLIVIA, "Acme")).toBe(
      "Removed vera from Acme.",
    );
    expect(outcome({ kind: "change-role", member: VERA, role: "editor" }, AS_OLIVIA, "Acme")).toBe(
      "vera is now an editor of Acme.",
    );
    expect(
      outcome({ kind: "change-role", member: OLIVIA, role: "viewer" }, AS_OLIVIA, "Acme"),
    ).toBe("You are now a viewer of Acme.");
  });
});
