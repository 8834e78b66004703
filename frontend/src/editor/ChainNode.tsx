import type { NodeProps } from "@xyflow/react";
import { memo } from "react";

import { CopyId } from "../ui/CopyId";
import type { ChainFlowNode } from "./canvasModel";

/** The box around an operator chain: one JobVertex, named as Flink names it. */
export const ChainNode = memo(function ChainNode({ data }: NodeProps<ChainFlowNode>) {
  const { vertex } = data;
  return (
    <div
      className="chain-box"
      style={{ width: data.width, height: data.height }}
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
        <CopyId id={data.vertexId} label="JobVertexID" />
      </div>
    </div>
  );
});
