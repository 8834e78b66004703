import { useState } from "react";

import type { VersionReview } from "../api/reviews";
import { RequestList } from "./RequestList";
import { RequestReviewForm } from "./RequestReviewForm";
import { ReviewChip } from "./ReviewChip";
import { approvalsText, requestToAnswer, stateHelp } from "./states";
import { StateLossList } from "./StateLossList";
import type { Viewer } from "./threads";
import { VerdictForm } from "./VerdictForm";

function PolicyNote({ review }: { readonly review: VersionReview }) {
  const { policy } = review;
  return (
    <ul className="review-panel__policy" data-testid="review-policy">
      <li>
        {policy.requiredApprovals === 0
          ? "A requested review approves a version unless changes are requested."
          : `${policy.requiredApprovals} approval${policy.requiredApprovals === 1 ? "" : "s"} by editors or owners approve a version.`}
      </li>
      <li>
        {policy.allowSelfApproval
          ? "The author of a version may approve it."
          : "The author of a version may not approve it."}
      </li>
      {policy.requireApprovalToRun && <li>Only approved versions may run.</li>}
    </ul>
  );
}

/**
 * A version's review: its state and approvals against the policy, the requests and each
 * reviewer's answer, the state it puts at risk, and the form a reviewer answers with.
 */
export function ReviewPanel(props: {
  readonly review: VersionReview;
  readonly workspaceId: number;
  readonly viewer: Viewer | null;
  readonly now: number;
  readonly onChanged: (review: VersionReview) => void;
}) {
  const { review, viewer } = props;
  const [acknowledged, setAcknowledged] = useState<ReadonlySet<string>>(new Set());
  const [asking, setAsking] = useState(false);
  const latest = review.version === review.latestVersion;
  const answering = requestToAnswer(review, viewer?.user ?? null);
  const canRequest = latest && viewer !== null && viewer.role !== "viewer";
  return (
    <div className="review-panel" data-testid="review-panel">
      <div className="review-panel__state">
        <ReviewChip state={review.state} testId="review-state" />
        <span data-testid="review-approvals">
          {approvalsText(review.approvals, review.policy.requiredApprovals)}
        </span>
      </div>
      <p className="muted">
        {stateHelp(review.state)} Saved by {review.author?.username ?? "a former member"}.
      </p>
      <PolicyNote review={review} />
      <h3>Requests</h3>
      <RequestList
        requests={review.requests}
        now={props.now}
        revoking={
          viewer !== null && viewer.role === "owner"
            ? { pipelineId: review.pipeline, version: review.version, onRevoked: props.onChanged }
            : null
        }
      />
      {canRequest &&
        (asking ? (
          <RequestReviewForm
            pipelineId={review.pipeline}
            workspaceId={props.workspaceId}
            version={review.version}
            onRequested={(answer) => {
              setAsking(false);
              props.onChanged(answer);
            }}
            onCancel={() => {
              setAsking(false);
            }}
          />
        ) : (
          <button
            type="button"
            className="button button--small"
            onClick={() => {
              setAsking(true);
            }}
            data-testid="review-request-more"
          >
            Request review
          </button>
        ))}
      <StateLossList
        check={review.stateCheck}
        acknowledging={
          answering === null
            ? null
            : {
                checked: acknowledged,
                onToggle: (operatorId, checked) => {
                  const next = new Set(acknowledged);
                  if (checked) {
                    next.add(operatorId);
                  } else {
                    next.delete(operatorId);
                  }
                  setAcknowledged(next);
                },
              }
        }
      />
      {answering !== null ? (
        <VerdictForm
          pipelineId={review.pipeline}
          version={review.version}
          request={answering}
          acknowledged={acknowledged}
          unacknowledged={review.stateCheck.operators
            .filter((risk) => !acknowledged.has(risk.operatorId))
            .map((risk) => risk.name)}
          options={review.yourVerdicts}
          onAnswered={props.onChanged}
        />
      ) : (
        <p className="muted" data-testid="review-closed">
          {latest
            ? "You were not asked to review this version."
            : `Version ${review.latestVersion} was saved since: this version's review is closed.`}
        </p>
      )}
    </div>
  );
}
