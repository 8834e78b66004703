import type { NodeProps } from "@xyflow/react";
import { memo } from "react";

import { ChainChrome } from "../canvas/ChainChrome";
import { CopyId } from "../ui/CopyId";
import { useChainView } from "./canvasContext";
import type { ChainFlowNode } from "./canvasModel";

/** The box around an operator chain: one JobVertex, named as Flink names it. */
export const ChainNode = memo(function ChainNode({ id }: NodeProps<ChainFlowNode>) {
  const view = useChainView(id);
  if (view === undefined) {
    return null;
  }
  const { vertex } = view;
  return (
    <ChainChrome vertex={view.vertexId}>
      <div
        className="chain-box"
        style={{ width: view.width, height: view.height }}
        data-testid={`chain-${vertex.head}`}
      >
        <div className="chain-box__header">
          <span className="chain-box__name" title={`JobVertex: ${vertex.name}`}>
            {vertex.name}
          </span>
          <span className="chain-box__facts">
            p{vertex.parallelism}
            {vertex.slotSharingGroupName !== null && ` · ${vertex.slotSharingGroupName}`}
          </span>
          <CopyId id={view.vertexId} label="JobVertexID" />
        </div>
      </div>
    </ChainChrome>
  );
});
