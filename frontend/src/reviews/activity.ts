/**
 * A pipeline's activity feed in words: what each item says after its actor's name, and
 * where it leads (a version's review, a run). The workspace's member and policy changes
 * appear on each of its pipelines.
 */

import type { ActivityItem } from "../api/reviews";
import type { Route } from "../app/router";
import { verdictWords } from "./states";

function quoted(text: string): string {
  return text === "" ? "" : `: “${text}”`;
}

function names(users: readonly { readonly username: string }[]): string {
  const named = users.map((user) => user.username);
  return named.length <= 1
    ? named.join("")
    : `${named.slice(0, -1).join(", ")} and ${named.at(-1) ?? ""}`;
}

type VerdictItem = Extract<ActivityItem, { kind: "review_verdict" }>;

/** Whether a verdict counted, as it was decided when it was given. */
function weightWords(item: VerdictItem): string {
  return item.counts || item.verdict === "comment" ? "" : " (does not count)";
}

function acknowledgedWords(acknowledged: VerdictItem["acknowledged"]): string {
  if (acknowledged.length === 0) {
    return "";
  }
  const names = acknowledged.map((state) => `${state.name} (${state.operatorId.slice(0, 8)}...)`);
  return `, acknowledging the state lost of ${names.join(", ")}`;
}

type PolicyChange = Extract<ActivityItem, { kind: "review_policy_changed" }>["changes"][number];

/** One setting of the review policy as it became. */
function policyChangeWords(change: PolicyChange): string {
  switch (change.field) {
    case "requiredApprovals":
      return `required approvals ${String(change.before)} → ${String(change.after)}`;
    case "allowSelfApproval":
      return change.after === true
        ? "authors may approve their own versions"
        : "authors may no longer approve their own versions";
    case "requireApprovalToRun":
      return change.after === true
        ? "only approved versions may run"
        : "versions may run without approval";
  }
}

function threadPlace(version: number | null): string {
  return version === null ? "the working copy" : `version ${version}`;
}

/** What happened, in a sentence that names who did it. */
export function activityText(item: ActivityItem): string {
  const who = item.user?.username ?? "A former member";
  switch (item.kind) {
    case "version_saved":
      return `${who} saved version ${item.version}${quoted(item.message)}`;
    case "review_requested":
      return `${who} asked ${names(item.reviewers)} to review version ${item.version}${quoted(item.message)}`;
    case "review_verdict":
      return `${who} ${verdictWords(item.verdict)} version ${item.version} as ${item.role}${weightWords(item)}${acknowledgedWords(item.acknowledged)}${quoted(item.summary)}`;
    case "approval_revoked":
      return `${who} revoked ${item.reviewer?.username ?? "a former member"}'s approval of version ${item.version}${quoted(item.reason)}`;
    case "savepoint_uploaded":
      return `${who} uploaded the savepoint “${item.label}”${item.current ? " and made it the current one" : ""}`;
    case "savepoint_marked_current":
      return `${who} made the savepoint “${item.label}” the current one`;
    case "savepoint_current_cleared":
      return `${who} made the savepoint “${item.label}” no longer current: no savepoint is current`;
    case "savepoint_deleted":
      return `${who} deleted the savepoint “${item.label}”${item.current ? ", the current one" : ""}`;
    case "thread_resolved":
      return `${who} resolved the thread on ${item.target} (${threadPlace(item.version)})`;
    case "thread_reopened":
      return `${who} reopened the thread on ${item.target} (${threadPlace(item.version)})`;
    case "run_refused":
      return `The review gate refused ${who}'s run of version ${item.version}: ${item.reason}`;
    case "review_policy_changed":
      return `${who} changed the workspace's review policy: ${item.changes.map(policyChangeWords).join("; ")}`;
    case "member_added":
      return `${who} added ${item.member.username} to the workspace as ${item.role}`;
    case "member_role_changed":
      return `${who} changed ${item.member.username}'s role from ${item.before} to ${item.after}`;
    case "member_removed":
      return item.left
        ? `${item.member.username} left the workspace (was ${item.role})`
        : `${who} removed ${item.member.username} (${item.role}) from the workspace`;
    case "comment": {
      const where = item.version === null ? "the working copy" : `version ${item.version}`;
      return item.reply
        ? `${who} replied on ${item.target}${quoted(item.excerpt)}`
        : `${who} commented on ${item.target} (${where})${quoted(item.excerpt)}`;
    }
    case "run_started":
      return `${who} started run #${item.run} of version ${item.version}`;
    case "run_finished":
      return `Run #${item.run} of version ${item.version} by ${who} ended ${item.status}`;
  }
}

/** Where the item leads, if anywhere. */
export function activityRoute(pipeline: number, item: ActivityItem): Route | null {
  switch (item.kind) {
    case "review_requested":
    case "review_verdict":
    case "approval_revoked":
    case "version_saved":
    case "run_refused":
      return { page: "review", pipeline, version: item.version };
    case "thread_resolved":
    case "thread_reopened":
    case "savepoint_uploaded":
    case "savepoint_marked_current":
    case "savepoint_current_cleared":
    case "savepoint_deleted":
    case "review_policy_changed":
    case "member_added":
    case "member_role_changed":
    case "member_removed":
      return null;
    case "run_started":
    case "run_finished":
      return { page: "run", pipeline, run: item.run };
    case "comment":
      return null;
  }
}

/** A stable key for an item of the feed. */
export function activityKey(item: ActivityItem): string {
  switch (item.kind) {
    case "version_saved":
      return `v${item.version}`;
    case "review_requested":
      return `r${item.request}`;
    case "review_verdict":
      return `d${item.request}-${item.at}`;
    case "approval_revoked":
      return `x${item.request}-${item.at}`;
    case "savepoint_uploaded":
    case "savepoint_marked_current":
    case "savepoint_current_cleared":
    case "savepoint_deleted":
    case "thread_resolved":
    case "thread_reopened":
    case "run_refused":
    case "review_policy_changed":
    case "member_added":
    case "member_role_changed":
    case "member_removed":
      return `a${item.record}`;
    case "comment":
      return `c${item.comment}`;
    case "run_started":
      return `s${item.run}`;
    case "run_finished":
      return `f${item.run}`;
  }
}
