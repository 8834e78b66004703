import { subtasksOf, vertexOf } from "../store/run";
import { CopyId } from "../ui/CopyId";
import { useRun, useRunActive, useRunPage, useRunView } from "./context";
import { formatCount } from "./format";
import { SkewChart } from "./SkewChart";
import { StateBar, StateCounts } from "./StateBar";
import { StatusBadge } from "./StatusBadge";
import { SubtaskTable } from "./SubtaskTable";

/** The selected JobVertex: its figures, records per subtask against the prediction, its subtasks. */
export function VertexPanel() {
  const { facts } = useRunPage();
  const selected = useRunView((state) => state.vertex);
  const first = useRun((state) => state.vertices[0]?.id ?? null);
  const id = selected ?? first;
  const vertex = useRun((state) => (id === null ? undefined : vertexOf(state, id)));
  const subtasks = useRun((state) => (id === null ? [] : subtasksOf(state, id)));
  const active = useRunActive();
  if (vertex === undefined) {
    return <p className="muted">No vertex to show.</p>;
  }
  const plan = facts.get(vertex.id);
  return (
    <div className="vertex-panel" data-testid={`vertex-panel-${vertex.id}`}>
      <div className="vertex-panel__head">
        <h2 className="vertex-panel__name">{vertex.name}</h2>
        <StatusBadge status={vertex.status} />
      </div>
      <div className="vertex-panel__facts muted">
        <CopyId id={vertex.id} label="JobVertexID" /> · parallelism {vertex.parallelism} · max
        parallelism {vertex.maxParallelism}
        {plan !== undefined && plan.inputs.length > 0 && (
          <> · {plan.inputs.map((input) => input.shipStrategy).join(", ")} input</>
        )}
        {plan?.isSource === true && <> · source</>}
      </div>
      <StateBar counts={vertex.statusCounts} />
      <div className="vertex-panel__line">
        <StateCounts counts={vertex.statusCounts} />
        <span className="muted">
          in {formatCount(vertex.recordsIn)} · out {formatCount(vertex.recordsOut)}
        </span>
      </div>
      <SkewChart vertex={vertex} subtasks={subtasks} facts={plan} />
      <h3>Subtasks</h3>
      <SubtaskTable key={vertex.id} subtasks={subtasks} active={active} />
    </div>
  );
}
