/**
 * A pipeline's activity feed in words: what each item says after its actor's name, and
 * where it leads (a version's review, a run).
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
      return `${who} uploaded the savepoint “${item.label}”`;
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
      return { page: "review", pipeline, version: item.version };
    case "savepoint_uploaded":
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
      return `p${item.savepoint}`;
    case "comment":
      return `c${item.comment}`;
    case "run_started":
      return `s${item.run}`;
    case "run_finished":
      return `f${item.run}`;
  }
}
