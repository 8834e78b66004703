/**
 * Where an operator added from the palette goes, and what feeds it. As in Node-RED and
 * NiFi, a new operator lands beside the selected one and is wired to it when both ends
 * can take the edge; with nothing selected it lands in the middle of the view. Either
 * way it never lands on another operator: it steps down until its place is free.
 * Plain numbers and documents, so the palette and the tests share it.
 */

import type { OperatorSpec } from "../api/resources";
import { LAYER_GAP, NODE_GAP, NODE_HEIGHT, NODE_WIDTH, type Box } from "../canvas/geometry";
import { fallbackPositions, GRID, storedPosition, type CanvasPosition } from "../graph/canvas";
import type { InboundEdgeInput } from "../graph/edits";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { newInboundEdge } from "./commands";

/** How close a new operator may come to another one, on every side. */
export const CLEARANCE = NODE_GAP / 2;

/** Whether an operator at `spot` would come closer than `CLEARANCE` to one at `other`. */
function crowds(spot: CanvasPosition, other: CanvasPosition): boolean {
  return (
    Math.abs(spot.x - other.x) < NODE_WIDTH + CLEARANCE &&
    Math.abs(spot.y - other.y) < NODE_HEIGHT + CLEARANCE
  );
}

/**
 * `start`, or the first spot below it where an operator crowds no other: past the
 * operators in the way, one row gap below the lowest of them, again until none is.
 */
export function freeSpotBelow(
  start: CanvasPosition,
  taken: readonly CanvasPosition[],
): CanvasPosition {
  let spot = start;
  for (;;) {
    const lowest = taken.reduce<number | null>(
      (low, other) => (crowds(spot, other) && (low === null || other.y > low) ? other.y : low),
      null,
    );
    if (lowest === null) {
      return spot;
    }
    // Each step passes an operator in the way, so the walk ends below the lowest one.
    spot = { x: spot.x, y: lowest + NODE_HEIGHT + NODE_GAP };
  }
}

/** Where each operator is drawn: its stored position, else its place on the grid. */
export function drawnPositions(document: StreamGraphDocument): Map<number, CanvasPosition> {
  const fallback = fallbackPositions(document);
  return new Map(
    document.nodes.map((node) => [
      node.id,
      storedPosition(node) ?? fallback.get(node.id) ?? { x: GRID.left, y: GRID.top },
    ]),
  );
}

/**
 * Whether an operator sends records on: not a sink (the catalog gives sinks no
 * output), and of a kind the catalog knows, else nothing says it does.
 */
export function sendsRecords(spec: OperatorSpec | null): boolean {
  return spec !== null && spec.category !== "sink";
}

/** Where a new operator goes, and the edge into it (null: it is not connected). */
export interface Placement {
  readonly position: CanvasPosition;
  readonly inbound: InboundEdgeInput | null;
}

/**
 * Where an operator of kind `spec` added from the palette goes, and the edge that
 * feeds it. With one operator selected: to its right, the way the canvas runs (and
 * auto-layout lays out), at its height or the first free spot below, fed by it when
 * it sends records on and the new operator takes them (no source; a two-input one on
 * its first input), with the edge a drag would make. Otherwise centred on
 * `viewCentre`, or the first free spot below, and not connected.
 */
export function placeFromPalette(
  document: StreamGraphDocument,
  spec: OperatorSpec,
  options: {
    readonly selected: ReadonlySet<number>;
    readonly specs: ReadonlyMap<string, OperatorSpec>;
    readonly viewCentre: CanvasPosition;
  },
): Placement {
  const positions = drawnPositions(document);
  const taken = [...positions.values()];
  const [only] = options.selected;
  const anchor =
    options.selected.size === 1 && only !== undefined
      ? document.nodes.find((node) => node.id === only)
      : undefined;
  const at = anchor === undefined ? undefined : positions.get(anchor.id);
  if (anchor === undefined || at === undefined) {
    const { x, y } = options.viewCentre;
    return {
      position: freeSpotBelow({ x: x - NODE_WIDTH / 2, y: y - NODE_HEIGHT / 2 }, taken),
      inbound: null,
    };
  }
  const position = freeSpotBelow({ x: at.x + NODE_WIDTH + LAYER_GAP, y: at.y }, taken);
  const feeds = sendsRecords(options.specs.get(anchor.operator ?? "") ?? null) && spec.inputs > 0;
  return {
    position,
    inbound: feeds ? newInboundEdge(anchor.id, spec.inputs === 2 ? 1 : 0, spec) : null,
  };
}

/** Whether `view` (the visible part of the canvas) shows the whole of an operator at `position`. */
export function showsWhole(view: Box, position: CanvasPosition): boolean {
  return (
    position.x >= view.x &&
    position.y >= view.y &&
    position.x + NODE_WIDTH <= view.x + view.width &&
    position.y + NODE_HEIGHT <= view.y + view.height
  );
}
