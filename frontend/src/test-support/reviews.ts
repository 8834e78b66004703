/** Builders of team review's bodies and messages for the frontend's tests. */

import type {
  CommentEntry,
  CommentSummary,
  CommentThread,
  ReviewRequest,
  TargetCounts,
  UserRef,
  Verdict,
} from "../api/reviews";

export const ADA: UserRef = { id: 1, username: "ada" };
export const GRACE: UserRef = { id: 2, username: "grace" };

export const OPERATOR = "a".repeat(32);
export const VERTEX = "b".repeat(32);

export function comment(id: number, overrides: Partial<CommentEntry> = {}): CommentEntry {
  return {
    id,
    author: ADA,
    body: `comment ${id}`,
    mentions: [],
    createdAt: "2026-01-02T10:00:00Z",
    editedAt: null,
    deleted: false,
    ...overrides,
  };
}

/** A thread about node 3 ("Total") of the working copy, open and current. */
export function thread(id: number, overrides: Partial<CommentThread> = {}): CommentThread {
  return {
    id,
    pipeline: 7,
    version: null,
    revision: 4,
    target: {
      kind: "node",
      node: 3,
      edge: null,
      vertex: null,
      operatorId: OPERATOR,
      sourceOperatorId: null,
      targetOperatorId: null,
      label: "Total",
    },
    status: "open",
    resolvedBy: null,
    resolvedAt: null,
    createdBy: ADA,
    createdAt: "2026-01-02T10:00:00Z",
    at: "working",
    outdated: false,
    outdatedCauses: [],
    comments: [comment(id * 10)],
    ...overrides,
  };
}

export function verdict(overrides: Partial<Verdict> = {}): Verdict {
  return {
    id: 5,
    request: 3,
    reviewer: GRACE,
    verdict: "approve",
    summary: "Looks right",
    acknowledged: [OPERATOR],
    acknowledgedState: [{ operatorId: OPERATOR, name: "Total", stateBytes: null }],
    reference: 1,
    savepoint: null,
    role: "editor",
    countsWhenGiven: true,
    counts: true,
    revocation: null,
    revocable: true,
    createdAt: "2026-01-02T11:00:00Z",
    ...overrides,
  };
}

export function reviewRequest(overrides: Partial<ReviewRequest> = {}): ReviewRequest {
  return {
    id: 3,
    version: 2,
    requestedBy: ADA,
    message: "Please look",
    createdAt: "2026-01-02T10:30:00Z",
    superseded: false,
    reviewers: [{ user: GRACE, role: "editor", latest: null }],
    ...overrides,
  };
}

export function counts(open = 0, outdated = 0, resolved = 0): TargetCounts {
  return { open, outdated, resolved };
}

export function summary(overrides: Partial<CommentSummary> = {}): CommentSummary {
  return {
    at: "working",
    total: counts(),
    pipeline: counts(),
    nodes: [],
    edges: [],
    vertices: [],
    ...overrides,
  };
}
