import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from "@xyflow/react";
import { memo } from "react";

import type { DiffFlowEdge } from "./DiffCanvas";
import { valueText } from "./diffModel";

/** An edge of the compared graph; a label says what changed on it. */
export const DiffEdgeView = memo(function DiffEdgeView(props: EdgeProps<DiffFlowEdge>) {
  const [path, labelX, labelY] = getBezierPath(props);
  const item = props.data?.item;
  if (item === undefined) {
    return null;
  }
  const label =
    item.change === "changed"
      ? item.fields.map((f) => `${valueText(f.old, 16)} → ${valueText(f.new, 16)}`).join(", ")
      : item.change === "unchanged"
        ? null
        : item.edge.partitioner;
  return (
    <>
      <BaseEdge id={props.id} path={path} className={`diff-edge diff-edge--${item.change}`} />
      {label !== null && (
        <EdgeLabelRenderer>
          <div
            className={`diff-edge-label diff-edge-label--${item.change}`}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
            title={
              item.fields
                .map((f) => `${f.field}: ${valueText(f.old)} → ${valueText(f.new)}`)
                .join("\n") || `${item.change}: ${item.edge.partitioner}`
            }
            data-testid={`diff-edge-${item.id}`}
            data-change={item.change}
          >
            {item.change === "added" ? "+ " : item.change === "removed" ? "− " : ""}
            {label}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
});
