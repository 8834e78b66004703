/**
 * The JobGraph as its view draws it, from the live plan and the document:
 * every JobVertex with its operators in chain order (head first) and their
 * OperatorIDs, every JobEdge with both ends named, and a layered layout
 * (one column per longest path from a source) so the view reads left to right.
 *
 * Orders: vertices follow the plan's topological order (`summary.vertexOrder`);
 * a column keeps that order except that a vertex moves towards the mean row of
 * its producers (one barycentre sweep), which untangles most fan-ins.
 *
 * Also the view's geometry once its cards are measured: arrows between boxes, and
 * which columns a sideways scroll leaves out of view and where to scroll for them.
 */

import type {
  DistributionPattern,
  LivePlan,
  PlanVertex,
  ResultPartitionType,
} from "../graph/liveplan";
import type { Partitioner, StreamGraphDocument } from "../graph/streamgraph";

export interface JobGraphOperator {
  readonly nodeId: number;
  readonly name: string;
  readonly kind: string | null;
  /** The OperatorID (null when the plan has no entry for the node). */
  readonly operatorId: string | null;
  /** The hash of the user's uid or uidHash, when set. */
  readonly userDefinedId: string | null;
  /** A source chained into a multi-input head. */
  readonly chainedSource: boolean;
}

export interface JobGraphEdge {
  /** Unique: the index of the stream edge the JobEdge comes from. */
  readonly key: string;
  readonly streamEdge: number;
  readonly producer: string;
  readonly consumer: string;
  readonly producerName: string;
  readonly consumerName: string;
  /** The IntermediateDataSetID. */
  readonly dataSet: string;
  readonly shipStrategy: Partitioner;
  readonly distributionPattern: DistributionPattern;
  readonly resultPartitionType: ResultPartitionType;
}

export interface JobGraphVertex {
  /** The JobVertexID. */
  readonly id: string;
  readonly name: string;
  readonly head: number;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly slotSharingGroup: number | null;
  readonly slotSharingGroupName: string | null;
  /** Chained sources first, then the chain from its head. */
  readonly operators: readonly JobGraphOperator[];
  /** Every node id in the vertex (what selecting the vertex selects). */
  readonly nodeIds: readonly number[];
  readonly inputs: readonly JobGraphEdge[];
  readonly outputs: readonly JobGraphEdge[];
  readonly layer: number;
}

export interface JobGraphModel {
  /** In topological order. */
  readonly vertices: readonly JobGraphVertex[];
  /** Vertex ids per column, top to bottom. */
  readonly columns: readonly (readonly string[])[];
  readonly edges: readonly JobGraphEdge[];
}

/** Vertex ids in the plan's topological order; any the order misses go last, sorted. */
function vertexOrder(plan: LivePlan): string[] {
  const known = Object.keys(plan.vertices);
  const listed = (plan.summary?.vertexOrder ?? []).filter((id) => Object.hasOwn(plan.vertices, id));
  const seen = new Set(listed);
  return [...listed, ...known.filter((id) => !seen.has(id)).sort()];
}

function operatorsOf(
  vertex: PlanVertex,
  plan: LivePlan,
  names: ReadonlyMap<number, { name: string; kind: string | null }>,
): JobGraphOperator[] {
  // `nodes` is the chain's post-order (head last): reversed, a topological order from the head.
  const entries: [number, boolean][] = [
    ...vertex.chainedSources.map((id): [number, boolean] => [id, true]),
    ...[...vertex.nodes].reverse().map((id): [number, boolean] => [id, false]),
  ];
  return entries.map(([nodeId, chainedSource]) => {
    const facts = Object.hasOwn(plan.nodes, String(nodeId))
      ? plan.nodes[String(nodeId)]
      : undefined;
    const named = names.get(nodeId);
    return {
      nodeId,
      name: named?.name ?? `node ${nodeId}`,
      kind: named?.kind ?? null,
      operatorId: facts?.operatorId ?? null,
      userDefinedId: facts?.userDefinedId ?? null,
      chainedSource,
    };
  });
}

/** Longest path from a source, over the vertices in topological order. */
function layersOf(order: readonly string[], plan: LivePlan): Map<string, number> {
  const layer = new Map<string, number>();
  for (const id of order) {
    const vertex = plan.vertices[id];
    let deepest = -1;
    for (const input of vertex?.inputs ?? []) {
      deepest = Math.max(deepest, layer.get(input.producer) ?? -1);
    }
    layer.set(id, deepest + 1);
  }
  return layer;
}

function columnsOf(
  order: readonly string[],
  layer: ReadonlyMap<string, number>,
  producers: ReadonlyMap<string, readonly string[]>,
): string[][] {
  const columns: string[][] = [];
  for (const id of order) {
    const index = layer.get(id) ?? 0;
    while (columns.length <= index) {
      columns.push([]);
    }
    columns[index]?.push(id);
  }
  const row = new Map<string, number>();
  return columns.map((column) => {
    const rank = (id: string, fallback: number): number => {
      const rows = (producers.get(id) ?? []).flatMap((p) => {
        const r = row.get(p);
        return r === undefined ? [] : [r];
      });
      return rows.length === 0 ? fallback : rows.reduce((a, b) => a + b, 0) / rows.length;
    };
    const sorted = column
      .map((id, position) => ({ id, position, rank: rank(id, position) }))
      .sort((a, b) => a.rank - b.rank || a.position - b.position)
      .map((item) => item.id);
    sorted.forEach((id, position) => row.set(id, position));
    return sorted;
  });
}

export function jobGraphModel(plan: LivePlan, document: StreamGraphDocument): JobGraphModel {
  const names = new Map(
    document.nodes.map((node) => [node.id, { name: node.name, kind: node.operator ?? null }]),
  );
  const order = vertexOrder(plan);
  const nameOf = (id: string): string => plan.vertices[id]?.name ?? id;
  const edges: JobGraphEdge[] = [];
  const inputsOf = new Map<string, JobGraphEdge[]>();
  const outputsOf = new Map<string, JobGraphEdge[]>();
  const producers = new Map<string, string[]>();
  for (const id of order) {
    for (const input of plan.vertices[id]?.inputs ?? []) {
      const edge: JobGraphEdge = {
        key: `je-${input.edge}`,
        streamEdge: input.edge,
        producer: input.producer,
        consumer: id,
        producerName: nameOf(input.producer),
        consumerName: nameOf(id),
        dataSet: input.dataSet,
        shipStrategy: input.shipStrategy,
        distributionPattern: input.distributionPattern,
        resultPartitionType: input.resultPartitionType,
      };
      edges.push(edge);
      inputsOf.set(id, [...(inputsOf.get(id) ?? []), edge]);
      outputsOf.set(input.producer, [...(outputsOf.get(input.producer) ?? []), edge]);
      producers.set(id, [...(producers.get(id) ?? []), input.producer]);
    }
  }
  const layer = layersOf(order, plan);
  const vertices = order.flatMap((id): JobGraphVertex[] => {
    const vertex = plan.vertices[id];
    if (vertex === undefined) {
      return [];
    }
    return [
      {
        id,
        name: vertex.name,
        head: vertex.head,
        parallelism: vertex.parallelism,
        maxParallelism: vertex.maxParallelism,
        slotSharingGroup: vertex.slotSharingGroup,
        slotSharingGroupName: vertex.slotSharingGroupName,
        operators: operatorsOf(vertex, plan, names),
        nodeIds: [...vertex.chainedSources, ...vertex.nodes],
        inputs: inputsOf.get(id) ?? [],
        outputs: outputsOf.get(id) ?? [],
        layer: layer.get(id) ?? 0,
      },
    ];
  });
  return { vertices, columns: columnsOf(order, layer, producers), edges };
}

export interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/**
 * An SVG path from the right side of `from` to the left side of `to`: a cubic
 * curve between the middles of the two sides, or around the right when the
 * consumer is not further right (which a layered layout avoids).
 */
export function arrowPath(from: Box, to: Box): string {
  const x1 = from.left + from.width;
  const y1 = from.top + from.height / 2;
  const x2 = to.left;
  const y2 = to.top + to.height / 2;
  const bend = Math.max(40, Math.abs(x2 - x1) / 2);
  return `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`;
}

/** Where a column lies across the graph, in the graph's pixels. */
export interface Span {
  readonly left: number;
  readonly right: number;
}

/** Each column's span from its cards' boxes; a column with none measured yet is left out. */
export function columnSpans(
  columns: readonly (readonly string[])[],
  boxes: ReadonlyMap<string, Box>,
): Span[] {
  return columns.flatMap((column) => {
    const measured = column.flatMap((id) => {
      const box = boxes.get(id);
      return box === undefined ? [] : [box];
    });
    if (measured.length === 0) {
      return [];
    }
    return [
      {
        left: Math.min(...measured.map((box) => box.left)),
        right: Math.max(...measured.map((box) => box.left + box.width)),
      },
    ];
  });
}

/** How many columns are out of view, wholly or in part, on either side. */
export interface ColumnOverflow {
  readonly before: number;
  readonly after: number;
}

/** A column cut by less than this (rounding of fractional pixels) counts as in view. */
const SLACK = 1;

/** The columns out of view of a scroller showing `width` pixels from `scrollLeft`. */
export function columnOverflow(
  spans: readonly Span[],
  scrollLeft: number,
  width: number,
): ColumnOverflow {
  const end = scrollLeft + width;
  return {
    before: spans.filter((span) => span.left < scrollLeft - SLACK).length,
    after: spans.filter((span) => span.right > end + SLACK).length,
  };
}

/**
 * Where to scroll to show the next column out of view on one side in full, `margin`
 * pixels from the edge. A column wider than the view shows from its left, or, when
 * that is already in view, up to its right. Null when nothing is out of view there.
 */
export function columnScrollTarget(
  spans: readonly Span[],
  scrollLeft: number,
  width: number,
  side: keyof ColumnOverflow,
  margin: number,
): number | null {
  if (side === "after") {
    const next = spans.find((span) => span.right > scrollLeft + width + SLACK);
    if (next === undefined) {
      return null;
    }
    const showRight = next.right + margin - width;
    const showLeft = Math.max(0, next.left - margin);
    return showLeft > scrollLeft + SLACK ? Math.min(showRight, showLeft) : showRight;
  }
  const hidden = spans.filter((span) => span.left < scrollLeft - SLACK);
  const previous = hidden[hidden.length - 1];
  return previous === undefined ? null : Math.max(0, previous.left - margin);
}
