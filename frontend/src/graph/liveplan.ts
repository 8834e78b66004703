/**
 * The live plan (`liveplan/v1`, `backend/compiler/liveplan.py`) and its deltas.
 *
 * After every edit the server sends a `planDelta` instead of the whole plan:
 * per keyed section (`nodes`, `vertices`, `edges`) the entries to add or
 * replace, the keys to remove, the entries that stay under a new key and, for
 * entries that stay, only the fields that changed, an id shared by several
 * entries changing as one XOR; and every other top-level key that changed,
 * whole. `applyPlanDelta` turns the plan of revision N - 1 into that of N.
 */

import { getOwn, isJsonObject, type JsonObject, type JsonValue } from "./json";
import type { Partitioner, RuntimeMode, ServerDiagnostic } from "./streamgraph";

export const PLAN_FORMAT = "liveplan/v1";
export const KEYED_SECTIONS = ["nodes", "vertices", "edges"] as const;
export type KeyedSection = (typeof KEYED_SECTIONS)[number];

export type DistributionPattern = "ALL_TO_ALL" | "POINTWISE";
export type ResultPartitionType =
  "PIPELINED_BOUNDED" | "BLOCKING" | "HYBRID_FULL" | "HYBRID_SELECTIVE";

export interface SlotSharingGroupSummary {
  readonly index: number;
  readonly name: string | null;
  readonly slots: number;
}

export interface PlanSummary {
  readonly jobType: RuntimeMode;
  readonly vertexCount: number;
  /** JobVertexIDs, topologically sorted from the sources. */
  readonly vertexOrder: readonly string[];
  readonly slotsRequired: number;
  readonly totalSubtasks: number | null;
  readonly slotSharingGroups: readonly SlotSharingGroupSummary[];
}

/** Per node id (as a string). */
export interface PlanNode {
  /** The OperatorID, 32 hex characters. */
  readonly operatorId: string;
  /** The hash of the user's uid or uidHash, when one is set. */
  readonly userDefinedId: string | null;
  /** The JobVertexID of the vertex (chain) the node runs in. */
  readonly vertex: string;
  /** What the OperatorID depends on, in words. */
  readonly hashBasis: string;
}

export interface PlanVertexInput {
  /** The producing JobVertexID. */
  readonly producer: string;
  /** The IntermediateDataSetID. */
  readonly dataSet: string;
  readonly shipStrategy: Partitioner;
  readonly distributionPattern: DistributionPattern;
  readonly resultPartitionType: ResultPartitionType;
  /** Index of the stream edge this JobEdge comes from. */
  readonly edge: number;
}

/** Per JobVertexID. */
export interface PlanVertex {
  readonly name: string;
  readonly head: number;
  /** The node ids chained into this vertex. */
  readonly nodes: readonly number[];
  readonly chainedSources: readonly number[];
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly slotSharingGroup: number | null;
  readonly slotSharingGroupName: string | null;
  readonly inputs: readonly PlanVertexInput[];
}

/** Per stream edge index (as a string). */
export interface PlanEdge {
  /** The partitioner the edge resolved to. */
  readonly partitioner: Partitioner;
  /** False when the document chose none and Flink's default applies (FORWARD or REBALANCE). */
  readonly partitionerChosen: boolean;
  readonly chained: boolean;
  readonly chainedSource: boolean;
  /** Why the edge does not chain; empty when it does. */
  readonly reasons: readonly string[];
}

export interface LivePlan {
  readonly format: typeof PLAN_FORMAT;
  /** False when the document has errors; `summary` is then null and sections may be empty. */
  readonly ok: boolean;
  readonly summary: PlanSummary | null;
  /** The compiler's, then the run problems (`"stage": "run"`), then the state warnings. */
  readonly diagnostics: readonly ServerDiagnostic[];
  readonly nodes: Readonly<Record<string, PlanNode>>;
  readonly vertices: Readonly<Record<string, PlanVertex>>;
  readonly edges: Readonly<Record<string, PlanEdge>>;
}

/** A run of consecutive integer keys as `[first, last]`, or one key. */
export type KeyRun = string | number | readonly [number, number];

/**
 * One id field of several entries, each XORed with `by` (Flink mixes an
 * input's hash into its consumer's with XOR, so a broken chain moves every
 * OperatorID downstream by the same value).
 */
export interface XorGroup {
  readonly field: string;
  /** 32 hex characters. */
  readonly by: string;
  readonly keys: readonly KeyRun[];
}

/** Applied in this order: `rename`, `remove`, `set`, `patch`, `xor`. */
export interface SectionDelta<T> {
  /** Entries that stay under a new key: old key -> new key. */
  readonly rename?: Readonly<Record<string, string>>;
  /** Entries to add or replace. */
  readonly set?: Readonly<Record<string, T>>;
  /** Keys to remove. */
  readonly remove?: readonly string[];
  /** Per entry that stays, only its fields that changed. */
  readonly patch?: Readonly<Record<string, Partial<T>>>;
  readonly xor?: readonly XorGroup[];
}

/** `compiler.liveplan.plan_delta`: only what changed. */
export interface PlanDelta {
  readonly format?: string;
  readonly ok?: boolean;
  readonly summary?: PlanSummary | null;
  readonly diagnostics?: readonly ServerDiagnostic[];
  readonly nodes?: SectionDelta<PlanNode>;
  readonly vertices?: SectionDelta<PlanVertex>;
  readonly edges?: SectionDelta<PlanEdge>;
}

function isKeyedSection(key: string): key is KeyedSection {
  return (KEYED_SECTIONS as readonly string[]).includes(key);
}

/**
 * The plan after `delta`, from the plan before it (`apply_plan_delta`). Neither
 * argument is modified; unchanged sections and entries are shared with `plan`. Throws
 * `InvalidPlan` for a patch of an entry `plan` lacks, as the server's applier does.
 */
export function applyPlanDelta(plan: LivePlan, delta: PlanDelta): LivePlan {
  const result: Record<string, unknown> = { ...plan };
  for (const [key, value] of Object.entries(delta) as [string, unknown][]) {
    if (isKeyedSection(key)) {
      const change = value as SectionDelta<unknown>;
      const current = result[key];
      const section: Record<string, unknown> = isJsonObject(current) ? { ...current } : {};
      for (const [oldKey, newKey] of Object.entries(change.rename ?? {})) {
        if (!Object.hasOwn(section, oldKey)) {
          throw new InvalidPlan(`${key}: rename of '${oldKey}', which this plan lacks`);
        }
        defineEntry(section, newKey, section[oldKey]);
        // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- keys are data here
        delete section[oldKey];
      }
      for (const removed of change.remove ?? []) {
        if (Object.hasOwn(section, removed)) {
          // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- keys are data here
          delete section[removed];
        }
      }
      const entries: [string, unknown][] = Object.entries(change.set ?? {});
      for (const [entryKey, fields] of Object.entries(change.patch ?? {})) {
        const entry = Object.hasOwn(section, entryKey) ? section[entryKey] : undefined;
        if (!isJsonObject(entry)) {
          // The server patches only entries it sent: this plan drifted from its.
          throw new InvalidPlan(`${key}: patch of '${entryKey}', which this plan lacks`);
        }
        entries.push([entryKey, { ...entry, ...fields }]);
      }
      for (const [entryKey, entry] of entries) {
        defineEntry(section, entryKey, entry);
      }
      for (const group of change.xor ?? []) {
        applyXor(section, key, group);
      }
      result[key] = section;
    } else {
      result[key] = value;
    }
  }
  return result as unknown as LivePlan;
}

/** Set an entry even under a key such as `__proto__`: keys are data here. */
function defineEntry(section: Record<string, unknown>, key: string, entry: unknown): void {
  Object.defineProperty(section, key, {
    value: entry,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

const HEX_ID = /^[0-9a-f]{32}$/;

/** `a ^ b` of two ids written as 32 hex characters. */
export function xorIds(a: string, b: string): string {
  let result = "";
  for (let start = 0; start < 32; start += 8) {
    const word =
      (Number.parseInt(a.slice(start, start + 8), 16) ^
        Number.parseInt(b.slice(start, start + 8), 16)) >>>
      0;
    result += word.toString(16).padStart(8, "0");
  }
  return result;
}

/** The keys a group's runs name. */
export function runKeys(runs: readonly KeyRun[]): string[] {
  const keys: string[] = [];
  for (const run of runs) {
    if (Array.isArray(run)) {
      const [first, last] = run as readonly [number, number];
      for (let k = first; k <= last; k += 1) {
        keys.push(String(k));
      }
    } else {
      keys.push(String(run));
    }
  }
  return keys;
}

function applyXor(section: Record<string, unknown>, key: string, group: XorGroup): void {
  for (const entryKey of runKeys(group.keys)) {
    const entry = Object.hasOwn(section, entryKey) ? section[entryKey] : undefined;
    const value = isJsonObject(entry) ? getOwn(entry, group.field) : undefined;
    if (!isJsonObject(entry) || typeof value !== "string" || !HEX_ID.test(value)) {
      throw new InvalidPlan(`${key}: xor of '${entryKey}.${group.field}', which this plan lacks`);
    }
    defineEntry(section, entryKey, { ...entry, [group.field]: xorIds(value, group.by) });
  }
}

export class InvalidPlan extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidPlan";
  }
}

function section(raw: JsonObject, key: string, where: string): JsonObject {
  const value = getOwn(raw, key);
  if (!isJsonObject(value)) {
    throw new InvalidPlan(`${where}'${key}' must be an object`);
  }
  return value;
}

/** Check the frame of a `liveplan/v1` plan (its sections and their types). */
export function parseLivePlan(raw: unknown): LivePlan {
  if (!isJsonObject(raw)) {
    throw new InvalidPlan("a plan must be an object");
  }
  if (getOwn(raw, "format") !== PLAN_FORMAT) {
    throw new InvalidPlan(`'format' must be '${PLAN_FORMAT}'`);
  }
  if (typeof getOwn(raw, "ok") !== "boolean") {
    throw new InvalidPlan("'ok' must be true or false");
  }
  const summary = getOwn(raw, "summary");
  if (summary !== null && !isJsonObject(summary)) {
    throw new InvalidPlan("'summary' must be an object or null");
  }
  if (!Array.isArray(getOwn(raw, "diagnostics"))) {
    throw new InvalidPlan("'diagnostics' must be a list");
  }
  for (const key of KEYED_SECTIONS) {
    section(raw, key, "");
  }
  return raw as unknown as LivePlan;
}

/** Check the frame of a plan delta: each keyed section's `set`, `remove` and `patch`,
 * each optional. */
export function parsePlanDelta(raw: unknown): PlanDelta {
  if (!isJsonObject(raw)) {
    throw new InvalidPlan("a plan delta must be an object");
  }
  for (const key of KEYED_SECTIONS) {
    const change = getOwn(raw, key);
    if (change === undefined) {
      continue;
    }
    if (!isJsonObject(change)) {
      throw new InvalidPlan(`'${key}' must be an object`);
    }
    if (getOwn(change, "set") !== undefined) {
      section(change, "set", `${key}: `);
    }
    if (getOwn(change, "patch") !== undefined) {
      const patch = section(change, "patch", `${key}: `);
      for (const [entryKey, fields] of Object.entries(patch)) {
        if (!isJsonObject(fields)) {
          throw new InvalidPlan(`${key}: patch '${entryKey}' must be an object`);
        }
      }
    }
    if (getOwn(change, "rename") !== undefined) {
      const renamed = section(change, "rename", `${key}: `);
      if (!Object.values(renamed).every((value) => typeof value === "string")) {
        throw new InvalidPlan(`${key}: 'rename' must map keys to keys`);
      }
    }
    const xor = getOwn(change, "xor");
    if (xor !== undefined && !(Array.isArray(xor) && xor.every(isXorGroup))) {
      throw new InvalidPlan(`${key}: 'xor' must be a list of groups of a field, an id and keys`);
    }
    const removed: JsonValue | undefined = getOwn(change, "remove");
    if (
      removed !== undefined &&
      (!Array.isArray(removed) || !removed.every((item) => typeof item === "string"))
    ) {
      throw new InvalidPlan(`${key}: 'remove' must be a list of keys`);
    }
  }
  const ok = getOwn(raw, "ok");
  if (ok !== undefined && typeof ok !== "boolean") {
    throw new InvalidPlan("'ok' must be true or false");
  }
  const diagnostics = getOwn(raw, "diagnostics");
  if (diagnostics !== undefined && !Array.isArray(diagnostics)) {
    throw new InvalidPlan("'diagnostics' must be a list");
  }
  return raw;
}

/** The longest run of keys a delta may name: a bound on the work one message asks for. */
const MAX_RUN = 1_000_000;

function isKeyRun(value: JsonValue): boolean {
  if (typeof value === "string" || Number.isSafeInteger(value)) {
    return true;
  }
  if (!Array.isArray(value) || value.length !== 2) {
    return false;
  }
  const [first, last] = value as readonly JsonValue[];
  return (
    typeof first === "number" &&
    typeof last === "number" &&
    Number.isSafeInteger(first) &&
    Number.isSafeInteger(last) &&
    last >= first &&
    last - first <= MAX_RUN
  );
}

function isXorGroup(value: JsonValue): boolean {
  if (!isJsonObject(value)) {
    return false;
  }
  const by = getOwn(value, "by");
  const keys = getOwn(value, "keys");
  return (
    typeof getOwn(value, "field") === "string" &&
    typeof by === "string" &&
    HEX_ID.test(by) &&
    Array.isArray(keys) &&
    keys.every(isKeyRun)
  );
}

/** The plan entry of the node with this id, if the plan has one. */
export function planNode(plan: LivePlan, nodeId: number): PlanNode | undefined {
  return Object.hasOwn(plan.nodes, String(nodeId)) ? plan.nodes[String(nodeId)] : undefined;
}

/** The plan entry of the edge at this index of the edge list, if the plan has one. */
export function planEdge(plan: LivePlan, index: number): PlanEdge | undefined {
  return Object.hasOwn(plan.edges, String(index)) ? plan.edges[String(index)] : undefined;
}
