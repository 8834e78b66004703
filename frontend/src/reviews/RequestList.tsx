import type { ReviewRequest, Verdict } from "../api/reviews";
import { timeAgo } from "../versions/history";
import { verdictLabel } from "./states";

function VerdictLine({ verdict, now }: { readonly verdict: Verdict; readonly now: number }) {
  return (
    <span className="reviewer__verdict">
      <span
        className={`verdict-chip verdict-chip--${verdict.verdict}`}
        data-testid={`verdict-chip-${verdict.id}`}
      >
        {verdictLabel(verdict.verdict)}
      </span>
      {!verdict.counts && (
        <span
          className="muted"
          title="Only the latest verdicts of editors and owners count; the author's approval only where the policy allows it."
        >
          (does not count)
        </span>
      )}
      <time className="muted" dateTime={verdict.createdAt}>
        {timeAgo(verdict.createdAt, now)}
      </time>
      {verdict.summary !== "" && <q className="reviewer__summary">{verdict.summary}</q>}
    </span>
  );
}

/** A version's review requests, oldest first: who asked whom, with what, and each answer. */
export function RequestList(props: {
  readonly requests: readonly ReviewRequest[];
  readonly now: number;
}) {
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
            {request.superseded && <span className="muted"> · superseded</span>}
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
                <span className="role-pill">{reviewer.role ?? "no longer a member"}</span>
                {reviewer.latest === null ? (
                  <span className="muted">not answered</span>
                ) : (
                  <VerdictLine verdict={reviewer.latest} now={props.now} />
                )}
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ol>
  );
}
