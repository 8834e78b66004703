/**
 * Team review over REST (docs/ARCHITECTURE.md, "Reviews"): comment threads, a
 * version's review, the workspace's review policy, the signed-in user's inbox and
 * a pipeline's activity feed. The shapes are generated from `backend/reviews/events.py`
 * and `backend/activity/events.py` (`./generated/wire`); one typed function per endpoint.
 */

import type * as Wire from "./generated/wire";
import { request } from "./http";

export type UserRef = Wire.UserRef;
export type Anchor = Wire.Anchor;
export type AnchorKind = Anchor["kind"];
export type CommentEntry = Wire.CommentEntry;
export type CommentThread = Wire.CommentThread;
export type ThreadStatus = CommentThread["status"];
export type CommentThreadPage = Wire.CommentThreadPage;
export type CommentSummary = Wire.CommentSummary;
export type TargetCounts = Wire.TargetCounts;
export type VersionReview = Wire.VersionReview;
export type ReviewState = VersionReview["state"];
export type ReviewRequest = Wire.ReviewRequest;
export type Reviewer = Wire.Reviewer;
export type Verdict = Wire.Verdict;
export type VerdictKind = Verdict["verdict"];
export type VerdictOption = Wire.VerdictOption;
export type StateRisk = Wire.StateRisk;
export type StateCheck = Wire.StateCheck;
export type SavepointRef = Wire.SavepointRef;
export type Revocation = Wire.Revocation;
export type AcknowledgedState = Wire.AcknowledgedState;
export type ReviewPolicy = Wire.ReviewPolicy;
export type Inbox = Wire.Inbox;
export type WaitingReview = Wire.WaitingReview;
export type WaitingReviewPage = Wire.WaitingReviewPage;
export type MentionItem = Wire.MentionItem;
export type MentionPage = Wire.MentionPage;
export type ActivityPage = Wire.ActivityPage;
export type ActivityItem = ActivityPage["items"][number];

/** A version number, or the working copy. */
export type VersionAt = number | "working";

/** Every review state, in the order a version moves through them (a record, so a state the
 * server gains and this lacks does not compile). */
const STATES: Readonly<Record<ReviewState, true>> = {
  draft: true,
  in_review: true,
  changes_requested: true,
  approved: true,
  superseded: true,
};
export const REVIEW_STATES = Object.keys(STATES) as readonly ReviewState[];

const VERDICTS: Readonly<Record<VerdictKind, true>> = {
  approve: true,
  request_changes: true,
  comment: true,
};
export const VERDICT_KINDS = Object.keys(VERDICTS) as readonly VerdictKind[];

const KINDS: Readonly<Record<AnchorKind, true>> = {
  pipeline: true,
  node: true,
  edge: true,
  vertex: true,
};
export const ANCHOR_KINDS = Object.keys(KINDS) as readonly AnchorKind[];

/** Lists take at most this many a page. */
export const MAX_PAGE = 200;

/** What a new thread is about: the whole pipeline, a node, an edge (by key) or a chain. */
export type ThreadTarget =
  | { readonly kind: "pipeline" }
  | { readonly kind: "node"; readonly node: number }
  | { readonly kind: "edge"; readonly edge: readonly [number, number, number, number] }
  | { readonly kind: "vertex"; readonly vertex: string };

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

// Comments ---------------------------------------------------------------------------------

export interface ThreadQuery {
  readonly at: VersionAt;
  readonly cursor?: string | undefined;
  readonly limit?: number;
}

/** Threads read at `at`, newest first. */
export function listThreads(
  pipeline: number,
  query: ThreadQuery,
  signal?: AbortSignal,
): Promise<CommentThreadPage> {
  return request("GET", `pipelines/${pipeline}/comments/`, {
    query: { at: String(query.at), cursor: query.cursor, limit: query.limit ?? MAX_PAGE },
    ...signalOf(signal),
  });
}

export function commentSummary(
  pipeline: number,
  at: VersionAt,
  signal?: AbortSignal,
): Promise<CommentSummary> {
  return request("GET", `pipelines/${pipeline}/comments/summary/`, {
    query: { at: String(at) },
    ...signalOf(signal),
  });
}

export function getThread(
  pipeline: number,
  thread: number,
  at: VersionAt,
  signal?: AbortSignal,
): Promise<CommentThread> {
  return request("GET", `pipelines/${pipeline}/comments/${thread}/`, {
    query: { at: String(at) },
    ...signalOf(signal),
  });
}

/** Open a thread on `version` (null: the working copy); answers it read there. */
export function createThread(
  pipeline: number,
  version: number | null,
  target: ThreadTarget,
  body: string,
): Promise<CommentThread> {
  return request("POST", `pipelines/${pipeline}/comments/`, { body: { version, target, body } });
}

export function replyToThread(
  pipeline: number,
  thread: number,
  body: string,
): Promise<CommentEntry> {
  return request("POST", `pipelines/${pipeline}/comments/${thread}/replies/`, { body: { body } });
}

export function editComment(
  pipeline: number,
  thread: number,
  comment: number,
  body: string,
): Promise<CommentEntry> {
  return request("PATCH", `pipelines/${pipeline}/comments/${thread}/${comment}/`, {
    body: { body },
  });
}

export function deleteComment(pipeline: number, thread: number, comment: number): Promise<null> {
  return request("DELETE", `pipelines/${pipeline}/comments/${thread}/${comment}/`);
}

/** Answers the thread read at the working copy. */
export function resolveThread(pipeline: number, thread: number): Promise<CommentThread> {
  return request("POST", `pipelines/${pipeline}/comments/${thread}/resolve/`);
}

export function reopenThread(pipeline: number, thread: number): Promise<CommentThread> {
  return request("POST", `pipelines/${pipeline}/comments/${thread}/reopen/`);
}

// Reviews ----------------------------------------------------------------------------------

/** Every version's review state at once (`GET /api/pipelines/<id>/reviews/`). */
export type ReviewStates = Wire.ReviewStates;

export function listReviewStates(pipeline: number, signal?: AbortSignal): Promise<ReviewStates> {
  return request("GET", `pipelines/${pipeline}/reviews/`, signalOf(signal));
}

export function getVersionReview(
  pipeline: number,
  version: number,
  signal?: AbortSignal,
): Promise<VersionReview> {
  return request("GET", `pipelines/${pipeline}/versions/${version}/reviews/`, signalOf(signal));
}

/** Ask members (by username) to review the latest version; answers its review. */
export function requestReview(
  pipeline: number,
  version: number,
  reviewers: readonly string[],
  message: string,
): Promise<VersionReview> {
  return request("POST", `pipelines/${pipeline}/versions/${version}/reviews/`, {
    body: { reviewers, message },
  });
}

export interface VerdictInput {
  readonly verdict: VerdictKind;
  readonly summary: string;
  /** An approval: the OperatorIDs of exactly the operators whose state is at risk. */
  readonly acknowledged: readonly string[];
}

/** Answer a review request; a 400 `state-not-acknowledged` lists what to acknowledge. */
export function giveVerdict(
  pipeline: number,
  version: number,
  requestId: number,
  input: VerdictInput,
): Promise<VersionReview> {
  return request(
    "POST",
    `pipelines/${pipeline}/versions/${version}/reviews/${requestId}/verdicts/`,
    {
      body: input,
    },
  );
}

/** Revoke a past approval (owners), saying why: it stays on the record, and stops counting. */
export function revokeApproval(
  pipeline: number,
  version: number,
  requestId: number,
  verdictId: number,
  reason: string,
): Promise<VersionReview> {
  return request(
    "POST",
    `pipelines/${pipeline}/versions/${version}/reviews/${requestId}/verdicts/${verdictId}/revoke/`,
    { body: { reason } },
  );
}

export function getReviewPolicy(workspace: number, signal?: AbortSignal): Promise<ReviewPolicy> {
  return request("GET", `workspaces/${workspace}/review-policy/`, signalOf(signal));
}

export interface PolicyChange {
  readonly requiredApprovals?: number;
  readonly allowSelfApproval?: boolean;
  readonly requireApprovalToRun?: boolean;
}

export function updateReviewPolicy(workspace: number, change: PolicyChange): Promise<ReviewPolicy> {
  return request("PATCH", `workspaces/${workspace}/review-policy/`, { body: change });
}

// The signed-in user's inbox ---------------------------------------------------------------

export function getInbox(signal?: AbortSignal): Promise<Inbox> {
  return request("GET", "me/inbox/", signalOf(signal));
}

export function listWaitingReviews(signal?: AbortSignal): Promise<WaitingReviewPage> {
  return request("GET", "me/reviews/", { query: { limit: MAX_PAGE }, ...signalOf(signal) });
}

export function listMentions(
  options: { readonly unread?: boolean } = {},
  signal?: AbortSignal,
): Promise<MentionPage> {
  return request("GET", "me/mentions/", {
    query: {
      limit: MAX_PAGE,
      unread: options.unread === undefined ? undefined : String(options.unread),
    },
    ...signalOf(signal),
  });
}

/** Mark these mentions read; answers the new counts. */
export function markMentionsRead(ids: readonly number[]): Promise<Inbox> {
  return request("POST", "me/mentions/read/", { body: { mentions: ids } });
}

/** Mark every mention read; answers the new counts. */
export function markAllMentionsRead(): Promise<Inbox> {
  return request("POST", "me/mentions/read/", { body: { all: true } });
}

// Activity ---------------------------------------------------------------------------------

export function listActivity(
  pipeline: number,
  cursor: string | null,
  limit: number,
  signal?: AbortSignal,
): Promise<ActivityPage> {
  return request("GET", `pipelines/${pipeline}/activity/`, {
    query: { cursor: cursor ?? undefined, limit },
    ...signalOf(signal),
  });
}
