import { memo } from "react";

import { CopyId } from "../ui/CopyId";
import type { JobGraphVertex } from "./jobGraphModel";

/** One JobVertex: its facts, its operators with their OperatorIDs, and its JobEdges. */
export const JobVertexCard = memo(function JobVertexCard(props: {
  readonly vertex: JobGraphVertex;
  readonly register: (id: string, element: HTMLElement | null) => void;
  readonly onSelectNodes: (nodes: number[]) => void;
}) {
  const { vertex, register, onSelectNodes } = props;
  const select = (): void => {
    onSelectNodes([...vertex.nodeIds]);
  };
  return (
    <article
      className="jv-card"
      ref={(element) => {
        register(vertex.id, element);
      }}
      data-testid={`jobgraph-vertex-${vertex.head}`}
      data-vertex-id={vertex.id}
    >
      <button
        type="button"
        className="jv-card__name"
        onClick={select}
        title="Select its operators on the canvas"
        data-testid={`jobgraph-select-${vertex.head}`}
      >
        {vertex.name}
      </button>
      <dl className="jv-card__facts">
        <dt>JobVertexID</dt>
        <dd>
          <CopyId id={vertex.id} label="JobVertexID" />
        </dd>
        <dt>Parallelism</dt>
        <dd>
          {vertex.parallelism} <span className="muted">(max {vertex.maxParallelism})</span>
        </dd>
        <dt>Slot sharing</dt>
        <dd>
          {vertex.slotSharingGroupName ?? "(none)"}
          {vertex.slotSharingGroup !== null && (
            <span className="muted"> #{vertex.slotSharingGroup}</span>
          )}
        </dd>
      </dl>
      <h4>Operators</h4>
      <ol className="jv-card__operators">
        {vertex.operators.map((op) => (
          <li key={op.nodeId}>
            <span className="jv-card__op-name" title={op.kind ?? undefined}>
              {op.name}
              {op.chainedSource && <span className="muted"> (chained source)</span>}
            </span>
            {op.operatorId !== null && <CopyId id={op.operatorId} label="OperatorID" />}
            {op.userDefinedId !== null && (
              <span className="jv-card__uid">
                uid <CopyId id={op.userDefinedId} label="User-defined OperatorID" />
              </span>
            )}
          </li>
        ))}
      </ol>
      {vertex.inputs.length > 0 && (
        <>
          <h4>Inputs</h4>
          <ul className="jv-card__edges">
            {vertex.inputs.map((edge) => (
              <li key={edge.key} data-testid={`jobgraph-edge-${edge.streamEdge}`}>
                <span className="jv-card__edge-from">← {edge.producerName}</span>
                <span className="jv-card__edge-facts">
                  <span title="Ship strategy">{edge.shipStrategy}</span>
                  <span
                    title="Distribution pattern"
                    className={`pattern pattern--${edge.distributionPattern === "POINTWISE" ? "pointwise" : "all-to-all"}`}
                  >
                    {edge.distributionPattern}
                  </span>
                  <span title="Result partition type">{edge.resultPartitionType}</span>
                </span>
                <span className="jv-card__edge-data-set">
                  data set <CopyId id={edge.dataSet} label="IntermediateDataSetID" />
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      {vertex.outputs.length > 0 && (
        <p className="jv-card__outputs muted">
          → {[...new Set(vertex.outputs.map((edge) => edge.consumerName))].join(", ")}
        </p>
      )}
    </article>
  );
});
