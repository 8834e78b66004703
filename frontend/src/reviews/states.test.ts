import { describe, expect, it } from "vitest";

import type { VersionReview } from "../api/reviews";
import { ADA, GRACE, reviewRequest, verdict } from "../test-support/reviews";
import { approvalsText, newsText, requestToAnswer, stateBasisWords, stateText } from "./states";

function review(overrides: Partial<VersionReview> = {}): VersionReview {
  return {
    pipeline: 7,
    version: 2,
    author: ADA,
    latestVersion: 2,
    state: "in_review",
    approvals: 0,
    policy: {
      workspace: 1,
      requiredApprovals: 1,
      allowSelfApproval: false,
      requireApprovalToRun: false,
      updatedBy: null,
      updatedAt: null,
    },
    requests: [reviewRequest()],
    stateCheck: { reference: null, savepoint: null, operators: [] },
    yourVerdicts: [],
    ...overrides,
  };
}

describe("review states", () => {
  it("read in words", () => {
    expect(stateText("changes_requested")).toBe("changes requested");
    expect(approvalsText(1, 2)).toBe("1 of 2 approvals");
    expect(approvalsText(1, 1)).toBe("1 of 1 approval");
    expect(approvalsText(0, 0)).toBe("no approval required");
  });

  it("let a reviewer answer the newest request they are asked in, of the latest version", () => {
    const older = reviewRequest({ id: 1 });
    const newer = reviewRequest({ id: 4 });
    expect(requestToAnswer(review({ requests: [older, newer] }), GRACE)?.id).toBe(4);
    expect(requestToAnswer(review(), ADA)).toBeNull();
    expect(requestToAnswer(review(), null)).toBeNull();
    expect(requestToAnswer(review({ latestVersion: 3 }), GRACE)).toBeNull();
    expect(
      requestToAnswer(review({ requests: [reviewRequest({ superseded: true })] }), GRACE),
    ).toBeNull();
  });
});

describe("review news", () => {
  const requested = {
    type: "review_requested",
    version: 2,
    request: reviewRequest(),
    state: "in_review",
  } as const;
  const given = {
    type: "review_verdict",
    version: 2,
    verdict: verdict({ summary: "Fine" }),
    state: "approved",
  } as const;

  it("tell a reviewer they are asked", () => {
    expect(newsText(requested, GRACE.id)).toEqual({
      text: "ada asked you to review version 2: “Please look”",
      forYou: true,
    });
    expect(newsText(requested, 9)).toEqual({
      text: "ada asked grace to review version 2: “Please look”",
      forYou: false,
    });
    const two = {
      ...requested,
      request: reviewRequest({
        message: "",
        reviewers: [
          { user: GRACE, role: "editor", latest: null },
          { user: { id: 9, username: "kim" }, role: "owner", latest: null },
        ],
      }),
    };
    expect(newsText(two, 9)?.text).toBe("ada asked grace and you to review version 2");
  });

  it("tell the others a verdict and the state it leads to", () => {
    expect(newsText(given, ADA.id)).toEqual({
      text: "grace approved version 2: “Fine” (now approved)",
      forYou: false,
    });
    const changes = { ...given, verdict: verdict({ verdict: "request_changes", summary: "" }) };
    expect(newsText({ ...changes, state: "changes_requested" }, ADA.id)?.text).toBe(
      "grace requested changes to version 2 (now changes requested)",
    );
  });

  it("tell the others who revoked an approval and why, and its reviewer it is theirs", () => {
    const revoked = {
      type: "approval_revoked",
      version: 2,
      state: "in_review",
      verdict: verdict({
        counts: false,
        revocation: { by: ADA, reason: "Wrong plan", at: "2026-01-02T12:00:00Z" },
      }),
    } as const;
    expect(newsText(revoked, GRACE.id)).toEqual({
      text: "ada revoked grace's approval of version 2: “Wrong plan” (now in review)",
      forYou: true,
    });
    expect(newsText(revoked, ADA.id)).toBeNull();
  });

  it("say nothing to whoever made it", () => {
    expect(newsText(requested, ADA.id)).toBeNull();
    expect(newsText(given, GRACE.id)).toBeNull();
  });
});

describe("what a state check compared with", () => {
  it("names the current savepoint, else the last approved version, else nothing", () => {
    expect(
      stateBasisWords({ reference: null, savepoint: { id: 4, label: "prod" }, operators: [] })
        ?.comparedWith,
    ).toBe('Started from the current savepoint "prod"');
    expect(stateBasisWords({ reference: 2, savepoint: null, operators: [] })?.comparedWith).toBe(
      "Compared with version 2, the last approved one",
    );
    expect(stateBasisWords({ reference: null, savepoint: null, operators: [] })).toBeNull();
  });
});
