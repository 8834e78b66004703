import { useState } from "react";

import type { VersionRef, VersionSummary } from "../api/resources";
import type { VersionReview } from "../api/reviews";
import { RequestReviewForm } from "../reviews/RequestReviewForm";
import { ReviewChip } from "../reviews/ReviewChip";
import { approvalsText } from "../reviews/states";
import { RunVersion } from "../runs/RunVersion";
import { timeAgo, versionLabel } from "./history";

export type Side = "from" | "to";

/** A saved version's review as its row shows it. */
export interface RowReview {
  readonly state: VersionReview["state"];
  readonly approvals: number;
  readonly required: number;
  readonly pipelineId: number;
  readonly workspaceId: number;
  /** Editors may ask for a review of the latest version. */
  readonly canRequest: boolean;
  readonly onOpen: () => void;
  readonly onRequested: () => void;
}
export interface Pair {
  readonly from: VersionRef;
  readonly to: VersionRef;
}

/** One row of the history: the two pickers (A, B), what was saved, by whom and when. */
export function VersionRow(props: {
  readonly reference: VersionRef;
  /** Null for the working copy. */
  readonly version: VersionSummary | null;
  readonly revision: number;
  /** The time that "5 min ago" counts from. */
  readonly now: number;
  /** The radio groups' name. */
  readonly name: string;
  readonly pair: Pair | null;
  readonly onPick: (side: Side, ref: VersionRef) => void;
  readonly onOpenDiff: (from: VersionRef, to: VersionRef) => void;
  /** Set for editors: the version can be run on Spark from its row. */
  readonly run?: {
    readonly pipelineId: number;
    /** Owners may choose the cluster a run uses. */
    readonly canChooseCluster: boolean;
    readonly onRevealNode?: ((node: number) => void) | undefined;
  } | null;
  /** Set for saved versions once their review states are known. */
  readonly review?: RowReview | null;
}) {
  const { reference, version, pair, onPick, name } = props;
  const previous = typeof reference === "number" && reference > 1 ? reference - 1 : null;
  return (
    <li className="version-row" data-testid={`version-row-${reference}`}>
      {(["from", "to"] as const).map((side) => (
        <input
          key={side}
          type="radio"
          className="version-row__pick"
          name={`${name}-${side}`}
          checked={pair?.[side] === reference}
          onChange={() => {
            onPick(side, reference);
          }}
          aria-label={`Compare ${versionLabel(reference)} as ${side === "from" ? "A" : "B"}`}
          data-testid={`version-pick-${side}-${reference}`}
        />
      ))}
      <div className="version-row__body">
        {version === null ? (
          <>
            <span className="version-row__title">Working copy</span>
            <span className="version-row__meta muted">revision {props.revision}, live</span>
          </>
        ) : (
          <>
            <span className="version-row__title">v{version.number}</span>{" "}
            <span className="version-row__message">{version.message || "(no message)"}</span>
            <span className="version-row__meta muted">
              {version.author?.username ?? "unknown"} ·{" "}
              <time dateTime={version.createdAt} title={version.createdAt}>
                {timeAgo(version.createdAt, props.now)}
              </time>{" "}
              · rev {version.revision}
            </span>
            {props.review != null && <ReviewLine version={version.number} review={props.review} />}
            {props.run != null && (
              <RunVersion
                pipelineId={props.run.pipelineId}
                version={version.number}
                canChooseCluster={props.run.canChooseCluster}
                onReveal={props.run.onRevealNode}
              />
            )}
          </>
        )}
      </div>
      {previous !== null && (
        <button
          type="button"
          className="link-button version-row__changes"
          onClick={() => {
            props.onOpenDiff(previous, reference);
          }}
          title={`Compare version ${previous} with version ${reference}`}
          data-testid={`version-changes-${reference}`}
        >
          changes
        </button>
      )}
    </li>
  );
}

/** A version's review state, a way to its review, and (editors, latest version) a request. */
function ReviewLine(props: { readonly version: number; readonly review: RowReview }) {
  const { review, version } = props;
  const [asking, setAsking] = useState(false);
  return (
    <div className="version-row__review">
      <ReviewChip
        state={review.state}
        detail={approvalsText(review.approvals, review.required)}
        testId={`review-state-${version}`}
      />
      <button
        type="button"
        className="link-button"
        onClick={review.onOpen}
        title={`Open the review of version ${version}`}
        data-testid={`version-review-${version}`}
      >
        review
      </button>
      {review.canRequest && !asking && (
        <button
          type="button"
          className="button button--small"
          onClick={() => {
            setAsking(true);
          }}
          data-testid={`version-request-review-${version}`}
        >
          Request review
        </button>
      )}
      {asking && (
        <RequestReviewForm
          pipelineId={review.pipelineId}
          workspaceId={review.workspaceId}
          version={version}
          onRequested={() => {
            setAsking(false);
            review.onRequested();
          }}
          onCancel={() => {
            setAsking(false);
          }}
        />
      )}
    </div>
  );
}
