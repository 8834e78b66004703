import { memo } from "react";

import type { RunVertex } from "../api/runs";
import { subtasksOf } from "../store/run";
import { useNow, useRun, useRunActive, useRunPage, useRunView } from "./context";
import { formatClock, formatCount, formatDuration, spanDuration } from "./format";
import { vertexTrouble } from "./runCanvasModel";
import { StateBar, StateCounts } from "./StateBar";
import { StatusBadge } from "./StatusBadge";

/** Every JobVertex of the run, as Flink's job overview lists them; a row selects its vertex. */
export function VertexTable() {
  const vertices = useRun((state) => state.vertices);
  return (
    <div className="run-vertices" data-testid="run-vertices">
      <table className="table run-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Status</th>
            <th>Subtasks</th>
            <th className="num">Records in</th>
            <th className="num">Records out</th>
            <th className="num">Duration</th>
            <th className="num">Parallelism</th>
            <th>Start</th>
          </tr>
        </thead>
        <tbody>
          {vertices.map((vertex) => (
            <VertexRow key={vertex.id} vertex={vertex} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

const VertexRow = memo(function VertexRow({ vertex }: { readonly vertex: RunVertex }) {
  const { view } = useRunPage();
  const selected = useRunView((state) => state.vertex === vertex.id);
  const trouble = useRun((state) => vertexTrouble(subtasksOf(state, vertex.id)));
  const active = useRunActive();
  const now = useNow(active && vertex.startTime !== null && vertex.endTime === null);
  return (
    <tr
      className={`run-table__row${selected ? " is-selected" : ""}`}
      onClick={() => {
        view.getState().selectVertex(vertex.id, { focus: true });
      }}
      data-testid={`vertex-row-${vertex.id}`}
    >
      <td className="run-table__name" title={`JobVertexID ${vertex.id}`}>
        {trouble !== null && <span className={`trouble-mark trouble-mark--${trouble}`}>!</span>}{" "}
        {vertex.name}
      </td>
      <td>
        <StatusBadge status={vertex.status} />
      </td>
      <td className="run-table__bar">
        <StateBar counts={vertex.statusCounts} />
        <StateCounts counts={vertex.statusCounts} />
      </td>
      <td className="num">{formatCount(vertex.recordsIn)}</td>
      <td className="num">{formatCount(vertex.recordsOut)}</td>
      <td className="num">{formatDuration(spanDuration(vertex, now))}</td>
      <td className="num">
        {vertex.parallelism}
        <span className="muted"> / {vertex.maxParallelism}</span>
      </td>
      <td className="mono">{formatClock(vertex.startTime)}</td>
    </tr>
  );
});
