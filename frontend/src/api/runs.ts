/**
 * Runs of saved versions on Spark (docs/RUNTIME.md, "Runs"): the shapes of
 * `backend/runs/serializers.py` and `backend/runs/events.py`, and one typed
 * function per REST endpoint.
 *
 * Subtask and vertex times are seconds since the epoch; a run's own times are
 * ISO strings.
 */

import type { JsonObject } from "../graph/json";
import { request } from "./http";
import type { ServerDiagnostic, UserRef } from "./read";

/** Flink's ExecutionState names, in the order the monitor ranks them. */
export const EXECUTION_STATES = [
  "CREATED",
  "SCHEDULED",
  "DEPLOYING",
  "INITIALIZING",
  "RUNNING",
  "FINISHED",
  "CANCELING",
  "CANCELED",
  "FAILED",
] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];

export const RUN_STATUSES = [
  "QUEUED",
  "CREATED",
  "RUNNING",
  "CANCELING",
  "FINISHED",
  "FAILED",
  "CANCELED",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** One attempt of one subtask; a Spark task retry is a new attempt. */
export interface Attempt {
  /** 0-based. */
  readonly attempt: number;
  readonly state: ExecutionState;
  readonly recordsIn: number;
  readonly recordsOut: number;
  readonly startTime: number | null;
  readonly endTime: number | null;
  /** Why the attempt failed. */
  readonly error: string | null;
  /** The StreamNode id of the operator `error` is about, if it names one. */
  readonly failedNode: number | null;
}

/** A subtask (ExecutionVertex): its current attempt's figures, and every attempt. */
export interface Subtask extends Attempt {
  /** The JobVertexID. */
  readonly vertex: string;
  /** 0-based. */
  readonly subtask: number;
  /** Flink's `Name (i/p)`. */
  readonly name: string;
  /** Inclusive key-group range `[start, end]`. */
  readonly keyGroups: readonly [number, number];
  /** Oldest first. */
  readonly attempts: readonly Attempt[];
}

/** A JobVertex: its subtasks' aggregate status (Flink's rules), counts and records. */
export interface RunVertex {
  /** The JobVertexID. */
  readonly id: string;
  readonly name: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly status: ExecutionState;
  readonly statusCounts: Readonly<Record<ExecutionState, number>>;
  readonly recordsIn: number;
  readonly recordsOut: number;
  readonly startTime: number | null;
  readonly endTime: number | null;
}

/** What one subtask of a sink received. */
export interface SinkOutput {
  /** The sink's node id. */
  readonly node: number;
  readonly vertex: string;
  readonly subtask: number;
  readonly records: number;
  /** The first records, as text. */
  readonly preview: readonly string[];
  /** More records were written than previewed. */
  readonly truncated: boolean;
  /** Files written, relative to the server's data folder. */
  readonly files: readonly string[];
}

/** A run as lists show it (`RunSerializer`). */
export interface RunSummary {
  readonly id: number;
  readonly pipeline: number;
  /** The version number. */
  readonly version: number;
  readonly status: RunStatus;
  /** The cluster it runs on, by name (the server's `runtime.clusters`). */
  readonly cluster: string;
  readonly parameters: JsonObject;
  readonly startedBy: UserRef | null;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly heartbeatAt: string | null;
  readonly worker: string | null;
  readonly error: string | null;
}

/** A run's own fields with its outputs, without its vertices and subtasks. */
export interface RunInfo extends RunSummary {
  readonly sinks: readonly SinkOutput[];
  /** Facts from the executor (`applicationId`, `executor`, ...). */
  readonly details: JsonObject;
}

/** `GET /api/runs/{id}/`, also the websocket snapshot's `run`. */
export interface RunDetail extends RunInfo {
  /** The last journal entry this state includes. */
  readonly seq: number;
  /** In plan order. */
  readonly vertices: readonly RunVertex[];
  /** In plan order: per vertex, subtask 0 first. */
  readonly subtasks: readonly Subtask[];
}

/** The run fields an update may carry; a field left out is unchanged. */
export const CHANGING_RUN_FIELDS = [
  "status",
  "error",
  "startedAt",
  "finishedAt",
  "worker",
  "sinks",
  "details",
] as const;
export type RunFields = Partial<Pick<RunInfo, (typeof CHANGING_RUN_FIELDS)[number]>>;

export const ACTIVE_STATUSES: readonly RunStatus[] = ["QUEUED", "CREATED", "RUNNING", "CANCELING"];

/** True while the run may still change. */
export function isActive(status: RunStatus): boolean {
  return ACTIVE_STATUSES.includes(status);
}

/** A compiler or runnability problem; run problems say `"stage": "run"`. */
export type RunDiagnostic = ServerDiagnostic;

/** `GET /api/clusters/`: where runs may execute, by name, with the limits of a run there. */
export interface Cluster {
  readonly name: string;
  /** Runs use it unless an owner chooses another. */
  readonly default: boolean;
  /** Spark runs inside the server's worker. */
  readonly local: boolean;
  readonly maxParallelism: number;
  readonly maxSubtasks: number;
}

export const DEFAULT_CLUSTER = "default";

export function listClusters(signal?: AbortSignal): Promise<Cluster[]> {
  return request("GET", "clusters/", signal === undefined ? {} : { signal });
}

export interface StartRunOptions {
  readonly version: number;
  /** One of the server's clusters by name (only owners may choose another than the default). */
  readonly cluster?: string;
  /** `{"params": {"<node id>": {"<param>": value}}}`. */
  readonly parameters?: JsonObject;
}

export function listRuns(pipeline: number, signal?: AbortSignal): Promise<RunSummary[]> {
  return request("GET", `pipelines/${pipeline}/runs/`, signal === undefined ? {} : { signal });
}

/** Queue a run (editors); a version that cannot run is an `ApiError` `not-runnable`. */
export function startRun(pipeline: number, options: StartRunOptions): Promise<RunDetail> {
  return request("POST", `pipelines/${pipeline}/runs/`, { body: options });
}

export function getRun(id: number, signal?: AbortSignal): Promise<RunDetail> {
  return request("GET", `runs/${id}/`, signal === undefined ? {} : { signal });
}

/** Cancel a run (editors); one that has ended is an `ApiError` `run-ended` (409). */
export function cancelRun(id: number): Promise<RunDetail> {
  return request("POST", `runs/${id}/cancel/`);
}
