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
    { kind: "savepoint_uploaded", at: AT, user: ADA, savepoint: 2, label: "prod 11-20" },
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

describe("activity", () => {
  it.each(ITEMS)("reads %j in words", (item, text) => {
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

  it("keys every item apart", () => {
    const keys = ITEMS.map(([item]) => activityKey(item));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
