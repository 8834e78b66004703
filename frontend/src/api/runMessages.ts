/**
 * The run monitor websocket's messages (`ws/runs/<id>/`, docs/RUNTIME.md), typed
 * by the types generated from the models of `backend/runs/events.py`
 * (`./generated/wire`, `make wire`).
 *
 * A client gets a `snapshot` (the run as `GET /api/runs/<id>/` shows it, with
 * the journal sequence number `seq` it reflects), then one `run_update` per
 * journal entry, each with the next `seq`. `parseRunMessage` checks a received
 * text before anything uses it: a known `type`, every field with its type,
 * known state names. Fields the protocol does not define are ignored.
 */

import { getOwn, isFiniteNumber, isJsonObject, type JsonObject } from "../graph/json";
import {
  boolean,
  count,
  fail,
  integer,
  InvalidData,
  items,
  list,
  nullableString,
  object,
  readErrorBody,
  readUser,
  string,
  type ErrorBody,
} from "./read";
import {
  HANDOFF_VALUES,
  PARTITIONER_VALUES,
  RESULT_PARTITION_TYPE_VALUES,
  RUNTIME_MODE_VALUES,
  STAGE_STATUS_VALUES,
} from "./generated/wire";
import {
  CHANGING_RUN_FIELDS,
  EXECUTION_STATES,
  RUN_STATUSES,
  type Attempt,
  type ExecutionState,
  type OperatorRef,
  type RunDetail,
  type RunExchange,
  type RunExecution,
  type RunFields,
  type RunStage,
  type RunStatus,
  type RunVertex,
  type SinkOutput,
  type SparkApplication,
  type Subtask,
  type VertexEngine,
} from "./runs";

export interface RunSnapshotMessage {
  readonly type: "snapshot";
  readonly seq: number;
  readonly run: RunDetail;
}

/** One journal entry: apply it to the state of `seq - 1`. */
export interface RunUpdateMessage {
  readonly type: "run_update";
  readonly seq: number;
  /** Only the run's fields that changed. */
  readonly run: RunFields;
  /** The vertices that changed, whole: replace by `id`. */
  readonly vertices: readonly RunVertex[];
  /** The subtasks that changed, whole: replace by (`vertex`, `subtask`). */
  readonly subtasks: readonly Subtask[];
}

/** The server could not read a message this client sent. */
export interface RunErrorMessage {
  readonly type: "error";
  readonly error: ErrorBody;
}

export type RunServerMessage = RunSnapshotMessage | RunUpdateMessage | RunErrorMessage;

/** The one request: a fresh snapshot. */
export interface RunResyncRequest {
  readonly type: "resync";
}

export function encodeRunRequest(message: RunResyncRequest): string {
  return JSON.stringify(message);
}

export type ParsedRunMessage =
  | { readonly ok: true; readonly message: RunServerMessage }
  | { readonly ok: false; readonly error: string };

type Value = unknown;

function field(raw: JsonObject, key: string): Value {
  return getOwn(raw, key);
}

/** `read`, with null or a missing value read as null. */
function nullable<T>(read: (value: Value, path: string) => T) {
  return (value: Value, path: string): T | null =>
    value === null || value === undefined ? null : read(value, path);
}

function time(value: Value, path: string): number | null {
  if (value === null || value === undefined) {
    return null;
  }
  return isFiniteNumber(value) ? value : fail(path, "must be a number of seconds");
}

function oneOf<T extends string>(known: readonly T[], value: Value, path: string): T {
  return known.find((name) => name === value) ?? fail(path, `must be one of ${known.join(", ")}`);
}

function state(value: Value, path: string): ExecutionState {
  return oneOf(EXECUTION_STATES, value, path);
}

function status(value: Value, path: string): RunStatus {
  return oneOf(RUN_STATUSES, value, path);
}

function readAttempt(value: Value, path: string): Attempt {
  const raw = object(value, path);
  return {
    attempt: count(field(raw, "attempt"), `${path}.attempt`),
    state: state(field(raw, "state"), `${path}.state`),
    recordsIn: count(field(raw, "recordsIn"), `${path}.recordsIn`),
    recordsOut: count(field(raw, "recordsOut"), `${path}.recordsOut`),
    startTime: time(field(raw, "startTime"), `${path}.startTime`),
    endTime: time(field(raw, "endTime"), `${path}.endTime`),
    error: nullableString(field(raw, "error"), `${path}.error`),
    // Absent from runs stored before the server recorded it.
    failedNode: nullable(count)(field(raw, "failedNode"), `${path}.failedNode`),
  };
}

function readKeyGroups(value: Value, path: string): readonly [number, number] {
  const [start, end, ...rest] = list(value, path);
  if (rest.length > 0) {
    fail(path, "must be [start, end]");
  }
  const first = count(start, `${path}.0`);
  const last = integer(end, `${path}.1`);
  return last >= first - 1 ? [first, last] : fail(path, "must not end before it starts");
}

export function readSubtask(value: Value, path: string): Subtask {
  const raw = object(value, path);
  return {
    ...readAttempt(raw, path),
    vertex: string(field(raw, "vertex"), `${path}.vertex`),
    subtask: count(field(raw, "subtask"), `${path}.subtask`),
    name: string(field(raw, "name"), `${path}.name`),
    keyGroups: readKeyGroups(field(raw, "keyGroups"), `${path}.keyGroups`),
    attempts: items(field(raw, "attempts"), `${path}.attempts`, readAttempt),
  };
}

function readStatusCounts(value: Value, path: string): Record<ExecutionState, number> {
  const raw = object(value, path);
  const counts = Object.fromEntries(EXECUTION_STATES.map((name) => [name, 0])) as Record<
    ExecutionState,
    number
  >;
  for (const [name, n] of Object.entries(raw)) {
    counts[state(name, `${path}.${name}`)] = count(n, `${path}.${name}`);
  }
  return counts;
}

export function readVertex(value: Value, path: string): RunVertex {
  const raw = object(value, path);
  return {
    id: string(field(raw, "id"), `${path}.id`),
    name: string(field(raw, "name"), `${path}.name`),
    parallelism: count(field(raw, "parallelism"), `${path}.parallelism`),
    maxParallelism: count(field(raw, "maxParallelism"), `${path}.maxParallelism`),
    status: state(field(raw, "status"), `${path}.status`),
    statusCounts: readStatusCounts(field(raw, "statusCounts"), `${path}.statusCounts`),
    recordsIn: count(field(raw, "recordsIn"), `${path}.recordsIn`),
    recordsOut: count(field(raw, "recordsOut"), `${path}.recordsOut`),
    startTime: time(field(raw, "startTime"), `${path}.startTime`),
    endTime: time(field(raw, "endTime"), `${path}.endTime`),
  };
}

function readSink(value: Value, path: string): SinkOutput {
  const raw = object(value, path);
  return {
    node: integer(field(raw, "node"), `${path}.node`),
    vertex: string(field(raw, "vertex"), `${path}.vertex`),
    subtask: count(field(raw, "subtask"), `${path}.subtask`),
    records: count(field(raw, "records"), `${path}.records`),
    preview: items(field(raw, "preview"), `${path}.preview`, string),
    truncated: boolean(field(raw, "truncated"), `${path}.truncated`),
    files: items(field(raw, "files"), `${path}.files`, string),
  };
}

function readOperator(value: Value, path: string): OperatorRef {
  const raw = object(value, path);
  return {
    node: integer(field(raw, "node"), `${path}.node`),
    name: string(field(raw, "name"), `${path}.name`),
  };
}

function readStage(value: Value, path: string): RunStage {
  const raw = object(value, path);
  const at = (key: string): string => `${path}.${key}`;
  return {
    number: count(field(raw, "number"), at("number")),
    vertices: items(field(raw, "vertices"), at("vertices"), string),
    edge: nullable(count)(field(raw, "edge"), at("edge")),
    reads: items(field(raw, "reads"), at("reads"), readOperator),
    writes: items(field(raw, "writes"), at("writes"), readOperator),
    after: items(field(raw, "after"), at("after"), count),
    status: oneOf(STAGE_STATUS_VALUES, field(raw, "status"), at("status")),
    stageId: nullable(count)(field(raw, "stageId"), at("stageId")),
    attempts: count(field(raw, "attempts"), at("attempts")),
    submitted: time(field(raw, "submitted"), at("submitted")),
    completed: time(field(raw, "completed"), at("completed")),
  };
}

function readExchange(value: Value, path: string): RunExchange {
  const raw = object(value, path);
  const at = (key: string): string => `${path}.${key}`;
  const planned = field(raw, "resultPartitionType");
  return {
    edge: count(field(raw, "edge"), at("edge")),
    source: readOperator(field(raw, "source"), at("source")),
    target: readOperator(field(raw, "target"), at("target")),
    partitioner: oneOf(PARTITIONER_VALUES, field(raw, "partitioner"), at("partitioner")),
    resultPartitionType:
      planned === null || planned === undefined
        ? null
        : oneOf(RESULT_PARTITION_TYPE_VALUES, planned, at("resultPartitionType")),
    handoff: oneOf(HANDOFF_VALUES, field(raw, "handoff"), at("handoff")),
    producerStage: count(field(raw, "producerStage"), at("producerStage")),
    consumerStage: count(field(raw, "consumerStage"), at("consumerStage")),
  };
}

function readEngine(value: Value, path: string): VertexEngine {
  const raw = object(value, path);
  return {
    vertex: string(field(raw, "vertex"), `${path}.vertex`),
    engine: oneOf(["sql", "python"] as const, field(raw, "engine"), `${path}.engine`),
    reason: nullableString(field(raw, "reason"), `${path}.reason`),
  };
}

/** How the run executes; null until a worker planned it (or from a server without it). */
function readExecution(value: Value, path: string): RunExecution | null {
  if (value === null || value === undefined) {
    return null;
  }
  const raw = object(value, path);
  const at = (key: string): string => `${path}.${key}`;
  return {
    executor: oneOf(["spark", "local"] as const, field(raw, "executor"), at("executor")),
    runtimeMode: oneOf(RUNTIME_MODE_VALUES, field(raw, "runtimeMode"), at("runtimeMode")),
    sources: items(field(raw, "sources"), at("sources"), readOperator),
    stagesReported: boolean(field(raw, "stagesReported"), at("stagesReported")),
    stages: items(field(raw, "stages"), at("stages"), readStage),
    exchanges: items(field(raw, "exchanges"), at("exchanges"), readExchange),
    // Runs stored before engines were reported have none.
    engines:
      field(raw, "engines") === undefined
        ? []
        : items(field(raw, "engines"), at("engines"), readEngine),
  };
}

function readSparkApplication(value: Value, path: string): SparkApplication {
  const raw = object(value, path);
  return {
    id: string(field(raw, "id"), `${path}.id`),
    uiUrl: nullableString(field(raw, "uiUrl"), `${path}.uiUrl`),
    historyUrl: nullableString(field(raw, "historyUrl"), `${path}.historyUrl`),
  };
}

function readDetails(value: Value, path: string): JsonObject {
  return value === undefined || value === null ? {} : object(value, path);
}

/** A run's changed fields: only the keys present are read (null clears a field). */
function readRunFields(value: Value, path: string): RunFields {
  const raw = object(value, path);
  const fields: { -readonly [K in keyof RunFields]: RunFields[K] } = {};
  for (const key of CHANGING_RUN_FIELDS) {
    if (!Object.hasOwn(raw, key)) {
      continue;
    }
    const item = field(raw, key);
    const at = `${path}.${key}`;
    switch (key) {
      case "status":
        fields.status = status(item, at);
        break;
      case "canceledBy":
        fields.canceledBy = nullable(readUser)(item, at);
        break;
      case "sinks":
        fields.sinks = items(item, at, readSink);
        break;
      case "details":
        fields.details = readDetails(item, at);
        break;
      case "execution":
        fields.execution = readExecution(item, at);
        break;
      case "spark":
        fields.spark = nullable(readSparkApplication)(item, at);
        break;
      default:
        fields[key] = nullableString(item, at);
    }
  }
  return fields;
}

/** A run detail, checked (the REST answer or a snapshot's `run`). */
export function readRunDetail(value: Value, path = "run"): RunDetail {
  const raw = object(value, path);
  const at = (key: string): string => `${path}.${key}`;
  return {
    id: integer(field(raw, "id"), at("id")),
    pipeline: integer(field(raw, "pipeline"), at("pipeline")),
    version: integer(field(raw, "version"), at("version")),
    status: status(field(raw, "status"), at("status")),
    cluster: string(field(raw, "cluster"), at("cluster")),
    parameters: readDetails(field(raw, "parameters"), at("parameters")),
    startedBy: nullable(readUser)(field(raw, "startedBy"), at("startedBy")),
    createdAt: string(field(raw, "createdAt"), at("createdAt")),
    startedAt: nullableString(field(raw, "startedAt"), at("startedAt")),
    finishedAt: nullableString(field(raw, "finishedAt"), at("finishedAt")),
    heartbeatAt: nullableString(field(raw, "heartbeatAt"), at("heartbeatAt")),
    worker: nullableString(field(raw, "worker"), at("worker")),
    error: nullableString(field(raw, "error"), at("error")),
    // Absent from servers before it was sent: nobody known.
    canceledBy: nullable(readUser)(field(raw, "canceledBy") ?? null, at("canceledBy")),
    sinks: items(field(raw, "sinks"), at("sinks"), readSink),
    details: readDetails(field(raw, "details"), at("details")),
    // Absent from servers before it was sent: nothing noticed.
    eventsProblem: nullableString(field(raw, "eventsProblem") ?? null, at("eventsProblem")),
    execution: readExecution(field(raw, "execution"), at("execution")),
    // Absent from servers before it was sent: not known.
    spark: nullable(readSparkApplication)(field(raw, "spark"), at("spark")),
    seq: count(field(raw, "seq"), at("seq")),
    vertices: items(field(raw, "vertices"), at("vertices"), readVertex),
    subtasks: items(field(raw, "subtasks"), at("subtasks"), readSubtask),
  };
}

function readMessage(raw: JsonObject, type: RunServerMessage["type"]): RunServerMessage {
  switch (type) {
    case "snapshot": {
      const seq = count(field(raw, "seq"), "seq");
      const run = readRunDetail(field(raw, "run"));
      return { type, seq, run: run.seq === seq ? run : { ...run, seq } };
    }
    case "run_update":
      return {
        type,
        seq: count(field(raw, "seq"), "seq"),
        run: readRunFields(field(raw, "run") ?? {}, "run"),
        vertices: items(field(raw, "vertices") ?? [], "vertices", readVertex),
        subtasks: items(field(raw, "subtasks") ?? [], "subtasks", readSubtask),
      };
    case "error":
      return { type, error: readErrorBody(field(raw, "error"), "error") };
  }
}

const TYPES: readonly RunServerMessage["type"][] = ["snapshot", "run_update", "error"];

/** A message received on the run socket, checked; or why it is not one. */
export function parseRunMessage(text: string): ParsedRunMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: "not JSON" };
  }
  if (!isJsonObject(raw)) {
    return { ok: false, error: "a message must be a JSON object" };
  }
  const type = TYPES.find((known) => known === getOwn(raw, "type"));
  if (type === undefined) {
    return {
      ok: false,
      error: `unknown message type ${JSON.stringify(getOwn(raw, "type") ?? null)}`,
    };
  }
  try {
    return { ok: true, message: readMessage(raw, type) };
  } catch (error) {
    if (error instanceof InvalidData) {
      return { ok: false, error: `${type}: ${error.message}` };
    }
    throw error;
  }
}
