/**
 * Edit operations on a `streamgraph/v1` document, as `backend/compiler/edits.py`
 * defines them: the same JSON form, the same results and the same rejections.
 *
 * `applyEdit` returns a new document and the edit as applied (an added node
 * carries the id it was given); it never modifies its input and shares every
 * node, edge and nested object the edit does not change. A bad edit throws
 * `EditRejected` with the code, message and location the server would send.
 *
 * Elements are named by stable keys: nodes by id, edges by
 * `[source, target, typeNumber, k]` where k counts the earlier edges with the
 * same three values, fields by dotted paths (`parallelism`, `params.fn`, `ui.x`).
 * Numbers are JSON numbers: an integer is a number without a fraction, and a
 * boolean is never a number.
 */

import {
  cloneJson,
  deleteOwn,
  getOwn,
  isFiniteNumber,
  isInteger,
  isJsonObject,
  pythonRepr,
  setOwn,
  type JsonObject,
  type JsonValue,
  type MutableJsonObject,
} from "./json";
import {
  documentEdges,
  type Diagnostic,
  type StreamEdge,
  type StreamEdgeFields,
  type StreamGraphDocument,
  type StreamNode,
  type StreamNodeFields,
} from "./streamgraph";

export const EDIT_KINDS = [
  "add_node",
  "remove_node",
  "move_node",
  "move_nodes",
  "connect",
  "disconnect",
  "set_field",
  "set_operator",
] as const;
export type EditKind = (typeof EDIT_KINDS)[number];

export const ELEMENT_KINDS = ["node", "edge", "config", "document"] as const;
export type ElementKind = (typeof ELEMENT_KINDS)[number];

/** `[source, target, typeNumber, k]`. */
export type EdgeKey = readonly [source: number, target: number, typeNumber: number, k: number];

/** A node to add: any streamgraph/v1 node fields; a missing or taken `id` is assigned. */
export interface NodeInput extends StreamNodeFields {
  readonly id?: number;
  readonly name?: string;
  readonly [key: string]: JsonValue;
}

/** An edge to add; `partitioner`, `exchangeMode`, `typeNumber` and `sideOutputTag` default. */
export interface EdgeInput extends StreamEdgeFields {
  readonly source: number;
  readonly target: number;
  readonly [key: string]: JsonValue;
}

/**
 * The edge into a node being added (`add_node`'s `edge`): from `source`, an existing
 * node, to the new node whatever id it gets, so it has no `target`.
 */
export interface InboundEdgeInput extends StreamEdgeFields {
  readonly source: number;
  readonly [key: string]: JsonValue;
}

/** A node, and optionally an edge into it: one edit, one revision, one undo step. */
export interface AddNodeEdit {
  readonly kind: "add_node";
  readonly node: NodeInput;
  readonly edge?: InboundEdgeInput;
}

export interface RemoveNodeEdit {
  readonly kind: "remove_node";
  readonly nodeId: number;
}

export interface MoveNodeEdit {
  readonly kind: "move_node";
  readonly nodeId: number;
  readonly x: number;
  readonly y: number;
}

/**
 * Where one node of a `move_nodes` edit goes; x and y both null remove its stored
 * position (it is drawn on the grid again), which undoes a layout of nodes that had none.
 */
export interface NodeMove {
  readonly nodeId: number;
  readonly x: number | null;
  readonly y: number | null;
}

/** Many nodes moved as one edit (an auto-layout, its undo): one revision, one undo step. */
export interface MoveNodesEdit {
  readonly kind: "move_nodes";
  readonly moves: readonly NodeMove[];
}

/**
 * A node's operator kind changed with its parameters replaced whole (the catalog's
 * defaults for the new kind, say); id, name, uids, parallelism and edges stay.
 */
export interface SetOperatorEdit {
  readonly kind: "set_operator";
  readonly nodeId: number;
  readonly operator: string;
  readonly params: JsonObject;
}

export interface ConnectEdit {
  readonly kind: "connect";
  readonly edge: EdgeInput;
}

export interface DisconnectEdit {
  readonly kind: "disconnect";
  readonly edgeKey: EdgeKey;
}

export interface SetNodeFieldEdit {
  readonly kind: "set_field";
  readonly element: "node";
  readonly nodeId: number;
  readonly field: string;
  /** null removes a nested key (`params.fn`); at the top level it is the value null. */
  readonly value: JsonValue;
}

export interface SetEdgeFieldEdit {
  readonly kind: "set_field";
  readonly element: "edge";
  readonly edgeKey: EdgeKey;
  readonly field: string;
  readonly value: JsonValue;
}

export interface SetConfigOrDocumentFieldEdit {
  readonly kind: "set_field";
  readonly element: "config" | "document";
  readonly field: string;
  readonly value: JsonValue;
}

export type SetFieldEdit = SetNodeFieldEdit | SetEdgeFieldEdit | SetConfigOrDocumentFieldEdit;

/** An edit in its JSON form (`Edit.to_json` / `Edit.from_json`). */
export type Edit =
  | AddNodeEdit
  | RemoveNodeEdit
  | MoveNodeEdit
  | MoveNodesEdit
  | ConnectEdit
  | DisconnectEdit
  | SetFieldEdit
  | SetOperatorEdit;

/** An edit as applied: an added node has its id and defaults, an added edge its defaults. */
export type AppliedEdit =
  | { readonly kind: "add_node"; readonly node: StreamNode; readonly edge?: InboundEdgeInput }
  | { readonly kind: "connect"; readonly edge: StreamEdge }
  | RemoveNodeEdit
  | MoveNodeEdit
  | MoveNodesEdit
  | DisconnectEdit
  | SetFieldEdit
  | SetOperatorEdit;

export interface ApplyResult {
  readonly document: StreamGraphDocument;
  readonly applied: AppliedEdit;
}

interface Location {
  readonly node?: number | null;
  readonly edge?: number | null;
  readonly field?: string | null;
}

/** An edit that cannot be applied; nothing was changed. */
export class EditRejected extends Error {
  readonly code: string;
  readonly node: number | null;
  readonly edge: number | null;
  readonly field: string | null;

  constructor(code: string, message: string, where: Location = {}) {
    super(message);
    this.name = "EditRejected";
    this.code = code;
    this.node = where.node ?? null;
    this.edge = where.edge ?? null;
    this.field = where.field ?? null;
  }

  /** The diagnostic the server puts in an `edit_rejected` for this rejection. */
  toDiagnostic(): Diagnostic {
    return {
      code: this.code,
      severity: "error",
      message: this.message,
      node: this.node,
      edge: this.edge,
      field: this.field,
    };
  }
}

function nodeDefaults(): MutableJsonObject {
  return {
    operator: "map",
    params: {},
    parallelism: -1,
    maxParallelism: -1,
    chainingStrategy: "ALWAYS",
    slotSharingGroup: null,
    coLocationGroup: null,
    uid: null,
    uidHash: null,
    factory: "OPERATOR",
    ui: {},
  };
}

function edgeDefaults(): MutableJsonObject {
  return {
    partitioner: null, // none chosen: Flink's default, FORWARD or REBALANCE by parallelism
    exchangeMode: "UNDEFINED",
    typeNumber: 0,
    sideOutputTag: null,
  };
}

const PROTECTED_FIELDS: Readonly<Record<ElementKind, readonly string[]>> = {
  node: ["id"],
  edge: ["source", "target"],
  config: [],
  document: ["format", "nodes", "edges"],
};

/** The parts of an edit as `Edit.from_json` reads them (any may be missing). */
interface EditParts {
  readonly kind: EditKind;
  readonly node: JsonObject | null;
  readonly nodeId: number | null;
  readonly edge: JsonObject | null;
  readonly edgeKey: EdgeKey | null;
  readonly element: ElementKind | null;
  readonly field: string | null;
  readonly value: JsonValue;
  readonly x: number | null;
  readonly y: number | null;
  readonly operator: string | null;
  readonly params: JsonObject | null;
  readonly moves: readonly NodeMove[] | null;
}

const MOVES_SHAPE = "'moves' must be a list of {nodeId, x, y}, each node once";

/**
 * `_read_moves`: `moves` of a `move_nodes` edit, each node at most once; x and y are
 * numbers, or both null to remove the node's position.
 */
function readMoves(raw: JsonValue | undefined): NodeMove[] | null {
  if (raw === undefined) {
    return null;
  }
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new EditRejected("edit.moves", MOVES_SHAPE);
  }
  const moves: NodeMove[] = [];
  const seen = new Set<number>();
  for (const move of raw as readonly JsonValue[]) {
    if (!isJsonObject(move)) {
      throw new EditRejected("edit.moves", MOVES_SHAPE);
    }
    const nodeId = getOwn(move, "nodeId");
    const x = getOwn(move, "x");
    const y = getOwn(move, "y");
    if (!isInteger(nodeId) || seen.has(nodeId)) {
      throw new EditRejected("edit.moves", MOVES_SHAPE);
    }
    const unset = x === null && y === null;
    if (!unset && (typeof x !== "number" || typeof y !== "number")) {
      throw new EditRejected(
        "edit.position",
        `the move of node ${nodeId} needs numbers x, y, or null for both`,
      );
    }
    seen.add(nodeId);
    moves.push(unset ? { nodeId, x: null, y: null } : { nodeId, x, y });
  }
  return moves;
}

function isEditKind(value: unknown): value is EditKind {
  return typeof value === "string" && (EDIT_KINDS as readonly string[]).includes(value);
}

function isElementKind(value: unknown): value is ElementKind {
  return typeof value === "string" && (ELEMENT_KINDS as readonly string[]).includes(value);
}

/** `data.get(name)` in Python: a missing key and null are both "not given". */
function given(data: JsonObject, name: string): JsonValue | undefined {
  const value = getOwn(data, name);
  return value === null ? undefined : value;
}

/** `Edit.from_json`: the parts of an edit, checked in the same order with the same codes. */
function readParts(data: unknown): EditParts {
  if (!isJsonObject(data)) {
    throw new EditRejected("edit.malformed", "an edit must be an object");
  }
  const kind = getOwn(data, "kind");
  if (!isEditKind(kind)) {
    throw new EditRejected(
      "edit.kind",
      `'kind' must be one of ${EDIT_KINDS.join(", ")}, got ${pythonRepr(kind)}`,
    );
  }
  const rawKey = given(data, "edgeKey");
  let edgeKey: EdgeKey | null = null;
  if (rawKey !== undefined) {
    if (!Array.isArray(rawKey) || rawKey.length !== 4 || !rawKey.every(isInteger)) {
      throw new EditRejected("edit.edge-key", "'edgeKey' must be [source, target, typeNumber, k]");
    }
    const [source = 0, target = 0, typeNumber = 0, k = 0] = rawKey as readonly number[];
    edgeKey = [source, target, typeNumber, k];
  }
  const nodeId = given(data, "nodeId");
  if (nodeId !== undefined && !isInteger(nodeId)) {
    throw new EditRejected("edit.node-id", "'nodeId' must be an integer");
  }
  for (const name of ["node", "edge"]) {
    const value = given(data, name);
    if (value !== undefined && !isJsonObject(value)) {
      throw new EditRejected("edit.malformed", `'${name}' must be an object`);
    }
  }
  const element = given(data, "element");
  if (element !== undefined && !isElementKind(element)) {
    throw new EditRejected("edit.element", "'element' must be node, edge, config or document");
  }
  const field = given(data, "field");
  if (field !== undefined && (typeof field !== "string" || field.split(".").includes(""))) {
    throw new EditRejected("edit.field", "'field' must be a dotted path of non-empty names");
  }
  for (const name of ["x", "y"]) {
    const value = given(data, name);
    if (value !== undefined && typeof value !== "number") {
      throw new EditRejected("edit.position", `'${name}' must be a number`);
    }
  }
  const x = given(data, "x");
  const y = given(data, "y");
  const operator = given(data, "operator");
  if (operator !== undefined && typeof operator !== "string") {
    throw new EditRejected("edit.operator", "'operator' must be a string");
  }
  const params = given(data, "params");
  if (params !== undefined && !isJsonObject(params)) {
    throw new EditRejected("edit.malformed", "'params' must be an object");
  }
  const moves = readMoves(given(data, "moves"));
  return {
    kind,
    node: (given(data, "node") as JsonObject | undefined) ?? null,
    nodeId: nodeId ?? null,
    edge: (given(data, "edge") as JsonObject | undefined) ?? null,
    edgeKey,
    element: element ?? null,
    field: field ?? null,
    value: getOwn(data, "value") ?? null,
    x: typeof x === "number" ? x : null,
    y: typeof y === "number" ? y : null,
    operator: operator ?? null,
    params: params ?? null,
    moves,
  };
}

function required<T>(value: T | null, kind: EditKind, name: string): T {
  if (value === null) {
    throw new EditRejected("edit.malformed", `${kind} needs '${name}'`);
  }
  return value;
}

/**
 * The checks of `apply_edit` that do not depend on the document, in its order:
 * what each kind needs, a new node's name, and the fields `set_field` may not set.
 */
function toEdit(parts: EditParts): Edit {
  switch (parts.kind) {
    case "add_node": {
      const node = required(parts.node, "add_node", "node");
      const name = getOwn(node, "name");
      if (typeof name !== "string" || !name) {
        throw new EditRejected("edit.node-name", "a new node needs a non-empty 'name'", {
          field: "name",
        });
      }
      return parts.edge === null
        ? { kind: "add_node", node }
        : { kind: "add_node", node, edge: parts.edge as InboundEdgeInput };
    }
    case "remove_node":
      return { kind: "remove_node", nodeId: required(parts.nodeId, "remove_node", "nodeId") };
    case "move_node": {
      const nodeId = required(parts.nodeId, "move_node", "nodeId");
      if (parts.x === null || parts.y === null) {
        throw new EditRejected("edit.position", "move_node needs 'x' and 'y'", { node: nodeId });
      }
      return { kind: "move_node", nodeId, x: parts.x, y: parts.y };
    }
    case "move_nodes":
      return { kind: "move_nodes", moves: required(parts.moves, "move_nodes", "moves") };
    case "set_operator": {
      const nodeId = required(parts.nodeId, "set_operator", "nodeId");
      if (parts.operator === null || parts.params === null) {
        throw new EditRejected("edit.malformed", "set_operator needs 'operator' and 'params'", {
          node: nodeId,
        });
      }
      return { kind: "set_operator", nodeId, operator: parts.operator, params: parts.params };
    }
    case "connect":
      return { kind: "connect", edge: required(parts.edge, "connect", "edge") as EdgeInput };
    case "disconnect":
      return { kind: "disconnect", edgeKey: required(parts.edgeKey, "disconnect", "edgeKey") };
    case "set_field": {
      const { element, field, value } = parts;
      if (element === null || field === null) {
        throw new EditRejected("edit.malformed", "set_field needs 'element' and 'field'");
      }
      const head = field.split(".")[0] ?? field;
      if (PROTECTED_FIELDS[element].includes(head)) {
        throw new EditRejected(
          "edit.field",
          `'${field}' of a ${element} cannot be set; use the dedicated edit`,
          { field },
        );
      }
      if (element === "node") {
        const nodeId = required(parts.nodeId, "set_field", "nodeId");
        return { kind: "set_field", element, nodeId, field, value };
      }
      if (element === "edge") {
        const edgeKey = required(parts.edgeKey, "set_field", "edgeKey");
        return { kind: "set_field", element, edgeKey, field, value };
      }
      return { kind: "set_field", element, field, value };
    }
  }
}

/**
 * An edit from its JSON form (an `edit` received from the server, or any untrusted
 * value): `Edit.from_json` and the checks `apply_edit` makes before it looks at the
 * document. Throws `EditRejected` with the server's code.
 */
export function parseEdit(data: unknown): Edit {
  return toEdit(readParts(data));
}

function nodeIndex(nodes: readonly StreamNode[], nodeId: number): number {
  const index = nodes.findIndex((node) => getOwn(node, "id") === nodeId);
  if (index < 0) {
    throw new EditRejected("edit.unknown-node", `there is no node ${nodeId}`, { node: nodeId });
  }
  return index;
}

function sameKey(a: EdgeKey, b: EdgeKey): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
}

/** The key of every edge, in edge-list order. */
export function edgeKeys(document: StreamGraphDocument): EdgeKey[] {
  const seen = new Map<string, number>();
  return documentEdges(document).map((edge) => {
    const typeNumber = Object.hasOwn(edge, "typeNumber") ? getOwn(edge, "typeNumber") : 0;
    const base = [getOwn(edge, "source") ?? null, getOwn(edge, "target") ?? null, typeNumber];
    const id = JSON.stringify(base);
    const k = seen.get(id) ?? 0;
    seen.set(id, k + 1);
    return [...base, k] as unknown as EdgeKey;
  });
}

/** The position of the edge named `key` in the edge list. */
export function edgeIndex(document: StreamGraphDocument, key: EdgeKey): number {
  const index = edgeKeys(document).findIndex((candidate) => sameKey(candidate, key));
  if (index < 0) {
    throw new EditRejected(
      "edit.unknown-edge",
      `there is no edge ${key[0]} -> ${key[1]} (typeNumber ${key[2]}, #${key[3]})`,
    );
  }
  return index;
}

/** Set `path` in `target` (a fresh copy), copying every nested object on the way. */
function setPath(target: MutableJsonObject, path: string, value: JsonValue, where: Location): void {
  const parts = path.split(".");
  const last = parts.pop() ?? path;
  let current = target;
  for (const part of parts) {
    const child = getOwn(current, part);
    let next: MutableJsonObject;
    if (child === undefined || child === null) {
      next = {};
    } else if (isJsonObject(child)) {
      next = { ...child };
    } else {
      throw new EditRejected("edit.field", `'${part}' is not an object, cannot set '${path}'`, {
        ...where,
        field: path,
      });
    }
    setOwn(current, part, next);
    current = next;
  }
  if (value === null && parts.length > 0) {
    deleteOwn(current, last); // null removes a nested key (params, ui, meta)
  } else {
    setOwn(current, last, value);
  }
}

/**
 * The edge of an `add_node` into its new node, with the edge defaults: from a node
 * already in `nodes`, and without a `target` (the id the new node gets).
 */
function inboundEdge(nodes: readonly StreamNode[], edge: InboundEdgeInput): InboundEdgeInput {
  const inbound: MutableJsonObject = { ...edgeDefaults(), ...cloneJson(edge) };
  if (Object.hasOwn(inbound, "target")) {
    throw new EditRejected(
      "edit.edge",
      "the edge of add_node goes to the new node: leave out 'target'",
      { field: "target" },
    );
  }
  const source = getOwn(inbound, "source");
  if (!isInteger(source)) {
    throw new EditRejected("edit.edge", "the edge needs an integer 'source'", {
      field: "source",
    });
  }
  nodeIndex(nodes, source);
  return inbound as InboundEdgeInput;
}

/** Put the node at `index` at (x, y): a copy of it with a copy of its `ui`. */
/**
 * Put the node at `index` at (x, y). With x and y null, remove its `ui.x` and `ui.y`, as
 * `set_field` of each to null does.
 */
function moveNode(nodes: StreamNode[], index: number, x: number | null, y: number | null): void {
  const node: MutableJsonObject = { ...nodes[index] };
  const ui = getOwn(node, "ui");
  const kept: MutableJsonObject = { ...(isJsonObject(ui) ? ui : {}) };
  if (x === null || y === null) {
    deleteOwn(kept, "x");
    deleteOwn(kept, "y");
    setOwn(node, "ui", kept);
  } else {
    setOwn(node, "ui", { ...kept, x, y });
  }
  nodes[index] = node as StreamNode;
}

/** The JSON-form parts of an edit built in code, read back as `Edit.from_json` would. */
function partsOf(edit: Edit): EditParts {
  return readParts(edit);
}

/**
 * The document after `edit`, and the edit as applied (e.g. with its assigned node id).
 *
 * Copy on write: the result shares every node, edge and nested object the edit does
 * not change with `document`, and neither is ever modified in place.
 */
export function applyEdit(document: StreamGraphDocument, edit: Edit): ApplyResult {
  const checked = toEdit(partsOf(edit));
  const nodes: StreamNode[] = [...document.nodes];
  const edges: StreamEdge[] = [...documentEdges(document)];
  const result: MutableJsonObject = { ...document, nodes, edges };
  const done = (applied: AppliedEdit): ApplyResult => ({
    document: result as StreamGraphDocument,
    applied,
  });
  switch (checked.kind) {
    case "add_node": {
      const node: MutableJsonObject = { ...nodeDefaults(), ...cloneJson(checked.node) };
      const taken = new Set(nodes.map((existing) => getOwn(existing, "id")));
      const id = getOwn(node, "id");
      if (!isInteger(id) || taken.has(id) || id <= 0) {
        let highest = 0;
        let any = false;
        for (const existing of taken) {
          if (isInteger(existing) && (!any || existing > highest)) {
            highest = existing;
            any = true;
          }
        }
        setOwn(node, "id", (any ? highest : 0) + 1);
      }
      const inbound = checked.edge === undefined ? null : inboundEdge(nodes, checked.edge);
      const added = node as StreamNode;
      nodes.push(added);
      if (inbound === null) {
        return done({ kind: "add_node", node: added });
      }
      edges.push({ ...inbound, target: added.id });
      return done({ kind: "add_node", node: added, edge: inbound });
    }
    case "remove_node": {
      nodes.splice(nodeIndex(nodes, checked.nodeId), 1);
      result.edges = edges.filter(
        (edge) =>
          getOwn(edge, "source") !== checked.nodeId && getOwn(edge, "target") !== checked.nodeId,
      );
      return done(checked);
    }
    case "move_node": {
      moveNode(nodes, nodeIndex(nodes, checked.nodeId), checked.x, checked.y);
      return done(checked);
    }
    case "move_nodes": {
      // Every node is looked up before any moves: an unknown one refuses the whole edit.
      const indexes = checked.moves.map((move) => nodeIndex(nodes, move.nodeId));
      checked.moves.forEach((move, i) => {
        moveNode(nodes, indexes[i] ?? -1, move.x, move.y);
      });
      return done(checked);
    }
    case "set_operator": {
      const index = nodeIndex(nodes, checked.nodeId);
      // Only the kind and its parameters: id, name, uids, parallelism and edges stay.
      const node: MutableJsonObject = { ...nodes[index] };
      setOwn(node, "operator", checked.operator);
      setOwn(node, "params", cloneJson(checked.params));
      nodes[index] = node as StreamNode;
      return done(checked);
    }
    case "connect": {
      const edge: MutableJsonObject = { ...edgeDefaults(), ...cloneJson(checked.edge) };
      for (const end of ["source", "target"]) {
        const id = getOwn(edge, end);
        if (!isInteger(id)) {
          throw new EditRejected("edit.edge", `the edge needs an integer '${end}'`, {
            field: end,
          });
        }
        nodeIndex(nodes, id);
      }
      const added = edge as StreamEdge;
      edges.push(added);
      return done({ kind: "connect", edge: added });
    }
    case "disconnect": {
      edges.splice(edgeIndex(document, checked.edgeKey), 1);
      return done(checked);
    }
    case "set_field": {
      const value = cloneJson(checked.value);
      if (checked.element === "node") {
        const index = nodeIndex(nodes, checked.nodeId);
        const node: MutableJsonObject = { ...nodes[index] };
        setPath(node, checked.field, value, { node: checked.nodeId });
        nodes[index] = node as StreamNode;
      } else if (checked.element === "edge") {
        const index = edgeIndex(document, checked.edgeKey);
        const edge: MutableJsonObject = { ...edges[index] };
        setPath(edge, checked.field, value, { edge: index });
        edges[index] = edge as StreamEdge;
      } else if (checked.element === "config") {
        const config = getOwn(result, "config");
        const copy: MutableJsonObject = isJsonObject(config) ? { ...config } : {};
        setOwn(result, "config", copy);
        setPath(copy, checked.field, value, {});
      } else {
        setPath(result, checked.field, value, {});
      }
      return done(checked);
    }
  }
}

/**
 * False for edits to what compilation ignores (a node's `params`, `ui` and
 * `operator`, the document's `meta` and `ui`): the plan after such an edit is the
 * plan before it. `Edit.affects_plan`.
 */
export function affectsPlan(edit: Edit): boolean {
  if (edit.kind === "move_node" || edit.kind === "move_nodes" || edit.kind === "set_operator") {
    return false;
  }
  if (edit.kind !== "set_field") {
    return true;
  }
  const { field } = edit;
  if (edit.element === "node") {
    return !(
      field.startsWith("params.") ||
      field.startsWith("ui.") ||
      (field === "operator" && typeof edit.value === "string")
    );
  }
  if (edit.element === "document") {
    return !(field.startsWith("meta.") || field.startsWith("ui."));
  }
  return true;
}

/** The value read at a top-level key when the document leaves it out (`compiler.document`). */
const READ_DEFAULTS: Readonly<Record<ElementKind, Readonly<Record<string, JsonValue>>>> = {
  node: {
    operator: "",
    params: {},
    ui: {},
    parallelism: -1,
    maxParallelism: -1,
    chainingStrategy: "ALWAYS",
    factory: "OPERATOR",
  },
  edge: { exchangeMode: "UNDEFINED", typeNumber: 0 },
  config: {
    chainingEnabled: true,
    defaultParallelism: 1,
    maxParallelism: -1,
    runtimeMode: "STREAMING",
    chainOperatorsWithDifferentMaxParallelism: true,
  },
  document: { name: "", config: {} },
};

function valueAt(object: JsonValue | undefined, path: readonly string[]): JsonValue | undefined {
  let current = object;
  for (const part of path) {
    if (!isJsonObject(current)) {
      return undefined;
    }
    current = getOwn(current, part);
  }
  return current;
}

/** What a set_field must set to put `field` back as it was in `before` (`undefined`: absent). */
function restoringValue(
  element: ElementKind,
  field: string,
  before: JsonValue | undefined,
): JsonValue {
  if (before !== undefined) {
    return before;
  }
  if (field.includes(".")) {
    return null; // removes the nested key again
  }
  return getOwn(READ_DEFAULTS[element], field) ?? null;
}

function nodeById(document: StreamGraphDocument, nodeId: number): StreamNode {
  const node = document.nodes[nodeIndex(document.nodes, nodeId)];
  if (node === undefined) {
    throw new EditRejected("edit.unknown-node", `there is no node ${nodeId}`, { node: nodeId });
  }
  return node;
}

/** Whether the node had neither `ui.x` nor `ui.y` (null counts as none). */
function hadNoPosition(before: StreamGraphDocument, nodeId: number): boolean {
  const ui = getOwn(nodeById(before, nodeId), "ui");
  const x = isJsonObject(ui) ? getOwn(ui, "x") : undefined;
  const y = isJsonObject(ui) ? getOwn(ui, "y") : undefined;
  return (x === undefined || x === null) && (y === undefined || y === null);
}

/**
 * Where a node was in `before`: the move back when it had both `ui.x` and `ui.y`, else
 * the set_field edits that put each back as it was (removed when it had none).
 */
function positionBefore(
  before: StreamGraphDocument,
  nodeId: number,
):
  | { readonly move: NodeMove & { readonly x: number; readonly y: number } }
  | { readonly unset: Edit[] } {
  const ui = getOwn(nodeById(before, nodeId), "ui");
  const x = isJsonObject(ui) ? getOwn(ui, "x") : undefined;
  const y = isJsonObject(ui) ? getOwn(ui, "y") : undefined;
  if (isFiniteNumber(x) && isFiniteNumber(y)) {
    return { move: { nodeId, x, y } };
  }
  return {
    unset: [
      { kind: "set_field", element: "node", nodeId, field: "ui.x", value: x ?? null },
      { kind: "set_field", element: "node", nodeId, field: "ui.y", value: y ?? null },
    ],
  };
}

/**
 * The edits that undo `applied`, which turned `before` into `after`, in the order to
 * apply them. Exact except for order: a removed node and its edges come back at the
 * end of the node and edge lists (the edit operations only append).
 */
export function inverseEdits(
  before: StreamGraphDocument,
  after: StreamGraphDocument,
  applied: AppliedEdit,
): Edit[] {
  switch (applied.kind) {
    case "add_node":
      return [{ kind: "remove_node", nodeId: applied.node.id }];
    case "remove_node": {
      const node = nodeById(before, applied.nodeId);
      const edges = documentEdges(before).filter(
        (edge) =>
          getOwn(edge, "source") === applied.nodeId || getOwn(edge, "target") === applied.nodeId,
      );
      const [only] = edges;
      if (edges.length === 1 && only?.target === applied.nodeId && only.source !== only.target) {
        // A node fed by one edge comes back with it in one edit, as it was added.
        const inbound: MutableJsonObject = { ...only };
        deleteOwn(inbound, "target");
        return [{ kind: "add_node", node, edge: inbound as InboundEdgeInput }];
      }
      return [
        { kind: "add_node", node },
        ...edges.map((edge): Edit => ({ kind: "connect", edge })),
      ];
    }
    case "move_node": {
      const back = positionBefore(before, applied.nodeId);
      return "move" in back ? [{ kind: "move_node", ...back.move }] : back.unset;
    }
    case "move_nodes": {
      const moves: NodeMove[] = [];
      const unset: Edit[] = [];
      for (const move of applied.moves) {
        const back = positionBefore(before, move.nodeId);
        if ("move" in back) {
          moves.push(back.move);
        } else if (hadNoPosition(before, move.nodeId)) {
          // Back to the grid in the same edit: one revision, however many nodes had none.
          moves.push({ nodeId: move.nodeId, x: null, y: null });
        } else {
          unset.push(...back.unset);
        }
      }
      return moves.length > 0 ? [{ kind: "move_nodes", moves }, ...unset] : unset;
    }
    case "set_operator": {
      // A node without `operator` or `params` reads as "" and {}: restored as those.
      const node = nodeById(before, applied.nodeId);
      const operator = getOwn(node, "operator");
      const params = getOwn(node, "params");
      return [
        {
          kind: "set_operator",
          nodeId: applied.nodeId,
          operator: typeof operator === "string" ? operator : "",
          params: isJsonObject(params) ? params : {},
        },
      ];
    }
    case "connect": {
      const key = edgeKeys(after).at(-1);
      return key === undefined ? [] : [{ kind: "disconnect", edgeKey: key }];
    }
    case "disconnect": {
      const edge = documentEdges(before)[edgeIndex(before, applied.edgeKey)];
      return edge === undefined ? [] : [{ kind: "connect", edge }];
    }
    case "set_field": {
      const path = applied.field.split(".");
      const { element, field } = applied;
      if (element === "node") {
        const old = valueAt(nodeById(before, applied.nodeId), path);
        return [
          {
            kind: "set_field",
            element,
            nodeId: applied.nodeId,
            field,
            value: restoringValue(element, field, old),
          },
        ];
      }
      if (element === "edge") {
        const index = edgeIndex(before, applied.edgeKey);
        const old = valueAt(documentEdges(before)[index], path);
        // The key after the edit: setting `typeNumber` renames the edge.
        const edgeKey = edgeKeys(after)[index] ?? applied.edgeKey;
        return [
          {
            kind: "set_field",
            element,
            edgeKey,
            field,
            value: restoringValue(element, field, old),
          },
        ];
      }
      const root = element === "config" ? getOwn(before, "config") : before;
      const old = valueAt(root, path);
      return [{ kind: "set_field", element, field, value: restoringValue(element, field, old) }];
    }
  }
}

/** `edit` with node ids renamed by `renames` (old id -> new id); the same object if none is. */
export function renameNodes(edit: Edit, renames: ReadonlyMap<number, number>): Edit {
  if (renames.size === 0) {
    return edit;
  }
  const rename = (id: number): number => renames.get(id) ?? id;
  const renameKey = (key: EdgeKey): EdgeKey => [rename(key[0]), rename(key[1]), key[2], key[3]];
  switch (edit.kind) {
    case "add_node": {
      const { id } = edit.node;
      const source = edit.edge?.source;
      if (
        !(id !== undefined && renames.has(id)) &&
        !(source !== undefined && renames.has(source))
      ) {
        return edit;
      }
      const node = id === undefined ? edit.node : { ...edit.node, id: rename(id) };
      return edit.edge === undefined || source === undefined
        ? { ...edit, node }
        : { ...edit, node, edge: { ...edit.edge, source: rename(source) } };
    }
    case "remove_node":
    case "move_node":
    case "set_operator":
      return renames.has(edit.nodeId) ? { ...edit, nodeId: rename(edit.nodeId) } : edit;
    case "move_nodes":
      return edit.moves.some((move) => renames.has(move.nodeId))
        ? { ...edit, moves: edit.moves.map((move) => ({ ...move, nodeId: rename(move.nodeId) })) }
        : edit;
    case "connect": {
      const { source, target } = edit.edge;
      return renames.has(source) || renames.has(target)
        ? { ...edit, edge: { ...edit.edge, source: rename(source), target: rename(target) } }
        : edit;
    }
    case "disconnect":
      return renames.has(edit.edgeKey[0]) || renames.has(edit.edgeKey[1])
        ? { ...edit, edgeKey: renameKey(edit.edgeKey) }
        : edit;
    case "set_field":
      if (edit.element === "node") {
        return renames.has(edit.nodeId) ? { ...edit, nodeId: rename(edit.nodeId) } : edit;
      }
      if (edit.element === "edge") {
        return renames.has(edit.edgeKey[0]) || renames.has(edit.edgeKey[1])
          ? { ...edit, edgeKey: renameKey(edit.edgeKey) }
          : edit;
      }
      return edit;
  }
}
