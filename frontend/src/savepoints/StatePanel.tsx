import { useCallback, useEffect, useMemo, useState } from "react";

import { listVersions } from "../api/resources";
import { listSavepoints, type RestoreCheck } from "../api/savepoints";
import type { Edit } from "../graph/edits";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { useResource } from "../ui/useResource";
import { shownSavepoint } from "./format";
import { choicesFor, type Choices } from "./mapping";
import { MapLostState } from "./MapLostState";
import { nodeMarkers, type NodeMarker } from "./markers";
import { RestoreReport, RestoreVerdictBanner } from "./RestoreReport";
import { SavepointList } from "./SavepointList";
import { SavepointUploadForm } from "./SavepointUploadForm";
import { useRestoreCheck } from "./useRestoreCheck";
import { checkedText, notCompiledVerdict, restoreVerdict } from "./verdict";
import "./savepoints.css";

export type Markers = ReadonlyMap<number, NodeMarker>;

/**
 * Would the working copy (or a saved version) start from one of the pipeline's savepoints?
 * Pick or upload a savepoint, read the verdict, what becomes of each operator's state, and
 * map lost state back; the working copy's operators are marked on the canvas meanwhile.
 */
export function StatePanel(props: {
  readonly pipelineId: number;
  /** The working copy's revision: its check is asked again when it moves. */
  readonly revision: number;
  readonly document: StreamGraphDocument;
  /** The last version saved while the page is open: the versions are read again. */
  readonly latestVersion: number | null;
  /** Upload, change and delete savepoints (editors and owners). */
  readonly canManage: boolean;
  /** Applies edits to the working copy as one step (null: the user cannot edit it). */
  readonly onApply: ((edits: readonly Edit[]) => string | null) | null;
  /** The marks for the canvas; null: none. */
  readonly onMarkers: (markers: Markers | null) => void;
  readonly onReveal: (node: number) => void;
}) {
  const { pipelineId, document, onMarkers } = props;
  const [refreshes, setRefreshes] = useState(0);
  const [picked, setPicked] = useState<number | null>(null);
  const [checked, setChecked] = useState<number | "working">("working");
  const [allow, setAllow] = useState(false);
  const [showMarkers, setShowMarkers] = useState(true);
  const [uploading, setUploading] = useState(false);
  const [chosen, setChosen] = useState<Choices>(new Map());

  const loadSavepoints = useCallback(
    (signal: AbortSignal) => listSavepoints(pipelineId, signal),
    [pipelineId],
  );
  const savepoints = useResource(loadSavepoints, `${pipelineId}#${refreshes}`);
  const loadVersions = useCallback(
    (signal: AbortSignal) => listVersions(pipelineId, signal),
    [pipelineId],
  );
  const versions = useResource(loadVersions, `${pipelineId}#${String(props.latestVersion)}`);
  const list = useMemo(() => savepoints.data ?? [], [savepoints.data]);
  const shown = shownSavepoint(list, picked);

  const answer = useRestoreCheck(
    pipelineId,
    shown,
    { checked, allowNonRestoredState: allow },
    props.revision,
  );
  const check: RestoreCheck | null = answer.data?.kind === "check" ? answer.data.check : null;
  const ofWorkingCopy = check?.checked === "working" && check.savepoint.id === shown;
  const choices = useMemo(
    (): Choices => (check === null ? new Map() : choicesFor(check, document, chosen)),
    [check, document, chosen],
  );

  const markers = useMemo(() => {
    if (!showMarkers || !ofWorkingCopy) {
      return null;
    }
    return nodeMarkers(check, new Set(document.nodes.map((node) => node.id)), choices);
  }, [showMarkers, ofWorkingCopy, check, document, choices]);
  useEffect(() => {
    onMarkers(markers);
  }, [markers, onMarkers]);
  useEffect(
    () => () => {
      onMarkers(null);
    },
    [onMarkers],
  );

  const versionList = versions.data ?? [];
  const verdict =
    answer.data === null
      ? null
      : answer.data.kind === "check"
        ? restoreVerdict(answer.data.check)
        : notCompiledVerdict(answer.data.message);

  return (
    <div className="state-panel" data-testid="state-panel">
      <div className="state-panel__head">
        <h3>Savepoints</h3>
        {props.canManage && (
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setUploading((open) => !open);
            }}
            data-testid="savepoint-upload-toggle"
          >
            {uploading ? "close" : "upload"}
          </button>
        )}
      </div>
      {savepoints.error !== null && <p className="form-error">{savepoints.error}</p>}
      {props.canManage && (uploading || (savepoints.data !== null && list.length === 0)) && (
        <SavepointUploadForm
          pipelineId={pipelineId}
          versions={versionList}
          onUploaded={(uploaded) => {
            setPicked(uploaded.id);
            setUploading(false);
            setRefreshes((n) => n + 1);
          }}
        />
      )}
      {savepoints.data === null ? (
        savepoints.error === null && <p className="muted">Loading…</p>
      ) : list.length === 0 ? (
        <p className="muted">
          No savepoints yet.{" "}
          {props.canManage
            ? "Upload a savepoint's _metadata file to check this pipeline against it."
            : "Editors upload them."}
        </p>
      ) : (
        <SavepointList
          pipelineId={pipelineId}
          savepoints={list}
          shown={shown}
          canManage={props.canManage}
          onPick={(id) => {
            setPicked(id);
            setChosen(new Map());
          }}
          onChanged={() => {
            setRefreshes((n) => n + 1);
          }}
        />
      )}
      {shown !== null && (
        <section className="state-panel__check">
          <div className="field">
            <label htmlFor="state-checked">Check</label>
            <select
              id="state-checked"
              value={String(checked)}
              onChange={(event) => {
                const value = event.target.value;
                setChecked(value === "working" ? "working" : Number(value));
              }}
              data-testid="state-checked"
            >
              <option value="working">the working copy</option>
              {[...versionList].reverse().map((version) => (
                <option key={version.number} value={version.number}>
                  version {version.number}
                </option>
              ))}
            </select>
          </div>
          <div className="field field--check">
            <label>
              <input
                type="checkbox"
                checked={allow}
                onChange={(event) => {
                  setAllow(event.target.checked);
                }}
                data-testid="state-allow-non-restored"
              />
              <span>
                Allow non-restored state (<code>--allowNonRestoredState</code>)
              </span>
            </label>
          </div>
          {checked === "working" && (
            <div className="field field--check">
              <label>
                <input
                  type="checkbox"
                  checked={showMarkers}
                  onChange={(event) => {
                    setShowMarkers(event.target.checked);
                  }}
                  data-testid="state-show-markers"
                />
                Mark restored, lost and new operators on the canvas
              </label>
            </div>
          )}
          {answer.error !== null && <p className="form-error">{answer.error}</p>}
          {verdict !== null && <RestoreVerdictBanner verdict={verdict} />}
          <p className="muted state-panel__checked" data-testid="state-checked-what">
            {answer.loading ? "Checking…" : check === null ? "" : checkedText(check)}
          </p>
          {check !== null && (
            <>
              {ofWorkingCopy ? (
                <MapLostState
                  check={check}
                  document={document}
                  choices={choices}
                  onChoose={(operatorId, node) => {
                    setChosen((current) => new Map(current).set(operatorId, node));
                  }}
                  onApply={props.onApply}
                />
              ) : (
                check.operators.some((row) => row.outcome === "lost") && (
                  <p className="muted">Check the working copy to map lost state onto it.</p>
                )
              )}
              <RestoreReport check={check} onReveal={ofWorkingCopy ? props.onReveal : null} />
            </>
          )}
        </section>
      )}
    </div>
  );
}
