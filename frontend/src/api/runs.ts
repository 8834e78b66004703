/**
 * Runs of saved versions on Spark (docs/RUNTIME.md, "Runs"): the shapes of
 * `backend/runs/serializers.py` and `backend/runs/events.py`, and one typed
 * function per REST endpoint.
 *
 * Subtask and vertex times are seconds since the epoch; a run's own times are
 * ISO strings.
 */

import type { JsonObject } from "../graph/json";
import type * as Wire from "./generated/wire";
import { EXECUTION_STATE_VALUES, RUN_STATUS_VALUES } from "./generated/wire";
import { request } from "./http";
import type { ServerDiagnostic } from "./read";

/** Flink's ExecutionState names, in the order the monitor ranks them. */
export const EXECUTION_STATES = EXECUTION_STATE_VALUES;
export type ExecutionState = Wire.ExecutionState;

export const RUN_STATUSES = RUN_STATUS_VALUES;
export type RunStatus = Wire.RunStatus;

/** One attempt of one subtask; a Spark task retry is a new attempt. */
export type Attempt = Wire.Attempt;

/** A subtask (ExecutionVertex): its current attempt's figures, and every attempt
 * (oldest first); `keyGroups` is the inclusive key-group range `[start, end]`. */
export type Subtask = Wire.Subtask;

/** A JobVertex: its subtasks' aggregate status (Flink's rules), counts and records. */
export type RunVertex = Wire.Vertex;

/** What one subtask of a sink received. */
export type SinkOutput = Wire.SinkOutput;

/** How a run executes beside Flink's plan: its stages and every StreamEdge's exchange
 * (planned by Flink, and as the executor moved it). */
export type RunExecution = Wire.RunExecution;
export type RunStage = Wire.RunStage;
export type RunExchange = Wire.RunExchange;
export type VertexEngine = Wire.VertexEngine;
export type OperatorRef = Wire.OperatorRef;

/** A run as lists show it. */
export type RunSummary = Wire.RunSummary;

/** `GET /api/runs/{id}/`, also the websocket snapshot's `run`: vertices in plan order,
 * subtasks per vertex with subtask 0 first. */
export type RunDetail = Wire.RunDetail;

/** The Spark application a run executes in, with its cluster's links. */
export type SparkApplication = Wire.SparkApplication;

/** A run's own fields with its outputs, without its vertices and subtasks. */
export type RunInfo = Omit<RunDetail, "seq" | "vertices" | "subtasks">;

type ChangingRunField = keyof Wire.RunFields;
/** The run fields an update may carry (every field of the server's `RunFields`: a record, so
 * one it gains and this lacks does not compile); a field left out is unchanged. */
const CHANGING: Readonly<Record<ChangingRunField, true>> = {
  status: true,
  canceledBy: true,
  error: true,
  startedAt: true,
  finishedAt: true,
  worker: true,
  sinks: true,
  details: true,
  eventsProblem: true,
  execution: true,
  spark: true,
};
export const CHANGING_RUN_FIELDS = Object.keys(CHANGING) as readonly ChangingRunField[];
/** The fields as the app holds them: a status or a list is never cleared. */
export type RunFields = Partial<Pick<RunInfo, ChangingRunField>>;

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
