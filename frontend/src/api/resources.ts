/**
 * The REST resources the app reads and writes, one typed function each.
 * Shapes follow the backend's serializers (see `/api/docs/`).
 */

import type {
  DistributionPattern,
  ResultPartitionType,
  SlotSharingGroupSummary,
} from "../graph/liveplan";
import type { JsonValue } from "../graph/json";
import type {
  Diagnostic,
  Partitioner,
  RuntimeMode,
  StreamGraphDocument,
} from "../graph/streamgraph";
import type * as Wire from "./generated/wire";
import { request, requestText } from "./http";

export type Role = "viewer" | "editor" | "owner";

export interface User {
  readonly id: number;
  readonly username: string;
}

export interface Workspace {
  readonly id: number;
  readonly name: string;
  readonly slug: string;
  readonly role: Role;
  readonly createdAt: string;
}

export interface Member {
  readonly user: User;
  readonly role: Role;
}

export interface PipelineSummary {
  readonly id: number;
  readonly workspace: number;
  readonly name: string;
  readonly revision: number;
  readonly createdBy: User | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A pipeline without its document, and the caller's role: what the editor reads (its
 * socket's snapshot brings the document). */
export interface PipelineEditorSummary extends PipelineSummary {
  readonly role: Role;
}

export interface PipelineDetail extends PipelineSummary {
  readonly document: StreamGraphDocument;
}

export interface VersionSummary {
  readonly number: number;
  readonly message: string;
  readonly revision: number;
  readonly createdAt: string;
  readonly author: User | null;
}

export interface VersionDetail extends VersionSummary {
  readonly document: StreamGraphDocument;
}

export type ExportFormat = "streamgraph" | "flink-plan";

// Sign-in ---------------------------------------------------------------------------

export function signIn(username: string, password: string): Promise<{ token: string }> {
  return request("POST", "auth/token/", { body: { username, password } });
}

export function register(
  username: string,
  password: string,
): Promise<{ token: string; user: User }> {
  return request("POST", "auth/register/", { body: { username, password } });
}

export function signOut(): Promise<null> {
  return request("DELETE", "auth/token/");
}

export function me(): Promise<User> {
  return request("GET", "auth/me/");
}

// Workspaces and pipelines ------------------------------------------------------------

export function listWorkspaces(): Promise<Workspace[]> {
  return request("GET", "workspaces/");
}

export function createWorkspace(name: string): Promise<Workspace> {
  return request("POST", "workspaces/", { body: { name } });
}

export function listMembers(workspace: number): Promise<Member[]> {
  return request("GET", `workspaces/${workspace}/members/`);
}

export function addMember(workspace: number, username: string, role: Role): Promise<Member> {
  return request("POST", `workspaces/${workspace}/members/`, { body: { username, role } });
}

/** Owners only; the server refuses to leave a workspace without an owner (409 `last-owner`). */
export function changeMemberRole(workspace: number, user: number, role: Role): Promise<Member> {
  return request("PATCH", `workspaces/${workspace}/members/${user}/`, { body: { role } });
}

export function removeMember(workspace: number, user: number): Promise<null> {
  return request("DELETE", `workspaces/${workspace}/members/${user}/`);
}

/** Any member; the last owner is refused (409 `last-owner`). */
export function leaveWorkspace(workspace: number): Promise<null> {
  return request("POST", `workspaces/${workspace}/leave/`);
}

export function listPipelines(workspace?: number): Promise<PipelineSummary[]> {
  return request("GET", "pipelines/", { query: { workspace } });
}

export function createPipeline(workspace: number, name: string): Promise<PipelineDetail> {
  return request("POST", "pipelines/", { body: { workspace, name } });
}

export function getPipelineSummary(
  id: number,
  signal?: AbortSignal,
): Promise<PipelineEditorSummary> {
  return request("GET", `pipelines/${id}/summary/`, signal === undefined ? {} : { signal });
}

export function getPipeline(id: number, signal?: AbortSignal): Promise<PipelineDetail> {
  return request("GET", `pipelines/${id}/`, signal === undefined ? {} : { signal });
}

export function renamePipeline(id: number, name: string): Promise<PipelineDetail> {
  return request("PATCH", `pipelines/${id}/`, { body: { name } });
}

export function deletePipeline(id: number): Promise<null> {
  return request("DELETE", `pipelines/${id}/`);
}

/**
 * A new pipeline from a streamgraph/v1 document or Flink's plan JSON. Without `name` it
 * is named as the content names itself, else after `fileName` (the file it was read from).
 */
export function importPipeline(
  workspace: number,
  content: unknown,
  options: { readonly name?: string; readonly fileName?: string } = {},
): Promise<PipelineDetail & { importedFrom: string }> {
  return request("POST", "pipelines/import/", { body: { workspace, content, ...options } });
}

export function exportPipeline(
  id: number,
  format: ExportFormat,
  version?: number,
): Promise<string> {
  return requestText(`pipelines/${id}/export/`, { query: { format, version } });
}

// Versions, plans and diffs -----------------------------------------------------------

export function listVersions(pipeline: number, signal?: AbortSignal): Promise<VersionSummary[]> {
  return request("GET", `pipelines/${pipeline}/versions/`, signal === undefined ? {} : { signal });
}

export function saveVersion(pipeline: number, message: string): Promise<VersionDetail> {
  return request("POST", `pipelines/${pipeline}/versions/`, { body: { message } });
}

export function getVersion(
  pipeline: number,
  number: number,
  signal?: AbortSignal,
): Promise<VersionDetail> {
  return request(
    "GET",
    `pipelines/${pipeline}/versions/${number}/`,
    signal === undefined ? {} : { signal },
  );
}

/** `working` or a version number. */
export type VersionRef = number | "working";

/**
 * `jobgraph/v1` (`backend/compiler/jobgraph_json.py`). Parallelism and max
 * parallelism are the JobGraph's own: -1 where the scheduler derives the value
 * (the ExecutionGraph summary has the effective ones).
 */
export interface JobGraphJson {
  readonly format: "jobgraph/v1";
  readonly name: string;
  readonly flinkVersion: string;
  readonly jobType: RuntimeMode;
  readonly dynamic: boolean;
  readonly maximumParallelism: number;
  readonly slotsRequired: number;
  readonly slotSharingGroups: readonly SlotSharingGroupSummary[];
  /** OperatorID per node id. */
  readonly hashes: Readonly<Record<string, string>>;
  /** Topologically sorted from the sources. */
  readonly vertices: readonly JobVertexJson[];
}

export interface JobVertexJson {
  /** The JobVertexID. */
  readonly id: string;
  readonly name: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly headNode: number;
  /** Operator order: post-order of the chain, the head last. */
  readonly nodes: readonly number[];
  /** `getOperatorIDs()`, in `nodes` order. */
  readonly operatorIds: readonly { generated: string; userDefined: string | null }[];
  readonly slotSharingGroup: number;
  readonly slotSharingGroupName: string;
  readonly coLocationGroup: string | null;
  readonly isInputVertex: boolean;
  readonly isOutputVertex: boolean;
  readonly inputs: readonly JobEdgeJson[];
  /** The IntermediateDataSets the vertex produces. */
  readonly outputs: readonly {
    readonly id: string;
    readonly resultPartitionType: ResultPartitionType;
    /** JobVertexIDs of the consumers. */
    readonly consumers: readonly string[];
  }[];
}

export interface JobEdgeJson {
  /** JobVertexID of the producer. */
  readonly producer: string;
  /** IntermediateDataSetID. */
  readonly dataSet: string;
  readonly distributionPattern: DistributionPattern;
  readonly resultPartitionType: ResultPartitionType;
  readonly shipStrategy: Partitioner;
  readonly typeNumber: number;
  readonly isBroadcast: boolean;
  readonly isForward: boolean;
}

/** Inclusive `[first, last]`. */
export type Span = readonly [number, number];

/** Producer partitions `partitions` are read by consumer subtasks `consumers`, each by each. */
export interface PartitionGroup {
  readonly partitions: Span;
  readonly consumers: Span;
}

export interface ExecutionVertexSummary {
  /** The JobVertexID. */
  readonly id: string;
  readonly name: string;
  /** Effective parallelism and max parallelism (defaults and derivations applied). */
  readonly parallelism: number;
  readonly maxParallelism: number;
  /** Per subtask, its key groups as `[first, last]`. */
  readonly keyGroupRanges: readonly Span[];
}

export interface ExecutionEdgeSummary {
  readonly producer: string;
  readonly consumer: string;
  readonly pattern: DistributionPattern;
  /** O(producers + consumers) groups, never one entry per pair. */
  readonly groups: readonly PartitionGroup[];
}

/** The ExecutionGraph summary of `pipelines.selectors.pipeline_plan`. */
export interface ExecutionSummary {
  readonly totalSubtasks: number;
  readonly slotsRequired: number | null;
  readonly vertices: readonly ExecutionVertexSummary[];
  readonly edges: readonly ExecutionEdgeSummary[];
}

/** One thing left to do before an imported pipeline runs (`runtime.imported`). */
export interface ImportChecklistItem {
  /** `import.operator` (choose the kind to run), or a run problem's code. */
  readonly code: string;
  readonly message: string;
  readonly field: string | null;
  /** The index of the input edge it is about, else null. */
  readonly edge: number | null;
}

export interface ImportChecklistNode {
  readonly node: number;
  readonly name: string;
  /** The node's operator kind now (empty when none was chosen). */
  readonly operator: string;
  /** The catalog kind the node's Flink name and pact suggest (apply with `set_operator`). */
  readonly suggestedOperator: string | null;
  readonly items: readonly ImportChecklistItem[];
}

/** What a pipeline imported from Flink's plan JSON needs before it runs, node by node. */
export interface ImportChecklist {
  readonly importedFrom: string;
  readonly remaining: number;
  readonly nodes: readonly ImportChecklistNode[];
}

/** `GET /api/pipelines/{id}/plan/`: jobGraph, execution and explain are null when the
 * document has errors. */
export interface CompiledPlan {
  readonly ok: boolean;
  readonly diagnostics: readonly Diagnostic[];
  readonly jobGraph: JobGraphJson | null;
  readonly execution: ExecutionSummary | null;
  /** `explain/v1`. */
  readonly explain: unknown;
  /** Null unless the pipeline was imported from Flink's plan JSON. */
  readonly importChecklist: ImportChecklist | null;
}

export function getPlan(
  pipeline: number,
  version?: number,
  signal?: AbortSignal,
): Promise<CompiledPlan> {
  return request("GET", `pipelines/${pipeline}/plan/`, {
    query: { version },
    ...(signal === undefined ? {} : { signal }),
  });
}

/** One field of an element that differs; null stands for "not set". */
export interface FieldChange {
  readonly field: string;
  readonly old: JsonValue;
  readonly new: JsonValue;
}

/**
 * A stream edge in a diff, by its key without the ordinal: edges with the same
 * source, target and typeNumber are told apart by their order in the edge list.
 */
export interface DiffEdgeRef {
  readonly source: number;
  readonly target: number;
  readonly typeNumber: number;
  readonly partitioner: Partitioner | null;
}

export interface ChangedDiffEdge extends DiffEdgeRef {
  readonly fields: readonly FieldChange[];
}

/** A JobVertex (chain) by its head node, JobVertexID and name. */
export interface VertexRef {
  readonly head: number;
  readonly id: string;
  readonly name: string;
}

/** The version diff's state verdict and its rows, generated from the server's models. */
export type StateVerdict = Wire.StateVerdict;
export type OperatorStateVerdict = Wire.OperatorStateVerdict;

export interface StreamGraphChanges {
  readonly config: readonly FieldChange[];
  readonly nodes: {
    readonly added: readonly number[];
    readonly removed: readonly number[];
    readonly changed: readonly { readonly node: number; readonly fields: readonly FieldChange[] }[];
  };
  readonly edges: {
    readonly added: readonly DiffEdgeRef[];
    readonly removed: readonly DiffEdgeRef[];
    readonly changed: readonly ChangedDiffEdge[];
  };
}

export interface JobGraphChanges {
  readonly vertexCount: { readonly old: number; readonly new: number };
  readonly added: readonly VertexRef[];
  readonly removed: readonly VertexRef[];
  /** The same operators, chained under another name (`node` is the new head). */
  readonly renamed: readonly {
    readonly node: number;
    readonly old: string;
    readonly new: string;
  }[];
  readonly split: readonly { readonly old: VertexRef; readonly into: readonly VertexRef[] }[];
  readonly merged: readonly { readonly new: VertexRef; readonly from: readonly VertexRef[] }[];
  readonly parallelism: readonly {
    readonly vertex: VertexRef;
    readonly old: number;
    readonly new: number;
  }[];
}

/** A vertex whose subtasks change; `movedKeyGroups` is null when max parallelism changed
 * (the key groups do not compare; whether state restores is the `savepoint` part's to say). */
export interface ExecutionVertexChange {
  readonly vertex: VertexRef;
  readonly subtasks: { readonly old: number; readonly new: number };
  readonly maxParallelism: { readonly old: number; readonly new: number };
  readonly movedKeyGroups: number | null;
  /** The number of key groups, when they are comparable. */
  readonly keyGroups?: number;
  readonly note?: string;
}

export interface ExecutionGraphChanges {
  readonly subtasks: { readonly old: number; readonly new: number };
  readonly vertices: readonly ExecutionVertexChange[];
}

/**
 * `plandiff/v1` (`backend/compiler/diff.py`). The JobGraph, ExecutionGraph and
 * savepoint parts are null unless both documents compile.
 */
export interface PlanDiff {
  readonly format: "plandiff/v1";
  readonly streamGraph: StreamGraphChanges;
  readonly jobGraph: JobGraphChanges | null;
  readonly executionGraph: ExecutionGraphChanges | null;
  /** What a savepoint of the older version does when the newer starts from it. */
  readonly savepoint: StateVerdict | null;
  readonly diagnostics: {
    readonly old: readonly Diagnostic[];
    readonly new: readonly Diagnostic[];
  };
}

export function getDiff(
  pipeline: number,
  from: VersionRef,
  to: VersionRef,
  signal?: AbortSignal,
): Promise<PlanDiff> {
  return request("GET", `pipelines/${pipeline}/diff/`, {
    query: { from: String(from), to: String(to) },
    ...(signal === undefined ? {} : { signal }),
  });
}

// The rescale simulator ---------------------------------------------------------------

/** `GET /api/pipelines/<id>/rescale/` (`backend/pipelines/events.py`, `compiler.rescale`). */
export type RescaleSimulation = Wire.RescaleSimulation;
export type RescaledVertex = Wire.RescaledVertex;
export type RescaledSubtask = Wire.RescaledSubtask;
export type RescaleProblem = Wire.RescaleProblem;
export type RescaleChoice = Wire.RescaleChoice;
export type RescaleMaxParallelism = Wire.RescaleMaxParallelism;
export type RescalePage = Wire.RescalePage;

export interface RescaleQuery {
  /** A saved version; the working copy if left out. */
  readonly version?: number;
  /** The JobVertexID to rescale; the whole job (its default parallelism) if left out. */
  readonly vertex?: string;
  readonly parallelism: number;
  /** The first vertex described, by its place in topological order (0 if left out). */
  readonly offset?: number;
  /** How many vertices are described (the server's default if left out). */
  readonly limit?: number;
}

export function getRescale(
  pipeline: number,
  query: RescaleQuery,
  signal?: AbortSignal,
): Promise<RescaleSimulation> {
  return request("GET", `pipelines/${pipeline}/rescale/`, {
    query: {
      version: query.version,
      vertex: query.vertex,
      parallelism: query.parallelism,
      offset: query.offset,
      limit: query.limit,
    },
    ...(signal === undefined ? {} : { signal }),
  });
}

// The operator catalog ----------------------------------------------------------------

export type ParamType =
  "expression" | "string" | "integer" | "number" | "boolean" | "enum" | "values" | "path";

/** While another parameter (an enum) holds one of `values`. */
export interface ParamCondition {
  readonly param: string;
  readonly values: readonly string[];
}

export interface ParamSpec {
  readonly name: string;
  readonly label: string;
  readonly type: ParamType;
  /** Whenever the parameter applies. */
  readonly required: boolean;
  readonly default: unknown;
  readonly choices: readonly string[] | null;
  readonly help: string;
  /**
   * Null: always. Otherwise the parameter applies (is shown, checked and read by the
   * operator) only while the condition holds, as a window's Size (ms) for time windows.
   */
  readonly appliesWhen: ParamCondition | null;
}

export type OperatorCategory = "source" | "transform" | "keyed" | "window" | "multi-input" | "sink";

export interface OperatorSpec {
  readonly kind: string;
  readonly label: string;
  readonly category: OperatorCategory;
  readonly description: string;
  readonly inputs: 0 | 1 | 2;
  readonly keyed: boolean;
  readonly defaults: {
    readonly name: string;
    readonly chainingStrategy: string;
    readonly factory: string;
  };
  readonly params: readonly ParamSpec[];
  /**
   * False for kinds that exist so imported PyFlink pipelines run (PyFlink's key map,
   * side-output maps, FileSink's writer and committer...): kept out of the palette.
   */
  readonly palette: boolean;
}

export interface Catalog {
  readonly format: "catalog/v1";
  readonly operators: readonly OperatorSpec[];
}

let catalogRequest: Promise<Catalog> | null = null;

/** The operator catalog, fetched once per page. */
export function getCatalog(): Promise<Catalog> {
  catalogRequest ??= request<Catalog>("GET", "operators/").catch((error: unknown) => {
    catalogRequest = null;
    throw error;
  });
  return catalogRequest;
}
