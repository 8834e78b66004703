/**
 * The ExecutionGraph made readable at any parallelism: consecutive subtasks and
 * consecutive partition groups are shown as ranges, at most `MAX_ROWS` rows per
 * level, and a range opens into at most `MAX_ROWS` smaller ones. Nothing here
 * is ever O(producers × consumers): an edge is its O(producers + consumers)
 * partition groups, and a summary of a slice of them is one pass over it.
 */

import type {
  ExecutionEdgeSummary,
  ExecutionSummary,
  ExecutionVertexSummary,
  JobEdgeJson,
  JobGraphJson,
  PartitionGroup,
  Span,
} from "../api/resources";

/** Rows shown per level before a range has to be opened. */
export const MAX_ROWS = 16;

/** `first`–`last` as text: one number when they are equal. */
export function spanText(span: Span): string {
  return span[0] === span[1] ? String(span[0]) : `${span[0]}–${span[1]}`;
}

/** `min`–`max` of a count, e.g. "2–3" or "1". */
export function rangeText(min: number, max: number): string {
  return min === max ? String(min) : `${min}–${max}`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * Splits `[first, last]` into at most `maxRows` consecutive spans of one size
 * (a power of two, the last span shorter), or into single items when it has no
 * more than `maxRows` of them.
 */
export function chunks(span: Span, maxRows = MAX_ROWS): Span[] {
  const [first, last] = span;
  const count = last - first + 1;
  if (count <= 0) {
    return [];
  }
  let size = 1;
  while (Math.ceil(count / size) > maxRows) {
    size *= 2;
  }
  const result: Span[] = [];
  for (let start = first; start <= last; start += size) {
    result.push([start, Math.min(last, start + size - 1)]);
  }
  return result;
}

export interface SubtaskRange {
  readonly subtasks: Span;
  /** The key groups of all of them: consecutive subtasks hold consecutive key groups. */
  readonly keyGroups: Span;
  /** How many key groups one subtask of the range holds, smallest and largest. */
  readonly perSubtask: readonly [number, number];
}

/** What the subtasks `span` of `vertex` hold. */
export function subtaskRange(vertex: ExecutionVertexSummary, span: Span): SubtaskRange {
  let min = Infinity;
  let max = 0;
  for (let index = span[0]; index <= span[1]; index += 1) {
    const range = vertex.keyGroupRanges[index];
    const size = range === undefined ? 0 : range[1] - range[0] + 1;
    min = Math.min(min, size);
    max = Math.max(max, size);
  }
  const first = vertex.keyGroupRanges[span[0]];
  const last = vertex.keyGroupRanges[span[1]];
  return {
    subtasks: span,
    keyGroups: [first?.[0] ?? 0, last?.[1] ?? 0],
    perSubtask: [min === Infinity ? 0 : min, max],
  };
}

/** Flink's subtask name: `getTaskNameWithSubtaskIndex()`, counting from 1. */
export function subtaskName(vertex: { name: string; parallelism: number }, index: number): string {
  return `${vertex.name} (${index + 1}/${vertex.parallelism})`;
}

export interface WiringSummary {
  /** Producer partitions (one per producer subtask) the groups cover. */
  readonly partitions: Span;
  readonly consumers: Span;
  /** Consumer subtasks one partition feeds, smallest and largest. */
  readonly fanOut: readonly [number, number];
  /** Partitions one consumer subtask reads, smallest and largest. */
  readonly fanIn: readonly [number, number];
  /** Partition -> consumer connections (subpartitions), counted, never listed. */
  readonly connections: number;
}

function size(span: Span): number {
  return span[1] - span[0] + 1;
}

/** The groups `groups[span[0]..span[1]]` of an edge, as one summary. */
export function wiringSummary(groups: readonly PartitionGroup[], span?: Span): WiringSummary {
  const [from, to] = span ?? [0, groups.length - 1];
  let partitions: [number, number] = [Infinity, -Infinity];
  let consumers: [number, number] = [Infinity, -Infinity];
  let fanOut: [number, number] = [Infinity, 0];
  let fanIn: [number, number] = [Infinity, 0];
  let connections = 0;
  for (let index = from; index <= to; index += 1) {
    const group = groups[index];
    if (group === undefined) {
      continue;
    }
    const p = size(group.partitions);
    const c = size(group.consumers);
    partitions = [
      Math.min(partitions[0], group.partitions[0]),
      Math.max(partitions[1], group.partitions[1]),
    ];
    consumers = [
      Math.min(consumers[0], group.consumers[0]),
      Math.max(consumers[1], group.consumers[1]),
    ];
    fanOut = [Math.min(fanOut[0], c), Math.max(fanOut[1], c)];
    fanIn = [Math.min(fanIn[0], p), Math.max(fanIn[1], p)];
    connections += p * c;
  }
  if (connections === 0) {
    return { partitions: [0, 0], consumers: [0, 0], fanOut: [0, 0], fanIn: [0, 0], connections: 0 };
  }
  return { partitions, consumers, fanOut, fanIn, connections };
}

/** One line for a wiring summary, e.g. "partitions 0–3 → subtasks 0–7, each partition to 2". */
export function wiringText(
  summary: WiringSummary,
  pattern: ExecutionEdgeSummary["pattern"],
): string {
  const many = (span: Span, noun: string): string =>
    `${noun}${span[0] === span[1] ? "" : "s"} ${spanText(span)}`;
  const head = `${many(summary.partitions, "partition")} → ${many(summary.consumers, "subtask")}`;
  if (summary.connections === 1) {
    return head;
  }
  if (pattern === "ALL_TO_ALL") {
    return `${head}: every partition to every subtask (${summary.connections.toLocaleString("en")} connections)`;
  }
  const [outMin, outMax] = summary.fanOut;
  const [inMin, inMax] = summary.fanIn;
  if (outMax === 1 && inMax === 1) {
    return `${head}: partition i → subtask i`;
  }
  if (inMax === 1) {
    return `${head}: each partition feeds ${rangeText(outMin, outMax)} subtasks`;
  }
  if (outMax === 1) {
    return `${head}: each subtask reads ${rangeText(inMin, inMax)} partitions`;
  }
  return `${head}: ${rangeText(outMin, outMax)} subtasks per partition, ${rangeText(inMin, inMax)} partitions per subtask`;
}

/** The index of the group that consumer subtask `consumer` reads from (groups are sorted). */
export function groupOfConsumer(groups: readonly PartitionGroup[], consumer: number): number {
  let low = 0;
  let high = groups.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const group = groups[middle];
    if (group === undefined) {
      break;
    }
    if (consumer < group.consumers[0]) {
      high = middle - 1;
    } else if (consumer > group.consumers[1]) {
      low = middle + 1;
    } else {
      return middle;
    }
  }
  return -1;
}

/** The producer partitions the consumer subtasks `consumers` read over `edge`, as one span. */
export function partitionsReadBy(edge: ExecutionEdgeSummary, consumers: Span): Span | null {
  const first = groupOfConsumer(edge.groups, consumers[0]);
  const last = groupOfConsumer(edge.groups, consumers[1]);
  if (first < 0 || last < 0) {
    return null;
  }
  const summary = wiringSummary(edge.groups, [first, last]);
  return summary.partitions;
}

export interface VertexWiring {
  readonly inputs: readonly ExecutionEdgeSummary[];
  readonly outputs: readonly ExecutionEdgeSummary[];
}

/** The edges into and out of every vertex, by JobVertexID, in the summary's order. */
export function wiringByVertex(
  edges: readonly ExecutionEdgeSummary[],
): ReadonlyMap<string, VertexWiring> {
  const result = new Map<
    string,
    { inputs: ExecutionEdgeSummary[]; outputs: ExecutionEdgeSummary[] }
  >();
  const entry = (
    id: string,
  ): { inputs: ExecutionEdgeSummary[]; outputs: ExecutionEdgeSummary[] } => {
    let found = result.get(id);
    if (found === undefined) {
      found = { inputs: [], outputs: [] };
      result.set(id, found);
    }
    return found;
  };
  for (const edge of edges) {
    entry(edge.consumer).inputs.push(edge);
    entry(edge.producer).outputs.push(edge);
  }
  return result;
}

export interface ExecutionInput {
  readonly edge: ExecutionEdgeSummary;
  /** The JobEdge the wiring comes from (ship strategy, result partition type, data set). */
  readonly jobEdge: JobEdgeJson | null;
  readonly producer: ExecutionVertexSummary | null;
}

export interface ExecutionOutput {
  /** The IntermediateDataSetID: its partition `i` is produced by subtask `i`. */
  readonly dataSet: string;
  readonly resultPartitionType: string;
  readonly consumers: readonly ExecutionVertexSummary[];
}

export interface ExecutionVertexView {
  readonly vertex: ExecutionVertexSummary;
  readonly slotSharingGroupName: string | null;
  readonly inputs: readonly ExecutionInput[];
  readonly outputs: readonly ExecutionOutput[];
}

/**
 * Every vertex of the ExecutionGraph with its inputs and result partitions.
 * The summary's edges come in JobGraph order (per vertex, per input), so the
 * k-th edge is the k-th JobEdge of the JobGraph.
 */
export function executionVertices(
  jobGraph: JobGraphJson,
  execution: ExecutionSummary,
): ExecutionVertexView[] {
  const byId = new Map(execution.vertices.map((v) => [v.id, v]));
  const jobEdges = jobGraph.vertices.flatMap((v) =>
    v.inputs.map((input) => ({ consumer: v.id, input })),
  );
  const inputsOf = new Map<string, ExecutionInput[]>();
  execution.edges.forEach((edge, index) => {
    const candidate = jobEdges[index];
    const matches =
      candidate?.consumer === edge.consumer && candidate.input.producer === edge.producer;
    const input: ExecutionInput = {
      edge,
      jobEdge: matches ? candidate.input : null,
      producer: byId.get(edge.producer) ?? null,
    };
    inputsOf.set(edge.consumer, [...(inputsOf.get(edge.consumer) ?? []), input]);
  });
  const jobVertices = new Map(jobGraph.vertices.map((v) => [v.id, v]));
  return execution.vertices.map((vertex) => {
    const jobVertex = jobVertices.get(vertex.id);
    return {
      vertex,
      slotSharingGroupName: jobVertex?.slotSharingGroupName ?? null,
      inputs: inputsOf.get(vertex.id) ?? [],
      outputs: (jobVertex?.outputs ?? []).map((output) => ({
        dataSet: output.id,
        resultPartitionType: output.resultPartitionType,
        consumers: output.consumers.flatMap((id) => {
          const consumer = byId.get(id);
          return consumer === undefined ? [] : [consumer];
        }),
      })),
    };
  });
}
