import { useCallback, useState } from "react";

import { listSavepoints } from "../api/savepoints";
import { shownSavepoint } from "../savepoints/format";
import { useRestoreCheck } from "../savepoints/useRestoreCheck";
import { notCompiledVerdict, restoreVerdict } from "../savepoints/verdict";
import { useResource } from "../ui/useResource";
import type { RescaleTarget } from "./rescaleModel";

/**
 * Whether the rescaled job restores from one of the pipeline's savepoints (the current one
 * first): the restore check of the same version, rescaled the same way.
 */
export function RescaleRestore(props: {
  readonly pipelineId: number;
  readonly version: number | null;
  readonly revision: number;
  readonly target: RescaleTarget;
  readonly parallelism: number;
}) {
  const { pipelineId, version, revision, target, parallelism } = props;
  const [picked, setPicked] = useState<number | null>(null);
  const load = useCallback(
    (signal: AbortSignal) => listSavepoints(pipelineId, signal),
    [pipelineId],
  );
  const savepoints = useResource(load, String(pipelineId)).data ?? [];
  const shown = picked === -1 ? null : shownSavepoint(savepoints, picked);
  const answer = useRestoreCheck(
    pipelineId,
    shown,
    {
      checked: version ?? "working",
      allowNonRestoredState: false,
      rescale: { parallelism, ...(target.kind === "vertex" ? { vertex: target.id } : {}) },
    },
    revision,
  );
  if (savepoints.length === 0) {
    return (
      <p className="muted rescale-restore" data-testid="rescale-restore-none">
        Upload a savepoint in the State tab to see whether this rescale restores from it.
      </p>
    );
  }
  const verdict =
    answer.data === null
      ? null
      : answer.data.kind === "check"
        ? restoreVerdict(answer.data.check)
        : notCompiledVerdict(answer.data.message);
  return (
    <div className="rescale-restore">
      <label>
        From savepoint{" "}
        <select
          value={shown ?? -1}
          data-testid="rescale-savepoint"
          onChange={(event) => {
            setPicked(Number(event.target.value));
          }}
        >
          <option value={-1}>(none)</option>
          {savepoints.map((savepoint) => (
            <option key={savepoint.id} value={savepoint.id}>
              {savepoint.label}
              {savepoint.isCurrent ? " (current)" : ""}
            </option>
          ))}
        </select>
      </label>
      {shown !== null && answer.error !== null && (
        <span className="form-error">{answer.error}</span>
      )}
      {shown !== null && verdict !== null && (
        <span
          className={`rescale-restore__verdict rescale-restore__verdict--${verdict.tone}`}
          data-testid="rescale-restore"
          data-tone={verdict.tone}
          title={verdict.details.join(" ")}
        >
          {verdict.title}
        </span>
      )}
    </div>
  );
}
