import { useCallback, useId, useState } from "react";

import * as api from "../api/resources";
import { listReviewStates, type ReviewStates } from "../api/reviews";
import { useResource } from "../ui/useResource";
import { defaultPair, diffPair, workingCopyState } from "./history";
import { SaveVersionForm } from "./SaveVersionForm";
import { VersionRow, type Pair, type RowReview, type Side } from "./VersionRow";
import "./versions.css";

interface Loaded {
  readonly versions: readonly api.VersionSummary[];
  /** When they were fetched: times are shown relative to it. */
  readonly at: number;
}

/**
 * The pipeline's saved versions, newest first, under the form that saves the
 * working copy as the next one. Two rows picked (A and B) open their diff.
 */
export function VersionsPanel(props: {
  readonly pipelineId: number;
  readonly revision: number;
  /** The last version someone saved while the page is open: the history reloads on it. */
  readonly latestVersion: number | null;
  readonly canEdit: boolean;
  /** Owners may choose the cluster a run uses. */
  readonly canChooseCluster: boolean;
  readonly onOpenDiff: (from: api.VersionRef, to: api.VersionRef) => void;
  /** Point at a node on the canvas (a problem that stops a version from running). */
  readonly onRevealNode?: (node: number) => void;
  readonly workspaceId: number;
  /** Counts the review requests and verdicts heard: the review states reload on each. */
  readonly reviewNews: number;
  readonly onOpenReview: (version: number) => void;
}) {
  const { pipelineId, revision, canEdit, canChooseCluster, onOpenDiff } = props;
  const run = canEdit ? { pipelineId, canChooseCluster, onRevealNode: props.onRevealNode } : null;
  // The newest version this panel saved itself; the history is fetched again for the
  // newest version known, from here or from the server's announcements: one fetch per version.
  const [savedHere, setSavedHere] = useState(0);
  const newest = Math.max(savedHere, props.latestVersion ?? 0);
  const [picked, setPicked] = useState<Pair | null>(null);
  const load = useCallback(
    async (signal: AbortSignal): Promise<Loaded> => ({
      versions: await api.listVersions(pipelineId, signal),
      at: Date.now(),
    }),
    [pipelineId],
  );
  const { data, error } = useResource(load, `${pipelineId}#${newest}`);
  const [requested, setRequested] = useState(0);
  const loadStates = useCallback(
    (signal: AbortSignal): Promise<ReviewStates> => listReviewStates(pipelineId, signal),
    [pipelineId],
  );
  const states = useResource(
    loadStates,
    `${pipelineId}#${newest}#${props.reviewNews}#${requested}`,
    150,
  );
  const name = useId();
  const latest = data?.versions.at(-1)?.number ?? null;
  const reviewOf = (number: number): RowReview | null => {
    const entry = states.data?.versions.find((v) => v.version === number);
    if (entry === undefined || states.data === null) {
      return null;
    }
    return {
      state: entry.state,
      approvals: entry.approvals,
      required: states.data.requiredApprovals,
      pipelineId,
      workspaceId: props.workspaceId,
      canRequest: canEdit && number === latest,
      onOpen: () => {
        props.onOpenReview(number);
      },
      onRequested: () => {
        setRequested((n) => n + 1);
      },
    };
  };

  const versions = data?.versions ?? null;
  const pair = picked ?? (versions === null ? null : defaultPair(versions, revision));
  const ordered = pair === null ? null : diffPair(pair.from, pair.to);
  const pick = (side: Side, ref: api.VersionRef): void => {
    setPicked({ ...(pair ?? { from: ref, to: ref }), [side]: ref });
  };

  return (
    <div className="versions" data-testid="versions-panel">
      <SaveVersionForm
        pipelineId={pipelineId}
        canEdit={canEdit}
        onSaved={(version) => {
          setPicked(null);
          setSavedHere(version.number);
        }}
      />
      {error !== null && <p className="form-error">{error}</p>}
      <h3>History</h3>
      {versions === null ? (
        error === null && <p className="muted">Loading…</p>
      ) : (
        <>
          <WorkingCopyNote state={workingCopyState(versions, revision)} />
          <div className="versions__compare">
            <span className="versions__pick-head" title="Older side of the comparison">
              A
            </span>
            <span className="versions__pick-head" title="Newer side of the comparison">
              B
            </span>
            <button
              type="button"
              className="button button--small button--primary"
              disabled={ordered === null || ordered.from === ordered.to}
              onClick={() => {
                if (ordered !== null) {
                  onOpenDiff(ordered.from, ordered.to);
                }
              }}
              data-testid="diff-button"
            >
              {compareLabel(ordered)}
            </button>
          </div>
          <ol className="version-list">
            <VersionRow
              reference="working"
              version={null}
              revision={revision}
              now={data?.at ?? 0}
              name={name}
              pair={pair}
              onPick={pick}
              onOpenDiff={onOpenDiff}
            />
            {[...versions].reverse().map((version) => (
              <VersionRow
                key={version.number}
                reference={version.number}
                version={version}
                revision={revision}
                now={data?.at ?? 0}
                name={name}
                pair={pair}
                onPick={pick}
                onOpenDiff={onOpenDiff}
                run={run}
                review={reviewOf(version.number)}
              />
            ))}
          </ol>
        </>
      )}
    </div>
  );
}

function short(ref: api.VersionRef): string {
  return ref === "working" ? "working copy" : `v${ref}`;
}

function compareLabel(pair: Pair | null): string {
  if (pair === null) {
    return "Save a version to compare";
  }
  if (pair.from === pair.to) {
    return "Pick two different rows";
  }
  return `Compare ${short(pair.from)} → ${short(pair.to)}`;
}

function WorkingCopyNote({ state }: { readonly state: ReturnType<typeof workingCopyState> }) {
  const text =
    state.kind === "unsaved"
      ? "No version saved yet."
      : state.kind === "saved"
        ? `The working copy is saved as version ${state.version}.`
        : `${state.edits} edit${state.edits === 1 ? "" : "s"} since version ${state.version}.`;
  return (
    <p className="muted versions__state" data-testid="working-copy-state">
      {text}
    </p>
  );
}
