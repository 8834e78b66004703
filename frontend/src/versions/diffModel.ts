/**
 * What the diff page draws and says, from the two documents and the server's
 * `plandiff/v1`: every node and edge of the new version plus the removed ones
 * of the old version (drawn where they were, ghosted), each classified as
 * added, removed, changed or unchanged; and the savepoint verdict in words.
 *
 * Edges are keyed as the server keys them (source, target, typeNumber and
 * the ordinal among edges with those three), so added and removed edges are
 * exactly the keys one document has and the other lacks.
 */

import type {
  FieldChange,
  OperatorStateVerdict,
  PlanDiff,
  StateVerdict,
  VersionRef,
} from "../api/resources";
import { NODE_HEIGHT, NODE_WIDTH } from "../canvas/geometry";
import { toCanvas, type CanvasPosition } from "../graph/canvas";
import { jsonEqual, type JsonValue } from "../graph/json";
import type { StreamEdge, StreamGraphDocument, StreamNode } from "../graph/streamgraph";
import { versionLabel } from "./history";

export type ChangeKind = "added" | "removed" | "changed" | "unchanged";

export interface DiffNode {
  readonly id: string;
  readonly node: StreamNode;
  readonly position: CanvasPosition;
  readonly change: ChangeKind;
  readonly fields: readonly FieldChange[];
  /** The state verdict of a stateful operator. */
  readonly savepoint: OperatorStateVerdict | null;
}

export interface DiffEdge {
  /** The canvas edge id (`source-target-typeNumber-k`). */
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly edge: StreamEdge;
  readonly change: ChangeKind;
  readonly fields: readonly FieldChange[];
}

export interface DiffGraph {
  readonly nodes: readonly DiffNode[];
  readonly edges: readonly DiffEdge[];
  readonly counts: Readonly<Record<ChangeKind, number>>;
}

function fieldValue(element: object, field: string): JsonValue {
  const value = (element as Record<string, JsonValue | undefined>)[field];
  return value ?? null;
}

/** Whether `changes` describe the step from `before` to `after`. */
function describes(changes: readonly FieldChange[], before: object, after: object): boolean {
  return changes.every(
    (change) =>
      jsonEqual(fieldValue(before, change.field), change.old) &&
      jsonEqual(fieldValue(after, change.field), change.new),
  );
}

/**
 * The field changes of each edge both documents have, by canvas id. The server
 * lists changed edges in the new edge-list order without their ordinal; an
 * entry goes to the first edge left with its source, target and typeNumber
 * whose values it describes.
 */
function changedEdges(
  oldEdges: ReadonlyMap<string, StreamEdge>,
  newEdges: readonly { id: string; edge: StreamEdge; key: readonly number[] }[],
  diff: PlanDiff,
): Map<string, readonly FieldChange[]> {
  const result = new Map<string, readonly FieldChange[]>();
  for (const entry of diff.streamGraph.edges.changed) {
    const match = newEdges.find(
      ({ id, edge, key }) =>
        !result.has(id) &&
        key[0] === entry.source &&
        key[1] === entry.target &&
        key[2] === entry.typeNumber &&
        oldEdges.has(id) &&
        describes(entry.fields, oldEdges.get(id) ?? {}, edge),
    );
    if (match !== undefined) {
      result.set(match.id, entry.fields);
    }
  }
  return result;
}

function countOf(items: readonly { change: ChangeKind }[]): Record<ChangeKind, number> {
  const counts: Record<ChangeKind, number> = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  for (const item of items) {
    counts[item.change] += 1;
  }
  return counts;
}

/** Space kept between a removed node and the nodes around it. */
const CLEARANCE = 16;

function overlaps(a: CanvasPosition, b: CanvasPosition): boolean {
  return (
    Math.abs(a.x - b.x) < NODE_WIDTH + CLEARANCE && Math.abs(a.y - b.y) < NODE_HEIGHT + CLEARANCE
  );
}

/**
 * Where to draw a removed node: where it stood in the old version, or as little below
 * that as keeps it clear of `occupied` (a node replaced by a new one at the same spot
 * would otherwise hide under it).
 */
function clearPosition(
  position: CanvasPosition,
  occupied: readonly CanvasPosition[],
): CanvasPosition {
  let y = position.y;
  // A node that blocked once lies above the candidate for good, so this ends.
  for (;;) {
    const candidate = { x: position.x, y };
    const blocker = occupied.find((other) => overlaps(candidate, other));
    if (blocker === undefined) {
      return candidate;
    }
    y = blocker.y + NODE_HEIGHT + CLEARANCE;
  }
}

/** The new version's graph with the old version's removed elements, each classified. */
export function diffGraph(
  before: StreamGraphDocument,
  after: StreamGraphDocument,
  diff: PlanDiff,
): DiffGraph {
  const oldCanvas = toCanvas(before);
  const newCanvas = toCanvas(after);
  const added = new Set(diff.streamGraph.nodes.added);
  const removed = new Set(diff.streamGraph.nodes.removed);
  const changed = new Map(
    diff.streamGraph.nodes.changed.map((entry) => [entry.node, entry.fields]),
  );
  const savepoint = new Map(
    (diff.savepoint?.operators ?? []).flatMap((entry) =>
      entry.node === null ? [] : [[entry.node, entry] as const],
    ),
  );

  const nodes: DiffNode[] = newCanvas.nodes.map((item) => {
    const id = item.data.node.id;
    const fields = changed.get(id) ?? [];
    return {
      id: item.id,
      node: item.data.node,
      position: item.position,
      change: added.has(id) ? "added" : fields.length > 0 ? "changed" : "unchanged",
      fields,
      savepoint: savepoint.get(id) ?? null,
    };
  });
  const occupied = nodes.map((node) => node.position);
  for (const item of oldCanvas.nodes) {
    if (removed.has(item.data.node.id)) {
      const position = clearPosition(item.position, occupied);
      occupied.push(position);
      nodes.push({
        id: item.id,
        node: item.data.node,
        position,
        change: "removed",
        fields: [],
        savepoint: savepoint.get(item.data.node.id) ?? null,
      });
    }
  }

  const oldEdges = new Map(oldCanvas.edges.map((item) => [item.id, item.data.edge]));
  const newIds = new Set(newCanvas.edges.map((item) => item.id));
  const edgeChanges = changedEdges(
    oldEdges,
    newCanvas.edges.map((item) => ({ id: item.id, edge: item.data.edge, key: item.data.key })),
    diff,
  );
  const edges: DiffEdge[] = newCanvas.edges.map((item) => {
    const fields = edgeChanges.get(item.id) ?? [];
    return {
      id: item.id,
      source: item.source,
      target: item.target,
      edge: item.data.edge,
      change: !oldEdges.has(item.id) ? "added" : fields.length > 0 ? "changed" : "unchanged",
      fields,
    };
  });
  for (const item of oldCanvas.edges) {
    if (!newIds.has(item.id)) {
      edges.push({
        id: item.id,
        source: item.source,
        target: item.target,
        edge: item.data.edge,
        change: "removed",
        fields: [],
      });
    }
  }
  return { nodes, edges, counts: countOf([...nodes, ...edges]) };
}

export type VerdictTone = "ok" | "warning" | "lost" | "unknown";

export interface Verdict {
  readonly tone: VerdictTone;
  readonly title: string;
  readonly details: readonly string[];
}

function hasErrors(diagnostics: PlanDiff["diagnostics"]["old"]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/**
 * Whether a savepoint of `from` restores into `to`, in words: the server's state verdict
 * (the restore check against the savepoint `from` would write) and its counts. No rule of
 * Flink's is decided here.
 */
export function savepointVerdict(diff: PlanDiff, from: VersionRef, to: VersionRef): Verdict {
  const state = diff.savepoint;
  if (state === null) {
    const broken = [
      ...(hasErrors(diff.diagnostics.old) ? [versionLabel(from)] : []),
      ...(hasErrors(diff.diagnostics.new) ? [versionLabel(to)] : []),
    ];
    return {
      tone: "unknown",
      title: "Savepoint compatibility cannot be worked out",
      details: [
        broken.length > 0
          ? `${capitalised(broken.join(" and "))} ${broken.length > 1 ? "have" : "has"} errors: both versions must compile.`
          : "Both versions must compile.",
      ],
    };
  }
  const title = `A savepoint of ${versionLabel(from)}, started as ${versionLabel(to)}: ${lowerFirst(state.verdict)}`;
  const details = [
    `${stateCounts(state)}.`,
    ...startWords(state),
    ...state.warnings.map((w) => capitalised(w.message)),
  ];
  if (state.restores) {
    return { tone: state.warnings.length > 0 ? "warning" : "ok", title, details };
  }
  return { tone: "lost", title, details };
}

function startWords(state: StateVerdict): string[] {
  if (state.restores) {
    return [];
  }
  const flink = state.failure === null ? [] : [`Flink: “${state.failure.message}”`];
  return [
    state.restoresAllowingNonRestoredState
      ? "It starts only with --allowNonRestoredState, which drops the state no operator takes."
      : "It does not start, not even with --allowNonRestoredState.",
    ...flink,
  ];
}

function stateCounts(state: StateVerdict): string {
  const { kept, lost, refused, new: fresh } = state.summary;
  const parts = [
    kept === 0 ? null : `${kept} keep${kept === 1 ? "s its" : " their"} state`,
    lost === 0 ? null : `${lost} lose${lost === 1 ? "s" : ""} it`,
    refused === 0 ? null : `${refused} ${refused === 1 ? "is" : "are"} refused`,
    fresh === 0 ? null : `${fresh} ${fresh === 1 ? "is" : "are"} new`,
  ].filter((part) => part !== null);
  return parts.length === 0
    ? "No stateful operators: there is no state to restore"
    : `Stateful operators: ${parts.join(", ")}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Fields whose -1 is Flink's "not set: the job's default" (`ExecutionConfig.PARALLELISM_DEFAULT`). */
const DEFAULTED_BY_MINUS_ONE = new Set(["parallelism", "maxParallelism"]);

/** A field's value in a change list: `default` for a parallelism left to the job, else
 * as `valueText` says it. */
export function fieldValueText(field: string, value: JsonValue, limit = 60): string {
  return DEFAULTED_BY_MINUS_ONE.has(field) && value === -1 ? "default" : valueText(value, limit);
}

/** A field value in a change list: `(not set)` for null, JSON otherwise, cut at `limit`. */
export function valueText(value: JsonValue, limit = 60): string {
  if (value === null) {
    return "(not set)";
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}
