/**
 * Where things sit on every canvas (the editor's, the diff's, the run's):
 * operators are drawn at one fixed size, and boxes (an operator chain, a
 * JobVertex with its figures) are drawn around them. Plain numbers, so each
 * page's model computes its layout without React.
 */

import type { CanvasPosition } from "../graph/canvas";

/** Every operator is drawn at this size (`.op-node`, `.diff-node`, `.run-op` in the pages' CSS). */
export const NODE_WIDTH = 172;
export const NODE_HEIGHT = 62;

/** Operators run left to right: the room between an operator and the next one it feeds. */
export const LAYER_GAP = 70;
/** The room between operators above one another. */
export const NODE_GAP = 44;

/** A rectangle in flow coordinates. */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The room a box leaves around the operators it holds. */
export interface BoxMargins {
  /** On every side. */
  readonly padding: number;
  /** Above the operators, for the box's title line. */
  readonly header: number;
  /** Below the operators. */
  readonly footer: number;
}

/** The box around operators drawn at `positions`; null when there are none. */
export function boxAroundNodes(
  positions: readonly CanvasPosition[],
  margins: BoxMargins,
): Box | null {
  if (positions.length === 0) {
    return null;
  }
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const position of positions) {
    left = Math.min(left, position.x);
    top = Math.min(top, position.y);
    right = Math.max(right, position.x + NODE_WIDTH);
    bottom = Math.max(bottom, position.y + NODE_HEIGHT);
  }
  return {
    x: left - margins.padding,
    y: top - margins.padding - margins.header,
    width: right - left + 2 * margins.padding,
    height: bottom - top + 2 * margins.padding + margins.header + margins.footer,
  };
}

/** What `boundsOf` reads of an element: React Flow's nodes have this shape. */
export interface Placed {
  readonly position: CanvasPosition;
  readonly width?: number;
  readonly height?: number;
}

/** The box around every element drawn; null when there is none. */
export function boundsOf(elements: readonly Placed[]): Box | null {
  if (elements.length === 0) {
    return null;
  }
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const element of elements) {
    left = Math.min(left, element.position.x);
    top = Math.min(top, element.position.y);
    right = Math.max(right, element.position.x + (element.width ?? 0));
    bottom = Math.max(bottom, element.position.y + (element.height ?? 0));
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
}
