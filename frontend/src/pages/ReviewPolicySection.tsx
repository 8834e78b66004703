import { useCallback, useId, useState } from "react";

import * as reviews from "../api/reviews";
import type { Workspace } from "../api/resources";
import { useResource, errorText } from "../ui/useResource";
import { MAX_REQUIRED_APPROVALS, policyChange, policyForm, type PolicyForm } from "./policy";

/** How the workspace reviews versions: owners change it, the others read it. */
export function ReviewPolicySection({ workspace }: { readonly workspace: Workspace }) {
  const [saved, setSaved] = useState<reviews.ReviewPolicy | null>(null);
  const load = useCallback(
    (signal: AbortSignal) => reviews.getReviewPolicy(workspace.id, signal),
    [workspace.id],
  );
  const loaded = useResource(load, String(workspace.id));
  const policy = saved ?? loaded.data;
  return (
    <section className="review-policy" data-testid="review-policy-section">
      <h2>Review policy</h2>
      {loaded.error !== null && <p className="form-error">{loaded.error}</p>}
      {policy !== null &&
        (workspace.role === "owner" ? (
          <PolicyEditor policy={policy} onSaved={setSaved} />
        ) : (
          <ul className="review-policy__facts" data-testid="review-policy-facts">
            <li>
              {policy.requiredApprovals} approval{policy.requiredApprovals === 1 ? "" : "s"} by
              editors or owners approve a version.
            </li>
            <li>
              The author of a version {policy.allowSelfApproval ? "may" : "may not"} approve it.
            </li>
            <li>
              {policy.requireApprovalToRun
                ? "Only approved versions may run."
                : "Any saved version may run."}
            </li>
          </ul>
        ))}
    </section>
  );
}

function PolicyEditor(props: {
  readonly policy: reviews.ReviewPolicy;
  readonly onSaved: (policy: reviews.ReviewPolicy) => void;
}) {
  const { policy } = props;
  const [form, setForm] = useState<PolicyForm>(() => policyForm(policy));
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const ids = { required: useId(), self: useId(), run: useId() };
  const change = policyChange(policy, form);
  const update = (edit: Partial<PolicyForm>): void => {
    setForm({ ...form, ...edit });
    setNotice(null);
  };
  const save = async (): Promise<void> => {
    if (change === null || typeof change === "string") {
      return;
    }
    try {
      const answer = await reviews.updateReviewPolicy(policy.workspace, change);
      props.onSaved(answer);
      setForm(policyForm(answer));
      setProblem(null);
      setNotice("Saved.");
    } catch (caught) {
      setProblem(errorText(caught));
    }
  };
  return (
    <form
      className="review-policy__form"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <div className="field">
        <label htmlFor={ids.required}>Required approvals (0 to {MAX_REQUIRED_APPROVALS})</label>
        <input
          id={ids.required}
          type="number"
          min={0}
          max={MAX_REQUIRED_APPROVALS}
          step={1}
          value={form.requiredApprovals}
          onChange={(event) => {
            update({ requiredApprovals: event.target.value });
          }}
          data-testid="policy-required"
        />
        <span className="field__help">
          Approvals by editors or owners that make a version approved; with 0, a requested review
          approves it unless changes are requested.
        </span>
      </div>
      <div className="field field--check">
        <label htmlFor={ids.self}>
          <input
            id={ids.self}
            type="checkbox"
            checked={form.allowSelfApproval}
            onChange={(event) => {
              update({ allowSelfApproval: event.target.checked });
            }}
            data-testid="policy-self-approval"
          />
          The author of a version may approve it
        </label>
      </div>
      <div className="field field--check">
        <label htmlFor={ids.run}>
          <input
            id={ids.run}
            type="checkbox"
            checked={form.requireApprovalToRun}
            onChange={(event) => {
              update({ requireApprovalToRun: event.target.checked });
            }}
            data-testid="policy-approved-runs"
          />
          Only approved versions may run
        </label>
      </div>
      <div className="inline-form">
        <button
          type="submit"
          className="button"
          disabled={change === null || typeof change === "string"}
          data-testid="policy-save"
        >
          Save the policy
        </button>
        {typeof change === "string" && <span className="form-error">{change}</span>}
        {notice !== null && (
          <span className="notice" role="status" data-testid="policy-saved">
            {notice}
          </span>
        )}
      </div>
      {problem !== null && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {policy.updatedBy !== null && policy.updatedAt !== null && (
        <p className="muted">
          Last changed by {policy.updatedBy.username} on{" "}
          {new Date(policy.updatedAt).toLocaleString()}.
        </p>
      )}
    </form>
  );
}
