/**
 * The run canvas's geometry: the version's operators where the document puts
 * them, and around each JobVertex's operators a box with room below them for
 * the vertex's live figures (state counts, progress bar, records).
 *
 * Those boxes are taller than the gap the editor leaves between rows, so the
 * layout is stretched: vertically first, and in both directions if that is not
 * enough, by the smallest factor (searched by halving) with which no two boxes
 * overlap. Stretching keeps the picture the pipeline's authors drew, only
 * looser. Which vertex holds which node comes from the compiled plan.
 */

import { boxAroundNodes, type Box } from "../canvas/geometry";
import { targetHandleOf } from "../canvas/handles";
import { toCanvas, type CanvasPosition } from "../graph/canvas";
import type { StreamGraphDocument, StreamNode } from "../graph/streamgraph";
import type { Subtask } from "../api/runs";

/** The vertex's name line above its operators. */
export const BOX_HEADER = 24;
/** The vertex's figures below its operators. */
export const BOX_FOOTER = 74;
const VERTEX_BOX_MARGINS = { padding: 10, header: BOX_HEADER, footer: BOX_FOOTER } as const;
/** The least space between two boxes. */
const GAP = 16;
const MAX_STRETCH = 4;
/** Above this many vertices, boxes are not checked pairwise (the cost grows with the square). */
const MAX_CHECKED_VERTICES = 600;

export interface VertexNodes {
  readonly id: string;
  /** Node ids in the chain. */
  readonly nodes: readonly number[];
}

export interface RunOperator {
  /** The canvas id: the node id as a string. */
  readonly id: string;
  readonly node: StreamNode;
  readonly position: CanvasPosition;
  /** The JobVertexID of its chain; null when the plan does not place it. */
  readonly vertex: string | null;
  /** A two-input operator (connect, co-map...): its inputs arrive on two handles. */
  readonly twoInputs: boolean;
}

export interface VertexBox extends Box {
  readonly vertex: string;
}

export interface RunEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** Both ends in one JobVertex: a chained edge, no network in between. */
  readonly chained: boolean;
  readonly partitioner: string;
  /** The target's handle for the edge's input (`in`, or `in1` / `in2` of a two-input one). */
  readonly targetHandle: string;
}

export interface RunLayout {
  readonly operators: readonly RunOperator[];
  readonly boxes: readonly VertexBox[];
  readonly edges: readonly RunEdge[];
  /** The factors the stored positions were stretched by. */
  readonly stretch: { readonly x: number; readonly y: number };
}

/** The box of a vertex around its operators' positions, with its header and footer. */
export function boxAround(positions: readonly CanvasPosition[]): Box | null {
  return boxAroundNodes(positions, VERTEX_BOX_MARGINS);
}

export function overlap(a: Box, b: Box, gap = GAP): boolean {
  return (
    a.x < b.x + b.width + gap &&
    b.x < a.x + a.width + gap &&
    a.y < b.y + b.height + gap &&
    b.y < a.y + a.height + gap
  );
}

function anyOverlap(boxes: readonly Box[]): boolean {
  for (let i = 0; i < boxes.length; i += 1) {
    for (let j = i + 1; j < boxes.length; j += 1) {
      const a = boxes[i];
      const b = boxes[j];
      if (a !== undefined && b !== undefined && overlap(a, b)) {
        return true;
      }
    }
  }
  return false;
}

type Groups = readonly (readonly CanvasPosition[])[];

function stretched(groups: Groups, origin: CanvasPosition, sx: number, sy: number): Box[] {
  return groups
    .map((group) =>
      boxAround(
        group.map((p) => ({
          x: origin.x + (p.x - origin.x) * sx,
          y: origin.y + (p.y - origin.y) * sy,
        })),
      ),
    )
    .filter((box): box is Box => box !== null);
}

/** The smallest factor in [1, MAX_STRETCH] for which `fits` holds (MAX_STRETCH if none). */
function smallest(fits: (factor: number) => boolean): number {
  if (fits(1)) {
    return 1;
  }
  if (!fits(MAX_STRETCH)) {
    return MAX_STRETCH;
  }
  let low = 1;
  let high = MAX_STRETCH;
  while (high - low > 0.01) {
    const middle = (low + high) / 2;
    if (fits(middle)) {
      high = middle;
    } else {
      low = middle;
    }
  }
  return Math.ceil(high * 100) / 100;
}

/** How much to stretch positions so the vertex boxes of `groups` do not overlap. */
export function stretchFor(groups: Groups): { x: number; y: number } {
  if (groups.length < 2 || groups.length > MAX_CHECKED_VERTICES) {
    return { x: 1, y: groups.length > MAX_CHECKED_VERTICES ? 2 : 1 };
  }
  const all = groups.flat();
  const origin = {
    x: Math.min(...all.map((p) => p.x)),
    y: Math.min(...all.map((p) => p.y)),
  };
  const fits = (sx: number, sy: number): boolean => !anyOverlap(stretched(groups, origin, sx, sy));
  if (fits(1, MAX_STRETCH)) {
    return { x: 1, y: smallest((factor) => fits(1, factor)) };
  }
  const both = smallest((factor) => fits(factor, factor));
  return { x: both, y: both };
}

/**
 * The run canvas of `document`: operators (stretched from their stored or grid
 * positions), a box per vertex of `vertices` that holds nodes of the document,
 * and the stream edges, chained where both ends share a vertex.
 */
export function runLayout(
  document: StreamGraphDocument,
  vertices: readonly VertexNodes[],
): RunLayout {
  const canvas = toCanvas(document);
  const vertexOf = new Map<number, string>();
  for (const vertex of vertices) {
    for (const node of vertex.nodes) {
      vertexOf.set(node, vertex.id);
    }
  }
  const base = new Map(canvas.nodes.map((item) => [item.data.node.id, item.position]));
  const members = vertices
    .map((vertex) => ({
      vertex: vertex.id,
      positions: vertex.nodes
        .map((node) => base.get(node))
        .filter((p): p is CanvasPosition => p !== undefined),
    }))
    .filter((member) => member.positions.length > 0);
  // Operators outside every vertex still must not sit under a box.
  const loose = canvas.nodes
    .filter((item) => !vertexOf.has(item.data.node.id))
    .map((item) => [item.position]);
  const stretch = stretchFor([...members.map((member) => member.positions), ...loose]);
  const all = canvas.nodes.map((item) => item.position);
  const origin = {
    x: all.length === 0 ? 0 : Math.min(...all.map((p) => p.x)),
    y: all.length === 0 ? 0 : Math.min(...all.map((p) => p.y)),
  };
  const place = (p: CanvasPosition): CanvasPosition => ({
    x: Math.round(origin.x + (p.x - origin.x) * stretch.x),
    y: Math.round(origin.y + (p.y - origin.y) * stretch.y),
  });
  const twoInputs = new Set(
    canvas.edges
      .filter((item) => (item.data.edge.typeNumber ?? 0) > 0)
      .map((item) => item.data.edge.target),
  );
  const operators = canvas.nodes.map((item): RunOperator => ({
    id: item.id,
    node: item.data.node,
    position: place(item.position),
    vertex: vertexOf.get(item.data.node.id) ?? null,
    twoInputs: twoInputs.has(item.data.node.id),
  }));
  const boxes = members
    .map((member) => {
      const box = boxAround(member.positions.map(place));
      return box === null ? null : { vertex: member.vertex, ...box };
    })
    .filter((box): box is VertexBox => box !== null);
  const edges = canvas.edges.map((item): RunEdge => {
    const from = vertexOf.get(item.data.edge.source);
    return {
      id: item.id,
      source: item.source,
      target: item.target,
      chained: from !== undefined && from === vertexOf.get(item.data.edge.target),
      partitioner: item.data.partitioner,
      targetHandle: targetHandleOf(item.data.edge.typeNumber ?? 0),
    };
  });
  return { operators, boxes, edges, stretch };
}

export interface NodeFailure {
  readonly vertex: string;
  readonly subtask: number;
  readonly attempt: number;
  readonly error: string;
  /** True when the subtask's current attempt is this failed one (no successful retry yet). */
  readonly current: boolean;
}

/** Failed attempts by the node their error is about (errors about none are left out). */
export function failuresByNode(subtasks: readonly Subtask[]): Map<number, NodeFailure[]> {
  const result = new Map<number, NodeFailure[]>();
  for (const subtask of subtasks) {
    for (const attempt of subtask.attempts) {
      if (attempt.state !== "FAILED" || attempt.error === null) {
        continue;
      }
      const node = attempt.failedNode;
      if (node === null) {
        continue;
      }
      const list = result.get(node) ?? [];
      list.push({
        vertex: subtask.vertex,
        subtask: subtask.subtask,
        attempt: attempt.attempt,
        error: attempt.error,
        current: attempt.attempt === subtask.attempt,
      });
      result.set(node, list);
    }
  }
  return result;
}

/**
 * Whether a vertex's subtasks failed: "failed" if one's current attempt
 * failed, "recovered" if only earlier attempts did, else null.
 */
export function vertexTrouble(subtasks: readonly Subtask[]): "failed" | "recovered" | null {
  let recovered = false;
  for (const subtask of subtasks) {
    if (subtask.state === "FAILED") {
      return "failed";
    }
    if (subtask.attempts.some((attempt) => attempt.state === "FAILED")) {
      recovered = true;
    }
  }
  return recovered ? "recovered" : null;
}
