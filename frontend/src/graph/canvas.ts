/**
 * A document as the canvas draws it, and canvas changes back as edits.
 *
 * `toCanvas` gives plain nodes and edges in the shape React Flow takes (string
 * ids, `position`, `data`), with the plan's facts about each element when a plan
 * is given. A node is drawn at its `ui.x`, `ui.y`; a node without both is placed
 * on a grid, one column per layer (the longest path from a source), one row per
 * node of that layer in document order, so the same document always looks the
 * same. Positions go back to the document only as `move_node` edits, which
 * touch nothing but `ui.x` and `ui.y`.
 */

import { edgeKeys, type EdgeKey, type MoveNodeEdit } from "./edits";
import { getOwn, isFiniteNumber, isJsonObject } from "./json";
import { planEdge, planNode, type LivePlan } from "./liveplan";
import {
  documentEdges,
  edgePartitioners,
  type Diagnostic,
  type Partitioner,
  type StreamEdge,
  type StreamGraphDocument,
  type StreamNode,
} from "./streamgraph";

export interface CanvasPosition {
  readonly x: number;
  readonly y: number;
}

export interface CanvasNodeData {
  readonly node: StreamNode;
  /** True when the node has no `ui.x`, `ui.y` and was placed on the grid. */
  readonly placed: boolean;
  /** From the plan (null without one, or when the plan has no entry for the node). */
  readonly operatorId: string | null;
  readonly userDefinedId: string | null;
  /** The JobVertexID of the chain the node runs in. */
  readonly vertex: string | null;
  readonly [key: string]: unknown;
}

export interface CanvasNode {
  /** The node id as a string. */
  readonly id: string;
  readonly position: CanvasPosition;
  readonly data: CanvasNodeData;
}

export interface CanvasEdgeData {
  readonly edge: StreamEdge;
  readonly key: EdgeKey;
  /** Position in the document's edge list (how the plan and diagnostics name edges). */
  readonly index: number;
  /** The partitioner the edge resolves to (`edgePartitioners`). */
  readonly partitioner: Partitioner;
  /** False when the document chose none and Flink's default applies. */
  readonly partitionerChosen: boolean;
  /** From the plan: whether the edge is chained (null without a plan entry). */
  readonly chained: boolean | null;
  /** From the plan: why it does not chain. */
  readonly reasons: readonly string[];
  readonly [key: string]: unknown;
}

export interface CanvasEdge {
  /** The edge key joined by dashes, e.g. `1-2-0-0`. */
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly data: CanvasEdgeData;
}

/** Fresh arrays on every call, so a canvas library may take them as its own. */
export interface Canvas {
  readonly nodes: CanvasNode[];
  readonly edges: CanvasEdge[];
}

/** The grid for nodes without a position (the fixtures' own spacing). */
export const GRID = { left: 40, top: 40, column: 200, row: 120 } as const;

export function canvasNodeId(nodeId: number): string {
  return String(nodeId);
}

/** The node id of a canvas node id, or null if it is not one. */
export function nodeIdOf(canvasId: string): number | null {
  return /^[1-9]\d*$/.test(canvasId) ? Number(canvasId) : null;
}

export function canvasEdgeId(key: EdgeKey): string {
  return key.join("-");
}

/** The edge key of a canvas edge id, or null if it is not one. */
export function edgeKeyOf(canvasId: string): EdgeKey | null {
  const match = /^(-?\d+)-(-?\d+)-(-?\d+)-(\d+)$/.exec(canvasId);
  if (match === null) {
    return null;
  }
  const [, source, target, typeNumber, k] = match;
  return [Number(source), Number(target), Number(typeNumber), Number(k)];
}

/** The node's stored position, if it has both `ui.x` and `ui.y` as numbers. */
export function storedPosition(node: StreamNode): CanvasPosition | null {
  const ui = getOwn(node, "ui");
  if (!isJsonObject(ui)) {
    return null;
  }
  const x = getOwn(ui, "x");
  const y = getOwn(ui, "y");
  return isFiniteNumber(x) && isFiniteNumber(y) ? { x, y } : null;
}

/**
 * The layer of every node: 0 for sources, else one more than its deepest input.
 * Nodes are taken in document order, edges in creation order; nodes on a cycle get
 * one more than the inputs already placed.
 */
function layers(document: StreamGraphDocument): Map<number, number> {
  const ids = document.nodes.map((node) => node.id);
  const known = new Set(ids);
  const incoming = new Map<number, number>(ids.map((id) => [id, 0]));
  const outgoing = new Map<number, number[]>(ids.map((id) => [id, []]));
  const inputs = new Map<number, number[]>(ids.map((id) => [id, []]));
  for (const edge of documentEdges(document)) {
    if (known.has(edge.source) && known.has(edge.target)) {
      outgoing.get(edge.source)?.push(edge.target);
      inputs.get(edge.target)?.push(edge.source);
      incoming.set(edge.target, (incoming.get(edge.target) ?? 0) + 1);
    }
  }
  const layer = new Map<number, number>();
  const ready = ids.filter((id) => incoming.get(id) === 0);
  const place = (id: number): void => {
    const deepest = Math.max(-1, ...(inputs.get(id) ?? []).map((input) => layer.get(input) ?? -1));
    layer.set(id, deepest + 1);
  };
  // `ready` grows while it is walked: a node is ready once all its inputs are placed.
  for (const id of ready) {
    place(id);
    for (const target of outgoing.get(id) ?? []) {
      const left = (incoming.get(target) ?? 0) - 1;
      incoming.set(target, left);
      if (left === 0) {
        ready.push(target);
      }
    }
  }
  for (const id of ids) {
    if (!layer.has(id)) {
      place(id);
    }
  }
  return layer;
}

/** Grid positions for the nodes that have no stored position. */
export function fallbackPositions(document: StreamGraphDocument): Map<number, CanvasPosition> {
  const positions = new Map<number, CanvasPosition>();
  const unplaced = document.nodes.filter((node) => storedPosition(node) === null);
  if (unplaced.length === 0) {
    return positions;
  }
  const layerOf = layers(document);
  const rows = new Map<number, number>();
  for (const node of unplaced) {
    const column = layerOf.get(node.id) ?? 0;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    positions.set(node.id, {
      x: GRID.left + column * GRID.column,
      y: GRID.top + row * GRID.row,
    });
  }
  return positions;
}

/** The canvas nodes and edges of `document`, with the facts of `plan` when given. */
export function toCanvas(document: StreamGraphDocument, plan?: LivePlan | null): Canvas {
  const fallback = fallbackPositions(document);
  const nodes = document.nodes.map((node): CanvasNode => {
    const stored = storedPosition(node);
    const facts = plan ? planNode(plan, node.id) : undefined;
    return {
      id: canvasNodeId(node.id),
      position: stored ?? fallback.get(node.id) ?? { x: GRID.left, y: GRID.top },
      data: {
        node,
        placed: stored === null,
        operatorId: facts?.operatorId ?? null,
        userDefinedId: facts?.userDefinedId ?? null,
        vertex: facts?.vertex ?? null,
      },
    };
  });
  const keys = edgeKeys(document);
  const partitioners = edgePartitioners(document);
  const edges = documentEdges(document).map((edge, index): CanvasEdge => {
    const key = keys[index] ?? [edge.source, edge.target, 0, 0];
    const facts = plan ? planEdge(plan, index) : undefined;
    const resolved = partitioners[index] ?? { partitioner: "FORWARD", chosen: false };
    return {
      id: canvasEdgeId(key),
      source: canvasNodeId(edge.source),
      target: canvasNodeId(edge.target),
      data: {
        edge,
        key,
        index,
        partitioner: resolved.partitioner,
        partitionerChosen: resolved.chosen,
        chained: facts?.chained ?? null,
        reasons: facts?.reasons ?? [],
      },
    };
  });
  return { nodes, edges };
}

/**
 * The canvas elements a problem is about, to select them from it: all its nodes and
 * edges when it names several (a cycle's), else the one of its location.
 */
export function diagnosticElements(
  document: StreamGraphDocument,
  diagnostic: Pick<Diagnostic, "node" | "edge" | "nodes" | "edges">,
): { readonly nodes: number[]; readonly edges: string[] } {
  const nodes = diagnostic.nodes ?? (diagnostic.node === null ? [] : [diagnostic.node]);
  const indexes = diagnostic.edges ?? (diagnostic.edge === null ? [] : [diagnostic.edge]);
  const keys = indexes.length === 0 ? [] : edgeKeys(document);
  const edges: string[] = [];
  for (const index of indexes) {
    const key = keys[index];
    if (key !== undefined) {
      edges.push(canvasEdgeId(key));
    }
  }
  return { nodes: [...nodes], edges };
}

/** The edit that puts a node at a canvas position. */
export function moveToEdit(nodeId: number, x: number, y: number): MoveNodeEdit {
  return { kind: "move_node", nodeId, x, y };
}

/**
 * The edits that store the canvas positions of `nodes` in `document`: one
 * `move_node` per node whose position is not already its `ui.x`, `ui.y`.
 */
export function positionEdits(
  document: StreamGraphDocument,
  nodes: readonly Pick<CanvasNode, "id" | "position">[],
): MoveNodeEdit[] {
  const byId = new Map(document.nodes.map((node) => [canvasNodeId(node.id), node]));
  const edits: MoveNodeEdit[] = [];
  for (const { id, position } of nodes) {
    const node = byId.get(id);
    if (node === undefined) {
      continue;
    }
    const stored = storedPosition(node);
    if (stored?.x !== position.x || stored.y !== position.y) {
      edits.push(moveToEdit(node.id, position.x, position.y));
    }
  }
  return edits;
}
