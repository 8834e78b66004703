import {
  BaseEdge,
  EdgeLabelRenderer,
  getBezierPath,
  type BaseEdgeProps,
  type Position,
} from "@xyflow/react";
import type { CSSProperties, ReactNode } from "react";

import { useBadges } from "./badges";
import { edgeDetour } from "./edgeRoutes";
import "./canvas.css";

/** Where an edge runs, and its middle, where its label and badges go. */
export interface EdgeCurve {
  readonly path: string;
  readonly labelX: number;
  readonly labelY: number;
}

/** What React Flow tells an edge component of where its ends are. */
export interface EdgeEnds {
  readonly sourceX: number;
  readonly sourceY: number;
  readonly sourcePosition: Position;
  readonly targetX: number;
  readonly targetY: number;
  readonly targetPosition: Position;
}

/** The bezier curve between an edge's ends, as React Flow's default edge draws it. */
export function bezierCurve(ends: EdgeEnds): EdgeCurve {
  const [path, labelX, labelY] = getBezierPath(ends);
  return { path, labelX, labelY };
}

/** An edge's ends and the nodes they belong to, as React Flow gives them to an edge. */
export interface EdgeRoute extends EdgeEnds {
  readonly source: string;
  readonly target: string;
}

/**
 * The curve of an edge on every canvas: a self-loop or a back edge takes its detour
 * (`edgeRoutes.ts`), so it is neither hidden under its operator nor under the forward
 * edge; any other edge the bezier curve.
 */
export function edgeCurve(route: EdgeRoute): EdgeCurve {
  return edgeDetour(route, route.source === route.target) ?? bezierCurve(route);
}

/**
 * What every edge on every canvas draws: its line (with an SVG `label`, as
 * React Flow's default edge has), whatever the edge adds (`children`: an HTML
 * label, a wider hit area), and its badges at its middle.
 */
export function EdgeChrome(props: {
  /** The canvas edge id (`source-target-typeNumber-k`). */
  readonly edge: string;
  readonly curve: EdgeCurve;
  /** The line's DOM id; React Flow's own edges have none. */
  readonly id?: string | undefined;
  readonly className?: string | undefined;
  readonly style?: CSSProperties | undefined;
  readonly markerEnd?: string | undefined;
  /** The width of the invisible line that takes clicks (React Flow's default: 20). */
  readonly interactionWidth?: number | undefined;
  readonly label?: ReactNode;
  readonly children?: ReactNode;
}) {
  const { curve } = props;
  const line: BaseEdgeProps = {
    path: curve.path,
    labelX: curve.labelX,
    labelY: curve.labelY,
    label: props.label,
  };
  if (props.id !== undefined) {
    line.id = props.id;
  }
  if (props.className !== undefined) {
    line.className = props.className;
  }
  if (props.style !== undefined) {
    line.style = props.style;
  }
  if (props.markerEnd !== undefined) {
    line.markerEnd = props.markerEnd;
  }
  if (props.interactionWidth !== undefined) {
    line.interactionWidth = props.interactionWidth;
  }
  return (
    <>
      <BaseEdge {...line} />
      {props.children}
      <EdgeBadges edge={props.edge} x={curve.labelX} y={curve.labelY} />
    </>
  );
}

function EdgeBadges({
  edge,
  x,
  y,
}: {
  readonly edge: string;
  readonly x: number;
  readonly y: number;
}) {
  const badges = useBadges({ kind: "edge", edge });
  if (badges === null) {
    return null;
  }
  return (
    <EdgeLabelRenderer>
      <div
        className="canvas-badges canvas-badges--edge"
        style={{ transform: `translate(${x}px, ${y}px)` }}
      >
        {badges}
      </div>
    </EdgeLabelRenderer>
  );
}
