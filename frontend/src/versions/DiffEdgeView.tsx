import { EdgeLabelRenderer, type EdgeProps } from "@xyflow/react";
import { memo } from "react";

import { bezierCurve, EdgeChrome } from "../canvas/EdgeChrome";
import { edgeDetour } from "../canvas/edgeRoutes";
import { NODE_HEIGHT } from "../canvas/geometry";
import type { DiffFlowEdge } from "./diffFlow";
import { valueText } from "./diffModel";

/**
 * Where a label goes: above the nodes when the edge runs forward between nodes of one
 * row, whose gap is often narrower than a label such as "FORWARD → REBALANCE" (it would
 * cover their badges); on the edge otherwise, a detour's too.
 */
function labelTransform(
  props: EdgeProps<DiffFlowEdge>,
  detoured: boolean,
  x: number,
  y: number,
): string {
  if (!detoured && Math.abs(props.sourceY - props.targetY) < NODE_HEIGHT / 2) {
    return `translate(-50%, -100%) translate(${x}px, ${y - NODE_HEIGHT / 2 - 3}px)`;
  }
  return `translate(-50%, -50%) translate(${x}px, ${y}px)`;
}

/**
 * An edge of the compared graph; a label says what changed on it. A self-loop or a back
 * edge takes its detour, as on the editor's canvas, with its label on it.
 */
export const DiffEdgeView = memo(function DiffEdgeView(props: EdgeProps<DiffFlowEdge>) {
  const detour = edgeDetour(props, props.source === props.target);
  const curve = detour ?? bezierCurve(props);
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
    <EdgeChrome
      edge={item.id}
      curve={curve}
      id={props.id}
      className={`diff-edge diff-edge--${item.change}`}
    >
      {label !== null && (
        <EdgeLabelRenderer>
          <div
            className={`diff-edge-label diff-edge-label--${item.change}`}
            style={{
              transform: labelTransform(props, detour !== null, curve.labelX, curve.labelY),
            }}
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
    </EdgeChrome>
  );
});
