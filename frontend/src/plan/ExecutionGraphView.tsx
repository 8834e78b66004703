import { useCallback, useMemo } from "react";

import * as api from "../api/resources";
import { useResource } from "../ui/useResource";
import { executionVertices, MAX_ROWS, plural } from "./executionModel";
import { ExecutionVertexSection } from "./ExecutionVertexSection";
import "./plan.css";

/** After an edit, wait this long for more before asking for the plan again. */
const REFRESH_DELAY_MS = 400;

/**
 * The ExecutionGraph of the working copy, compiled by the server: per vertex its
 * subtasks (in ranges at high parallelism) with their key groups and result
 * partitions, and per input how producer partitions are wired to subtasks.
 */
export function ExecutionGraphView(props: {
  readonly pipelineId: number;
  readonly revision: number;
}) {
  const { pipelineId, revision } = props;
  const load = useCallback(
    (signal: AbortSignal) => api.getPlan(pipelineId, undefined, signal),
    [pipelineId],
  );
  const {
    data: plan,
    error,
    loading,
  } = useResource(load, `${pipelineId}@${revision}`, REFRESH_DELAY_MS);
  const vertices = useMemo(
    () =>
      plan?.jobGraph != null && plan.execution !== null
        ? executionVertices(plan.jobGraph, plan.execution)
        : null,
    [plan],
  );

  if (plan === null) {
    return (
      <div className="plan-view plan-view--empty" data-testid="execution-graph">
        <p className={error === null ? "muted" : "form-error"}>
          {error ?? "Compiling the ExecutionGraph…"}
        </p>
      </div>
    );
  }
  return (
    <div className="plan-view" data-testid="execution-graph" aria-busy={loading}>
      <header className="plan-view__header">
        <h2>ExecutionGraph</h2>
        {plan.execution !== null && (
          <span className="muted">
            {plural(plan.execution.totalSubtasks, "subtask")} ·{" "}
            {plural(plan.execution.vertices.length, "vertex", "vertices")}
            {plan.execution.slotsRequired !== null &&
              ` · ${plural(plan.execution.slotsRequired, "slot")}`}
          </span>
        )}
        {loading && <span className="muted">updating…</span>}
        {error !== null && <span className="form-error">{error}</span>}
      </header>
      {vertices === null ? (
        <p className="muted">
          The pipeline has errors (see Problems below the canvas): there is no ExecutionGraph until
          they are fixed.
        </p>
      ) : (
        <>
          <p className="muted plan-view__groups">
            Subtask <i>i</i> produces partition <i>i</i> of each of its vertex&apos;s data sets.
            Large ranges open into smaller ones; no more than {MAX_ROWS} rows are shown per level.
          </p>
          {vertices.map((view) => (
            <ExecutionVertexSection key={view.vertex.id} view={view} />
          ))}
        </>
      )}
    </div>
  );
}
