import { describe, expect, it } from "vitest";

import type { ActivityItem } from "../api/reviews";
import { ADA, GRACE } from "../test-support/reviews";
import { activityKey, activityRoute, activityText } from "./activity";

const AT = "2026-01-02T10:00:00Z";

const ITEMS: readonly (readonly [ActivityItem, string])[] = [
  [
    { kind: "version_saved", at: AT, user: ADA, version: 3, message: "Widen" },
    "ada saved version 3: “Widen”",
  ],
  [
    {
      kind: "review_requested",
      at: AT,
      user: ADA,
      version: 3,
      request: 4,
      reviewers: [GRACE, { id: 3, username: "kim" }],
      message: "",
    },
    "ada asked grace and kim to review version 3",
  ],
  [
    {
      kind: "review_verdict",
      at: AT,
      user: GRACE,
      version: 3,
      request: 4,
      verdict: "request_changes",
      summary: "Key it",
      role: "editor",
      counts: true,
      acknowledged: [],
    },
    "grace requested changes to version 3 as editor: “Key it”",
  ],
  [
    {
      kind: "review_verdict",
      at: "2026-01-02T10:05:00Z",
      user: GRACE,
      version: 3,
      request: 4,
      verdict: "approve",
      summary: "",
      role: "viewer",
      counts: false,
      acknowledged: [
        { operatorId: "c27dcf7b54ef6bfd6cff02ca8870b681", name: "Total", stateBytes: 3253 },
      ],
    },
    "grace approved version 3 as viewer (does not count), acknowledging the state lost of Total (c27dcf7b...)",
  ],
  [
    {
      kind: "approval_revoked",
      at: AT,
      user: ADA,
      version: 3,
      request: 4,
      reviewer: GRACE,
      reason: "Wrong plan",
    },
    "ada revoked grace's approval of version 3: “Wrong plan”",
  ],
  [
    {
      kind: "savepoint_uploaded",
      record: 20,
      at: AT,
      user: ADA,
      savepoint: 2,
      label: "prod 11-20",
      current: false,
    },
    "ada uploaded the savepoint “prod 11-20”",
  ],
  [
    {
      kind: "comment",
      at: AT,
      user: GRACE,
      thread: 1,
      comment: 2,
      version: 2,
      reply: false,
      target: "Total",
      excerpt: "Why?",
    },
    "grace commented on Total (version 2): “Why?”",
  ],
  [
    {
      kind: "comment",
      at: AT,
      user: ADA,
      thread: 1,
      comment: 3,
      version: null,
      reply: true,
      target: "Total",
      excerpt: "Because",
    },
    "ada replied on Total: “Because”",
  ],
  [
    { kind: "run_started", at: AT, user: ADA, run: 9, version: 3 },
    "ada started run #9 of version 3",
  ],
  [
    { kind: "run_finished", at: AT, user: ADA, run: 9, version: 3, status: "FAILED" },
    "Run #9 of version 3 by ada ended FAILED",
  ],
];

/** Items read from the audit record. */
const RECORDED: readonly (readonly [ActivityItem, string])[] = [
  [
    {
      kind: "savepoint_uploaded",
      record: 1,
      at: AT,
      user: ADA,
      savepoint: 3,
      label: "prod",
      current: true,
    },
    "ada uploaded the savepoint “prod” and made it the current one",
  ],
  [
    { kind: "savepoint_marked_current", record: 2, at: AT, user: ADA, savepoint: 2, label: "old" },
    "ada made the savepoint “old” the current one",
  ],
  [
    { kind: "savepoint_current_cleared", record: 3, at: AT, user: ADA, savepoint: 2, label: "old" },
    "ada made the savepoint “old” no longer current: no savepoint is current",
  ],
  [
    {
      kind: "savepoint_deleted",
      record: 4,
      at: AT,
      user: null,
      savepoint: 3,
      label: "prod",
      current: true,
    },
    "A former member deleted the savepoint “prod”, the current one",
  ],
  [
    {
      kind: "thread_resolved",
      record: 5,
      at: AT,
      user: GRACE,
      thread: 5,
      version: 2,
      target: "Sum",
    },
    "grace resolved the thread on Sum (version 2)",
  ],
  [
    {
      kind: "thread_reopened",
      record: 6,
      at: AT,
      user: ADA,
      thread: 5,
      version: null,
      target: "Sum",
    },
    "ada reopened the thread on Sum (the working copy)",
  ],
  [
    {
      kind: "run_refused",
      record: 7,
      at: AT,
      user: ADA,
      version: 4,
      code: "version-not-approved",
      reason: "Version 4 is in review.",
    },
    "The review gate refused ada's run of version 4: Version 4 is in review.",
  ],
  [
    {
      kind: "review_policy_changed",
      record: 8,
      at: AT,
      user: GRACE,
      changes: [
        { field: "requiredApprovals", before: 1, after: 2 },
        { field: "allowSelfApproval", before: false, after: true },
        { field: "requireApprovalToRun", before: false, after: true },
      ],
    },
    "grace changed the workspace's review policy: required approvals 1 → 2; authors may approve their own versions; only approved versions may run",
  ],
  [
    {
      kind: "review_policy_changed",
      record: 9,
      at: AT,
      user: GRACE,
      changes: [
        { field: "allowSelfApproval", before: true, after: false },
        { field: "requireApprovalToRun", before: true, after: false },
      ],
    },
    "grace changed the workspace's review policy: authors may no longer approve their own versions; versions may run without approval",
  ],
  [
    { kind: "member_added", record: 10, at: AT, user: GRACE, member: ADA, role: "viewer" },
    "grace added ada to the workspace as viewer",
  ],
  [
    {
      kind: "member_role_changed",
      record: 11,
      at: AT,
      user: GRACE,
      member: ADA,
      before: "editor",
      after: "viewer",
    },
    "grace changed ada's role from editor to viewer",
  ],
  [
    {
      kind: "member_removed",
      record: 12,
      at: AT,
      user: GRACE,
      member: ADA,
      role: "editor",
      left: false,
    },
    "grace removed ada (editor) from the workspace",
  ],
  [
    {
      kind: "member_removed",
      record: 13,
      at: AT,
      user: ADA,
      member: ADA,
      role: "editor",
      left: true,
    },
    "ada left the workspace (was editor)",
  ],
];

describe("activity", () => {
  it.each([...ITEMS, ...RECORDED])("reads %j in words", (item, text) => {
    expect(activityText(item)).toBe(text);
  });

  it("leads to a version's review or a run", () => {
    expect(ITEMS.map(([item]) => activityRoute(7, item)?.page ?? null)).toEqual([
      "review",
      "review",
      "review",
      "review",
      "review",
      null,
      null,
      null,
      "run",
      "run",
    ]);
    expect(
      activityRoute(7, { kind: "run_started", at: AT, user: null, run: 9, version: 3 }),
    ).toEqual({
      page: "run",
      pipeline: 7,
      run: 9,
    });
  });

  it("leads from a refused run to the version's review, from other records nowhere", () => {
    expect(RECORDED.map(([item]) => activityRoute(7, item)?.page ?? null)).toEqual(
      RECORDED.map(([item]) => (item.kind === "run_refused" ? "review" : null)),
    );
  });

  it("keys every item apart", () => {
    const keys = [...ITEMS, ...RECORDED].map(([item]) => activityKey(item));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
