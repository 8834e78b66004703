import { useState } from "react";

import * as reviews from "../api/reviews";
import type { ReviewRequest, Verdict } from "../api/reviews";
import { formatBytes } from "../savepoints/format";
import { timeAgo } from "../versions/history";
import { CommentForm } from "./CommentForm";
import { verdictLabel } from "./states";

/** The longest reason for a revocation the server takes. */
const REVOCATION_REASON_MAX_CHARS = 2_000;

/** Whether and why a verdict counts, from the weight it was given with. */
function weightWords(verdict: Verdict): string | null {
  if (verdict.revocation !== null) {
    return "(revoked: does not count)";
  }
  if (!verdict.countsWhenGiven) {
    return verdict.verdict === "comment" ? null : "(does not count)";
  }
  return verdict.counts ? null : "(not their latest: does not count)";
}

function VerdictLine({ verdict, now }: { readonly verdict: Verdict; readonly now: number }) {
  const weight = weightWords(verdict);
  return (
    <span className="reviewer__verdict">
      <span
        className={`verdict-chip verdict-chip--${verdict.verdict}`}
        data-testid={`verdict-chip-${verdict.id}`}
      >
        {verdictLabel(verdict.verdict)}
      </span>
      <span className="muted" data-testid={`verdict-role-${verdict.id}`}>
        as {verdict.role}
      </span>
      {weight !== null && (
        <span
          className="muted"
          data-testid={`verdict-weight-${verdict.id}`}
          title="A verdict's weight is fixed when it is given: an editor's or owner's counts (the author's approval only where the policy then allowed it), and no later role change rewrites it."
        >
          {weight}
        </span>
      )}
      <time className="muted" dateTime={verdict.createdAt}>
        {timeAgo(verdict.createdAt, now)}
      </time>
      {verdict.summary !== "" && <q className="reviewer__summary">{verdict.summary}</q>}
      {verdict.acknowledgedState.length > 0 && (
        <span className="reviewer__acknowledged" data-testid={`verdict-acknowledged-${verdict.id}`}>
          Acknowledged losing the state of{" "}
          {verdict.acknowledgedState.map((state, index) => (
            <span key={state.operatorId}>
              {index > 0 && ", "}
              {state.name} (<code title="The ID its state is saved under">{state.operatorId}</code>
              {state.stateBytes === null ? "" : `, ${formatBytes(state.stateBytes)}`})
            </span>
          ))}
        </span>
      )}
      {verdict.revocation !== null && (
        <span className="reviewer__revocation" data-testid={`verdict-revocation-${verdict.id}`}>
          Revoked by {verdict.revocation.by?.username ?? "a former member"}{" "}
          {timeAgo(verdict.revocation.at, now)}: “{verdict.revocation.reason}”
        </span>
      )}
    </span>
  );
}

/** An owner takes back an approval, saying why; the reason stays on the record. */
function RevokeApproval(props: {
  readonly pipelineId: number;
  readonly version: number;
  readonly request: number;
  readonly verdict: Verdict;
  readonly onRevoked: (review: reviews.VersionReview) => void;
}) {
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <button
        type="button"
        className="link-button"
        onClick={() => {
          setOpen(true);
        }}
        data-testid={`revoke-open-${props.verdict.id}`}
      >
        Revoke approval
      </button>
    );
  }
  return (
    <CommentForm
      label="Why this approval no longer stands"
      placeholder="Why does this approval no longer stand? The reason stays on the record."
      submitLabel={`Revoke ${props.verdict.reviewer?.username ?? "this"}'s approval`}
      maxChars={REVOCATION_REASON_MAX_CHARS}
      testId={`revoke-${props.verdict.id}`}
      onSubmit={async (reason) => {
        const review = await reviews.revokeApproval(
          props.pipelineId,
          props.version,
          props.request,
          props.verdict.id,
          reason.trim(),
        );
        setOpen(false);
        props.onRevoked(review);
      }}
      onCancel={() => {
        setOpen(false);
      }}
    />
  );
}

/** A version's review requests, oldest first: who asked whom, with what, and each answer. */
export function RequestList(props: {
  readonly requests: readonly ReviewRequest[];
  readonly now: number;
  /** The signed-in owner may revoke approvals (null: they may not). */
  readonly revoking: {
    readonly pipelineId: number;
    readonly version: number;
    readonly onRevoked: (review: reviews.VersionReview) => void;
  } | null;
}) {
  const { revoking } = props;
  if (props.requests.length === 0) {
    return <p className="muted">Nobody was asked to review this version yet.</p>;
  }
  return (
    <ol className="request-list">
      {props.requests.map((request) => (
        <li key={request.id} className="request" data-testid={`request-${request.id}`}>
          <p className="request__head">
            <strong>{request.requestedBy?.username ?? "A former member"}</strong> asked{" "}
            <time className="muted" dateTime={request.createdAt}>
              {timeAgo(request.createdAt, props.now)}
            </time>
            {/* Closed, not overturned: an approved version's review stays approved. */}
            {request.superseded && <span className="muted"> · closed: a newer version exists</span>}
          </p>
          {request.message !== "" && <p className="request__message">{request.message}</p>}
          <ul className="reviewer-list">
            {request.reviewers.map((reviewer) => (
              <li
                key={reviewer.user.id}
                className="reviewer"
                data-testid={`reviewer-${request.id}-${reviewer.user.username}`}
              >
                <span className="reviewer__name">{reviewer.user.username}</span>
                <span className="role-pill" title="Their role now">
                  {reviewer.role ?? "no longer a member"}
                </span>
                {reviewer.latest === null ? (
                  <span className="muted">not answered</span>
                ) : (
                  <VerdictLine verdict={reviewer.latest} now={props.now} />
                )}
                {revoking !== null && reviewer.latest?.revocable === true && (
                  <RevokeApproval
                    pipelineId={revoking.pipelineId}
                    version={revoking.version}
                    request={request.id}
                    verdict={reviewer.latest}
                    onRevoked={revoking.onRevoked}
                  />
                )}
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ol>
  );
}
