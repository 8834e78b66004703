/**
 * Edges React Flow's bezier would hide: a self-loop (from an operator's output
 * back to its own input, whose curve runs through the operator) and a back edge
 * (to an operator left of its source, whose curve lies over the forward edge
 * between the same two). Each gets a detour that can be seen and clicked: a
 * loop arc above the operator, an arc below both operators. Plain numbers.
 */

import { NODE_HEIGHT } from "./geometry";

/** Where an edge's ends are, in flow coordinates (its source and target handles). */
export interface EdgePoints {
  readonly sourceX: number;
  readonly sourceY: number;
  readonly targetX: number;
  readonly targetY: number;
}

/** A drawn edge's path and the middle of it, where its label goes. */
export interface RoutedCurve {
  readonly path: string;
  readonly labelX: number;
  readonly labelY: number;
}

/** How far the ends' control points reach out sideways from the handles. */
const REACH = 56;
/** How far above its handles a self-loop's control points sit. */
const LOOP_LIFT = NODE_HEIGHT + 30;
/** How far below the lower operator's handle a back edge's control points sit. */
const BACK_DROP = NODE_HEIGHT + 40;

/** A cubic from the source out to the right, through `controlY`, into the target from the left. */
function detour(points: EdgePoints, controlY: number): RoutedCurve {
  const { sourceX, sourceY, targetX, targetY } = points;
  const c1x = sourceX + REACH;
  const c2x = targetX - REACH;
  const path = `M ${sourceX},${sourceY} C ${c1x},${controlY} ${c2x},${controlY} ${targetX},${targetY}`;
  // The cubic's point at t = 1/2.
  return {
    path,
    labelX: (sourceX + 3 * c1x + 3 * c2x + targetX) / 8,
    labelY: (sourceY + 6 * controlY + targetY) / 8,
  };
}

/**
 * The detour of an edge that needs one: a loop arc above the operator for a
 * self-loop, an arc below both operators for an edge whose target's input is
 * left of its source's output; null when the usual curve shows it.
 */
export function edgeDetour(points: EdgePoints, selfLoop: boolean): RoutedCurve | null {
  if (selfLoop) {
    return detour(points, Math.min(points.sourceY, points.targetY) - LOOP_LIFT);
  }
  if (points.targetX < points.sourceX) {
    return detour(points, Math.max(points.sourceY, points.targetY) + BACK_DROP);
  }
  return null;
}
