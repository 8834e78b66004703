/** Builders of runs, vertices, subtasks and run monitor messages for the frontend's tests. */

import type { RunSnapshotMessage, RunUpdateMessage } from "../api/runMessages";
import {
  EXECUTION_STATES,
  type Attempt,
  type ExecutionState,
  type RunDetail,
  type RunVertex,
  type Subtask,
} from "../api/runs";

export const MAP_VERTEX = "0a448493b4782967b150582570326227";
export const SINK_VERTEX = "e70bbd798b564e0a50e10e343f1ac56b";

export function stateCounts(
  counts: Partial<Record<ExecutionState, number>>,
): Record<ExecutionState, number> {
  return Object.fromEntries(EXECUTION_STATES.map((state) => [state, counts[state] ?? 0])) as Record<
    ExecutionState,
    number
  >;
}

export function vertex(overrides: Partial<RunVertex> = {}): RunVertex {
  const parallelism = overrides.parallelism ?? 2;
  return {
    id: MAP_VERTEX,
    name: "Map",
    parallelism,
    maxParallelism: 128,
    status: "CREATED",
    statusCounts: stateCounts({ CREATED: parallelism }),
    recordsIn: 0,
    recordsOut: 0,
    startTime: null,
    endTime: null,
    ...overrides,
  };
}

/** Key groups of subtask `index` of `parallelism`, as Flink assigns them. */
export function keyGroupsOf(
  index: number,
  parallelism: number,
  maxParallelism = 128,
): [number, number] {
  const start = Math.floor((index * maxParallelism + parallelism - 1) / parallelism);
  const end = Math.floor(((index + 1) * maxParallelism - 1) / parallelism);
  return [start, end];
}

export function attempt(overrides: Partial<Attempt> = {}): Attempt {
  return {
    attempt: 0,
    state: "CREATED",
    recordsIn: 0,
    recordsOut: 0,
    startTime: null,
    endTime: null,
    error: null,
    failedNode: null,
    ...overrides,
  };
}

export function subtask(overrides: Partial<Subtask> & { parallelism?: number } = {}): Subtask {
  const { parallelism = 2, ...rest } = overrides;
  const index = rest.subtask ?? 0;
  const current = attempt(rest);
  return {
    ...current,
    vertex: MAP_VERTEX,
    subtask: index,
    name: `Map (${index + 1}/${parallelism})`,
    keyGroups: keyGroupsOf(index, parallelism),
    attempts: [current],
    ...rest,
  };
}

export function runDetail(overrides: Partial<RunDetail> = {}): RunDetail {
  return {
    id: 1,
    pipeline: 7,
    version: 2,
    status: "QUEUED",
    cluster: "default",
    parameters: {},
    startedBy: { id: 2, username: "eddie" },
    createdAt: "2026-11-23T18:13:28.190965Z",
    startedAt: null,
    finishedAt: null,
    heartbeatAt: null,
    worker: null,
    error: null,
    canceledBy: null,
    sinks: [],
    details: {},
    eventsProblem: null,
    execution: null,
    spark: null,
    seq: 0,
    vertices: [vertex()],
    subtasks: [subtask({ subtask: 0 }), subtask({ subtask: 1 })],
    ...overrides,
  };
}

export function snapshot(run: RunDetail = runDetail()): RunSnapshotMessage {
  return { type: "snapshot", seq: run.seq, run };
}

export function update(
  seq: number,
  changes: Partial<Omit<RunUpdateMessage, "type" | "seq">> = {},
): RunUpdateMessage {
  return { type: "run_update", seq, run: {}, vertices: [], subtasks: [], ...changes };
}
