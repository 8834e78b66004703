import type { NodeProps } from "@xyflow/react";
import { memo } from "react";

import { ChainChrome } from "../canvas/ChainChrome";
import { subtasksOf, vertexOf } from "../store/run";
import { useNow, useRun, useRunActive, useRunView } from "./context";
import { formatCompact, formatDuration, spanDuration } from "./format";
import type { RunVertexFlowNode } from "./runFlow";
import { vertexTrouble } from "./runCanvasModel";
import { StateBar } from "./StateBar";
import { StatusBadge } from "./StatusBadge";
import { doneFraction, isTerminalState } from "./states";

/** A JobVertex in run mode: its name and status above its operators, its figures below. */
export const RunVertexBox = memo(function RunVertexBox({ data }: NodeProps<RunVertexFlowNode>) {
  const id = data.vertex;
  const vertex = useRun((state) => vertexOf(state, id));
  const trouble = useRun((state) => vertexTrouble(subtasksOf(state, id)));
  const selected = useRunView((state) => state.vertex === id);
  const active = useRunActive();
  const now = useNow(active && vertex?.startTime != null && vertex.endTime === null);
  if (vertex === undefined) {
    return (
      <ChainChrome vertex={id}>
        <div className="run-vertex run-vertex--unknown" />
      </ChainChrome>
    );
  }
  const done = doneFraction(vertex.statusCounts);
  const finished = vertex.statusCounts.FINISHED;
  return (
    <ChainChrome vertex={id}>
      <div
        className={`run-vertex${selected ? " is-selected" : ""}${trouble === null ? "" : ` run-vertex--${trouble}`}`}
        data-testid={`run-vertex-${id}`}
        data-status={vertex.status}
        title={`${vertex.name}\nJobVertexID ${id}`}
      >
        <div className="run-vertex__header">
          {trouble !== null && (
            <span
              className={`trouble-mark trouble-mark--${trouble}`}
              title={trouble === "failed" ? "A subtask failed" : "A subtask failed and was retried"}
            >
              !
            </span>
          )}
          <span className="run-vertex__name">{vertex.name}</span>
          <StatusBadge status={vertex.status} />
        </div>
        <div className="run-vertex__footer">
          <StateBar counts={vertex.statusCounts} />
          <div className="run-vertex__line">
            <span data-testid={`run-vertex-finished-${id}`}>
              {finished}/{vertex.parallelism} finished
            </span>
            {!isTerminalState(vertex.status) && done < 1 && (
              <span className="muted">{Math.round(done * 100)}%</span>
            )}
            <span className="muted">{formatDuration(spanDuration(vertex, now))}</span>
          </div>
          <div className="run-vertex__line run-vertex__records">
            <span title={`${vertex.recordsIn} records in`}>
              in {formatCompact(vertex.recordsIn)}
            </span>
            <span title={`${vertex.recordsOut} records out`}>
              out {formatCompact(vertex.recordsOut)}
            </span>
          </div>
        </div>
      </div>
    </ChainChrome>
  );
});
