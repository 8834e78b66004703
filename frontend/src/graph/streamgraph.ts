/**
 * The `streamgraph/v1` document (shared/streamgraph-format.md, with what the project adds in
 * docs/STREAMGRAPH.md) and its check.
 *
 * A document is kept exactly as the server stores it: `parseDocument` checks it
 * and hands back the same object, every key kept, known or not (`params`, `ui`,
 * `meta` and anything else). Keys the compiler defaults when they are missing
 * (`factory`, `exchangeMode`, ...) are optional here for the same reason.
 *
 * The check is the one the server makes before it stores a working copy
 * (`compiler.diagnostics.structural_errors` over `compiler.document`): the
 * codes, fields and element locations are the same, so a document the server
 * accepts is accepted here and the editor can rely on the types below.
 */

import {
  getOwn,
  isInteger,
  isJsonObject,
  pythonRepr,
  type JsonObject,
  type JsonValue,
} from "./json";

export const FORMAT = "streamgraph/v1";

export const PARTITIONERS = [
  "FORWARD",
  "REBALANCE",
  "RESCALE",
  "SHUFFLE",
  "HASH",
  "BROADCAST",
  "GLOBAL",
  "CUSTOM",
] as const;
export type Partitioner = (typeof PARTITIONERS)[number];

export const EXCHANGE_MODES = [
  "UNDEFINED",
  "PIPELINED",
  "BATCH",
  "HYBRID_FULL",
  "HYBRID_SELECTIVE",
] as const;
export type ExchangeMode = (typeof EXCHANGE_MODES)[number];

export const CHAINING_STRATEGIES = ["ALWAYS", "NEVER", "HEAD", "HEAD_WITH_SOURCES"] as const;
export type ChainingStrategy = (typeof CHAINING_STRATEGIES)[number];

export const OPERATOR_FACTORIES = ["OPERATOR", "SOURCE", "LEGACY_SOURCE", "YIELDING"] as const;
export type OperatorFactory = (typeof OPERATOR_FACTORIES)[number];

export const RUNTIME_MODES = ["STREAMING", "BATCH"] as const;
export type RuntimeMode = (typeof RUNTIME_MODES)[number];

/** -1: use the default (`config.defaultParallelism`, or derived max parallelism). */
export const PARALLELISM_DEFAULT = -1;

export interface StreamGraphConfig {
  readonly chainingEnabled?: boolean;
  readonly defaultParallelism?: number;
  readonly maxParallelism?: number;
  readonly runtimeMode?: RuntimeMode;
  readonly chainOperatorsWithDifferentMaxParallelism?: boolean;
  readonly [key: string]: JsonValue;
}

/** The settings of a node other than its id and name (all optional in a document). */
export interface StreamNodeFields {
  readonly operator?: string;
  readonly params?: JsonObject;
  readonly parallelism?: number;
  readonly maxParallelism?: number;
  readonly chainingStrategy?: ChainingStrategy;
  readonly slotSharingGroup?: string | null;
  readonly coLocationGroup?: string | null;
  readonly uid?: string | null;
  readonly uidHash?: string | null;
  readonly factory?: OperatorFactory;
  /** Editor-only state such as the canvas position `x`, `y`; never compiled. */
  readonly ui?: JsonObject;
}

export interface StreamNode extends StreamNodeFields {
  /** Flink's StreamNode id: an integer > 0, unique in the document. */
  readonly id: number;
  /** The operator name as Flink shows it; never empty. */
  readonly name: string;
  readonly [key: string]: JsonValue;
}

export interface StreamEdgeFields {
  /**
   * The partitioner the program chose; null (or left out): none, and Flink's default
   * applies, FORWARD between equal parallelism and REBALANCE otherwise (`edgePartitioners`).
   */
  readonly partitioner?: Partitioner | null;
  readonly exchangeMode?: ExchangeMode;
  /** Input position: 0 for one-input operators, 1 or 2 for two-input ones. */
  readonly typeNumber?: number;
  readonly sideOutputTag?: string | null;
  /** The key selector of a HASH or CUSTOM edge (for running; not compiled). */
  readonly key?: JsonValue;
}

export interface StreamEdge extends StreamEdgeFields {
  readonly source: number;
  readonly target: number;
  readonly [key: string]: JsonValue;
}

export interface StreamGraphDocument {
  readonly format: typeof FORMAT;
  readonly name?: string;
  readonly config?: StreamGraphConfig;
  readonly nodes: readonly StreamNode[];
  /** Creation order, which Flink's hashing and chaining depend on. */
  readonly edges?: readonly StreamEdge[];
  readonly meta?: JsonObject;
  readonly [key: string]: JsonValue;
}

/** A problem and where it is, as the compiler and the server's error shape report it. */
export interface Diagnostic {
  readonly code: string;
  readonly severity: "error" | "warning";
  readonly message: string;
  readonly node: number | null;
  readonly edge: number | null;
  readonly field: string | null;
  /** Every node the problem is about, when it is about several (a cycle's); `node` is the first. */
  readonly nodes?: readonly number[];
  /** Every edge (by index) the problem is about, when it is about several. */
  readonly edges?: readonly number[];
}

/**
 * A diagnostic as the server sends it: a compiler's, a run problem (`"stage": "run"`) or a
 * warning about state a savepoint would not restore (`"stage": "state"`).
 */
export type ServerDiagnostic = Diagnostic & { readonly stage?: string };

export type ParseResult =
  | { readonly ok: true; readonly document: StreamGraphDocument }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** The edges of a document (a document may leave the key out when there are none). */
export function documentEdges(document: StreamGraphDocument): readonly StreamEdge[] {
  return document.edges ?? [];
}

interface Where {
  readonly node?: number;
  readonly edge?: number;
  readonly field?: string;
}

function error(code: string, message: string, where: Where = {}): Diagnostic {
  return {
    code,
    severity: "error",
    message,
    node: where.node ?? null,
    edge: where.edge ?? null,
    field: where.field ?? null,
  };
}

function fieldAt(prefix: string | undefined, key: string): string {
  return prefix ? `${prefix}.${key}` : key;
}

/** An integer field; `undefined` (missing) is fine, the compiler then uses its default. */
function checkInt(object: JsonObject, key: string, where: Where, out: Diagnostic[]): void {
  const value = getOwn(object, key);
  if (value !== undefined && !isInteger(value)) {
    out.push(
      error("field.type", `'${key}' must be an integer, got ${pythonRepr(value)}`, {
        ...where,
        field: fieldAt(where.field, key),
      }),
    );
  }
}

function checkBool(object: JsonObject, key: string, where: Where, out: Diagnostic[]): void {
  const value = getOwn(object, key);
  if (value !== undefined && typeof value !== "boolean") {
    out.push(
      error("field.type", `'${key}' must be true or false, got ${pythonRepr(value)}`, {
        ...where,
        field: fieldAt(where.field, key),
      }),
    );
  }
}

function checkOptionalString(
  object: JsonObject,
  key: string,
  where: Where,
  out: Diagnostic[],
): void {
  const value = getOwn(object, key);
  if (value !== undefined && value !== null && typeof value !== "string") {
    out.push(
      error("field.type", `'${key}' must be a string or null, got ${pythonRepr(value)}`, {
        ...where,
        field: fieldAt(where.field, key),
      }),
    );
  }
}

function checkEnum(
  object: JsonObject,
  key: string,
  allowed: readonly string[],
  where: Where,
  out: Diagnostic[],
): void {
  const value = getOwn(object, key);
  if (value !== undefined && !(typeof value === "string" && allowed.includes(value))) {
    out.push(
      error(
        "field.enum",
        `'${key}' must be one of ${allowed.join(", ")}, got ${pythonRepr(value)}`,
        { ...where, field: fieldAt(where.field, key) },
      ),
    );
  }
}

/** Problems with `config` (an object; every key optional). */
export function checkConfig(config: JsonValue | undefined): Diagnostic[] {
  if (config === undefined) {
    return [];
  }
  if (!isJsonObject(config)) {
    return [error("field.type", "'config' must be an object", { field: "config" })];
  }
  const out: Diagnostic[] = [];
  const where = { field: "config" };
  checkInt(config, "defaultParallelism", where, out);
  checkInt(config, "maxParallelism", where, out);
  checkBool(config, "chainingEnabled", where, out);
  checkEnum(config, "runtimeMode", RUNTIME_MODES, where, out);
  checkBool(config, "chainOperatorsWithDifferentMaxParallelism", where, out);
  return out;
}

/**
 * Problems with one node, `nodes[position]`. The id is checked here; whether it
 * is unique is the document's concern (`parseDocument`).
 */
/** StreamNode ids are Java ints in Flink (as the compiler's `MAX_NODE_ID`). */
export const MAX_NODE_ID = 2 ** 31 - 1;

export function checkNode(raw: JsonValue | undefined, position: number): Diagnostic[] {
  if (!isJsonObject(raw)) {
    return [
      error("node.type", `nodes[${position}] must be an object`, { field: `nodes[${position}]` }),
    ];
  }
  const id = getOwn(raw, "id");
  if (!isInteger(id) || id <= 0) {
    return [
      error("node.id", `nodes[${position}] needs an integer 'id' > 0, got ${pythonRepr(id)}`, {
        field: `nodes[${position}].id`,
      }),
    ];
  }
  if (id > MAX_NODE_ID) {
    return [
      error(
        "node.id",
        `nodes[${position}] has id ${id}, beyond the largest StreamNode id (${MAX_NODE_ID}, a Java int)`,
        { field: `nodes[${position}].id` },
      ),
    ];
  }
  const out: Diagnostic[] = [];
  const where = { node: id };
  const name = getOwn(raw, "name");
  if (typeof name !== "string" || !name) {
    out.push(error("node.name", "a node needs a non-empty 'name'", { node: id, field: "name" }));
  }
  const operator = getOwn(raw, "operator");
  if (operator !== undefined && typeof operator !== "string") {
    out.push(error("field.type", "'operator' must be a string", { node: id, field: "operator" }));
  }
  for (const key of ["params", "ui"]) {
    const value = getOwn(raw, key);
    if (value !== undefined && !isJsonObject(value)) {
      out.push(error("field.type", `'${key}' must be an object`, { node: id, field: key }));
    }
  }
  checkInt(raw, "parallelism", where, out);
  checkInt(raw, "maxParallelism", where, out);
  checkOptionalString(raw, "uid", where, out);
  checkOptionalString(raw, "uidHash", where, out);
  checkOptionalString(raw, "slotSharingGroup", where, out);
  checkEnum(raw, "chainingStrategy", CHAINING_STRATEGIES, where, out);
  checkOptionalString(raw, "coLocationGroup", where, out);
  checkEnum(raw, "factory", OPERATOR_FACTORIES, where, out);
  return out;
}

/** Problems with one edge, `edges[index]`, in a document whose node ids are `nodeIds`. */
export function checkEdge(
  raw: JsonValue | undefined,
  index: number,
  nodeIds: ReadonlySet<number>,
): Diagnostic[] {
  if (!isJsonObject(raw)) {
    return [error("edge.type", "an edge must be an object", { edge: index })];
  }
  const out: Diagnostic[] = [];
  const where = { edge: index };
  for (const key of ["source", "target"]) {
    const value = getOwn(raw, key);
    if (!isInteger(value) || !nodeIds.has(value)) {
      out.push(
        error(
          "edge.unknown-node",
          `'${key}' ${pythonRepr(value)} is not the id of a node in this document`,
          { edge: index, field: key },
        ),
      );
    }
  }
  if (getOwn(raw, "partitioner") !== null) {
    checkEnum(raw, "partitioner", PARTITIONERS, where, out);
  }
  checkEnum(raw, "exchangeMode", EXCHANGE_MODES, where, out);
  checkInt(raw, "typeNumber", where, out);
  checkOptionalString(raw, "sideOutputTag", where, out);
  return out;
}

/** A node's parallelism as the compiler resolves it: its own, else the job's default. */
export function nodeParallelism(document: StreamGraphDocument, node: StreamNode): number {
  const parallelism = node.parallelism ?? PARALLELISM_DEFAULT;
  return parallelism === PARALLELISM_DEFAULT
    ? (document.config?.defaultParallelism ?? 1)
    : parallelism;
}

/** An edge's partitioner as the compiler resolves it, and whether the document chose it. */
export interface EdgePartitioner {
  readonly partitioner: Partitioner;
  /** False when the document chose none and Flink's default applies. */
  readonly chosen: boolean;
}

/**
 * The partitioner of every edge, in edge-list order, as `compiler.document` resolves it:
 * the edge's own, or, when it has none, what Flink's `StreamGraph.createActualEdge` picks
 * for a program that calls no partitioning method: FORWARD between equal parallelism,
 * REBALANCE otherwise (REBALANCE too for an edge to a node the document lacks, which
 * the compiler reports).
 */
export function edgePartitioners(document: StreamGraphDocument): EdgePartitioner[] {
  const parallelism = new Map(
    document.nodes.map((node) => [node.id, nodeParallelism(document, node)]),
  );
  return documentEdges(document).map((edge) => {
    const chosen = edge.partitioner ?? null;
    if (chosen !== null) {
      return { partitioner: chosen, chosen: true };
    }
    const from = parallelism.get(edge.source);
    const same = from !== undefined && from === parallelism.get(edge.target);
    return { partitioner: same ? "FORWARD" : "REBALANCE", chosen: false };
  });
}

/** The ids of the nodes that are objects with a valid id. */
export function nodeIdSet(nodes: readonly JsonValue[]): Set<number> {
  const ids = new Set<number>();
  for (const node of nodes) {
    const id = isJsonObject(node) ? getOwn(node, "id") : undefined;
    if (isInteger(id) && id > 0) {
      ids.add(id);
    }
  }
  return ids;
}

/** Every problem that makes `raw` unreadable as a `streamgraph/v1` graph. */
export function checkDocument(raw: unknown): Diagnostic[] {
  if (!isJsonObject(raw)) {
    return [error("document.type", "a streamgraph/v1 document must be a JSON object")];
  }
  const out: Diagnostic[] = [];
  const format = getOwn(raw, "format");
  if (format !== FORMAT) {
    out.push(
      error("document.format", `'format' must be '${FORMAT}', got ${pythonRepr(format)}`, {
        field: "format",
      }),
    );
  }
  const name = getOwn(raw, "name");
  if (name !== undefined && typeof name !== "string") {
    out.push(error("field.type", "'name' must be a string", { field: "name" }));
  }
  const configProblems = checkConfig(getOwn(raw, "config"));
  out.push(...configProblems);
  const nodes = getOwn(raw, "nodes");
  const edges = Object.hasOwn(raw, "edges") ? getOwn(raw, "edges") : [];
  if (!Array.isArray(nodes)) {
    out.push(error("field.type", "'nodes' must be a list of nodes", { field: "nodes" }));
    return out;
  }
  if (!Array.isArray(edges)) {
    out.push(error("field.type", "'edges' must be a list of edges", { field: "edges" }));
    return out;
  }
  if (configProblems.some((problem) => problem.field === "config")) {
    return out;
  }
  const seen = new Set<number>();
  nodes.forEach((node: JsonValue, position) => {
    const id = isJsonObject(node) ? getOwn(node, "id") : undefined;
    if (isInteger(id) && seen.has(id)) {
      out.push(error("node.duplicate-id", `node id ${id} is used twice`, { node: id }));
      return;
    }
    const problems = checkNode(node, position);
    out.push(...problems);
    if (isInteger(id) && id > 0) {
      seen.add(id);
    }
  });
  edges.forEach((edge: JsonValue, index) => {
    out.push(...checkEdge(edge, index, seen));
  });
  return out;
}

/** `raw` as a document when it is readable as a graph, else the problems. */
export function parseDocument(raw: unknown): ParseResult {
  const diagnostics = checkDocument(raw);
  if (diagnostics.length > 0) {
    return { ok: false, diagnostics };
  }
  return { ok: true, document: raw as StreamGraphDocument };
}
