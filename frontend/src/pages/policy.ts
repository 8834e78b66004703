/**
 * The review policy form's edits as the server takes them: only the fields that differ
 * from the policy in force (it refuses a change that names none), the number of required
 * approvals read from its text box and kept to 0-5.
 */

import type { PolicyChange, ReviewPolicy } from "../api/reviews";

export const MAX_REQUIRED_APPROVALS = 5;

export interface PolicyForm {
  /** The text box's value. */
  readonly requiredApprovals: string;
  readonly allowSelfApproval: boolean;
  readonly requireApprovalToRun: boolean;
}

export function policyForm(policy: ReviewPolicy): PolicyForm {
  return {
    requiredApprovals: String(policy.requiredApprovals),
    allowSelfApproval: policy.allowSelfApproval,
    requireApprovalToRun: policy.requireApprovalToRun,
  };
}

/** What to send; a string says why the form cannot be sent, null that nothing changed. */
export function policyChange(policy: ReviewPolicy, form: PolicyForm): PolicyChange | string | null {
  const text = form.requiredApprovals.trim();
  const required = Number(text);
  if (
    text === "" ||
    !Number.isInteger(required) ||
    required < 0 ||
    required > MAX_REQUIRED_APPROVALS
  ) {
    return `Required approvals: a whole number from 0 to ${MAX_REQUIRED_APPROVALS}.`;
  }
  const change: {
    requiredApprovals?: number;
    allowSelfApproval?: boolean;
    requireApprovalToRun?: boolean;
  } = {};
  if (required !== policy.requiredApprovals) {
    change.requiredApprovals = required;
  }
  if (form.allowSelfApproval !== policy.allowSelfApproval) {
    change.allowSelfApproval = form.allowSelfApproval;
  }
  if (form.requireApprovalToRun !== policy.requireApprovalToRun) {
    change.requireApprovalToRun = form.requireApprovalToRun;
  }
  return Object.keys(change).length === 0 ? null : change;
}
