import { describe, expect, it } from "vitest";

import type { ReviewPolicy } from "../api/reviews";
import { policyChange, policyForm } from "./policy";

const POLICY: ReviewPolicy = {
  workspace: 1,
  requiredApprovals: 1,
  allowSelfApproval: false,
  requireApprovalToRun: false,
  updatedBy: null,
  updatedAt: null,
};

describe("the review policy form", () => {
  it("starts from the policy in force and sends nothing unchanged", () => {
    expect(policyChange(POLICY, policyForm(POLICY))).toBeNull();
  });

  it("sends only what changed", () => {
    const form = { ...policyForm(POLICY), requiredApprovals: " 2 ", requireApprovalToRun: true };
    expect(policyChange(POLICY, form)).toEqual({
      requiredApprovals: 2,
      requireApprovalToRun: true,
    });
    expect(policyChange(POLICY, { ...policyForm(POLICY), allowSelfApproval: true })).toEqual({
      allowSelfApproval: true,
    });
    expect(policyChange(POLICY, { ...policyForm(POLICY), requiredApprovals: "0" })).toEqual({
      requiredApprovals: 0,
    });
  });

  it.each(["", "6", "-1", "1.5", "two"])("refuses %j required approvals", (text) => {
    expect(policyChange(POLICY, { ...policyForm(POLICY), requiredApprovals: text })).toBe(
      "Required approvals: a whole number from 0 to 5.",
    );
  });
});
