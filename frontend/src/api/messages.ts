/**
 * The co-editing websocket's messages (docs/COEDITING.md), mirroring the models
 * of `backend/pipelines/events.py` field for field: `ClientMessage` is what the
 * browser sends (`Inbound` there), `ServerMessage` what it receives (`Outbound`).
 *
 * `parseServerMessage` checks a received text before anything uses it: a known
 * `type`, every required field with its type, and the documents, plans and edits
 * inside. Fields the server models fill with defaults may be missing and get the
 * same defaults here.
 */

import { parseEdit, EditRejected, type Edit } from "../graph/edits";
import {
  getOwn,
  isFiniteNumber,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from "../graph/json";
import {
  InvalidPlan,
  parseLivePlan,
  parsePlanDelta,
  type LivePlan,
  type PlanDelta,
} from "../graph/liveplan";
import { parseDocument, type StreamGraphDocument } from "../graph/streamgraph";
import {
  fail,
  integer,
  InvalidData,
  items,
  list,
  object,
  readErrorBody,
  readUser,
  string,
  boolean,
  type ErrorBody,
  type UserRef,
} from "./read";

export type { ErrorBody, UserRef } from "./read";

// Shared parts ------------------------------------------------------------------------

export interface Selection {
  readonly nodes: readonly number[];
  /** Edge keys: `[source, target, typeNumber, k]`. */
  readonly edges: readonly (readonly number[])[];
}

export interface Cursor {
  readonly x: number;
  readonly y: number;
}

export interface PresenceEntry {
  readonly clientId: string;
  readonly user: UserRef;
  readonly role: string;
  readonly selection: Selection;
  readonly cursor: Cursor | null;
}

// Client -> server (`Inbound`) ----------------------------------------------------------

/** The limits the server's models put on what a client sends. */
export const OP_ID_MAX_LENGTH = 100;
/** Selected nodes, and edges, a presence message names (`pipelines.events.SELECTION_LIMIT`). */
export const SELECTION_MAX_ITEMS = 1_000;

export interface EditRequest {
  readonly type: "edit";
  /** Chosen by the client; echoed in `edit_applied` / `edit_rejected`. */
  readonly opId: string;
  /** The document revision the client saw when it made the edit. */
  readonly baseRevision: number;
  readonly edit: Edit;
}

export interface PresenceRequest {
  readonly type: "presence";
  readonly selection: Selection;
  readonly cursor: Cursor | null;
}

export interface ResyncRequest {
  readonly type: "resync";
}

export type ClientMessage = EditRequest | PresenceRequest | ResyncRequest;

// Server -> client (`Outbound`) ---------------------------------------------------------

/** `Snapshot`: sent on joining and on `resync`. */
export interface SnapshotMessage {
  readonly type: "snapshot";
  readonly pipeline: number;
  readonly revision: number;
  readonly document: StreamGraphDocument;
  /** `liveplan/v1` of `document`. */
  readonly plan: LivePlan;
  readonly presence: readonly PresenceEntry[];
  readonly you: PresenceEntry;
}

/** `EditApplied`: to every client of the pipeline, the author included. */
export interface EditAppliedMessage {
  readonly type: "edit_applied";
  /** The revision this edit produced; the previous one is `revision - 1`. */
  readonly revision: number;
  readonly clientId: string;
  readonly user: UserRef;
  readonly opId: string;
  /** The edit as applied (e.g. with the id assigned to a new node). */
  readonly edit: Edit;
  /** True when it was made against an older revision and applied over newer edits. */
  readonly rebased: boolean;
  /** From the plan of `revision - 1` to this revision's. */
  readonly planDelta: PlanDelta;
}

export const REJECTION_REASONS = ["conflict", "invalid", "forbidden"] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** `EditRejected`: only to the author; nothing changed. */
export interface EditRejectedMessage {
  readonly type: "edit_rejected";
  readonly opId: string;
  readonly reason: RejectionReason;
  /** The current revision. */
  readonly revision: number;
  readonly error: ErrorBody;
}

/** `DocumentReplaced`: the working copy was replaced through the REST API. */
export interface DocumentReplacedMessage {
  readonly type: "document_replaced";
  readonly revision: number;
  readonly document: StreamGraphDocument;
  readonly plan: LivePlan;
}

/** `VersionSaved`: someone saved the working copy as a version. */
export interface VersionSavedMessage {
  readonly type: "version_saved";
  readonly number: number;
  /** The working copy's revision that was saved. */
  readonly revision: number;
  readonly message: string;
  readonly user: UserRef;
}

/** `RunStarted`: someone queued a run of a version. */
export interface RunStartedMessage {
  readonly type: "run_started";
  readonly run: number;
  /** The version number. */
  readonly version: number;
  readonly user: UserRef;
}

/** `AccessChanged`: this connection's role changed while it was open (`you` has the new
 * role); without `canEdit` the editor is read-only. */
export interface AccessChangedMessage {
  readonly type: "access_changed";
  readonly you: PresenceEntry;
  readonly canEdit: boolean;
}

/** `PresenceChanged`: a client joined or changed its selection or cursor. */
export interface PresenceMessage {
  readonly type: "presence";
  readonly client: PresenceEntry;
}

/** `PresenceLeft`. */
export interface PresenceLeftMessage {
  readonly type: "presence_left";
  readonly clientId: string;
}

/** `ErrorMessage`: the server could not read a message this client sent. */
export interface ErrorMessage {
  readonly type: "error";
  readonly error: ErrorBody;
}

export type ServerMessage =
  | SnapshotMessage
  | EditAppliedMessage
  | EditRejectedMessage
  | DocumentReplacedMessage
  | VersionSavedMessage
  | RunStartedMessage
  | AccessChangedMessage
  | PresenceMessage
  | PresenceLeftMessage
  | ErrorMessage;

export type ServerMessageType = ServerMessage["type"];

export const SERVER_MESSAGE_TYPES: readonly ServerMessageType[] = [
  "snapshot",
  "edit_applied",
  "edit_rejected",
  "document_replaced",
  "version_saved",
  "run_started",
  "access_changed",
  "presence",
  "presence_left",
  "error",
];

// Building and parsing ------------------------------------------------------------------

export function editRequest(opId: string, baseRevision: number, edit: Edit): EditRequest {
  return { type: "edit", opId, baseRevision, edit };
}

/**
 * What this client has selected, for the others: everyone receives it, so a larger
 * selection is shown to them by its first `SELECTION_MAX_ITEMS` nodes and edges.
 */
export function presenceRequest(selection: Selection, cursor: Cursor | null): PresenceRequest {
  const shown: Selection = {
    nodes: selection.nodes.slice(0, SELECTION_MAX_ITEMS),
    edges: selection.edges.slice(0, SELECTION_MAX_ITEMS),
  };
  return { type: "presence", selection: shown, cursor };
}

export function resyncRequest(): ResyncRequest {
  return { type: "resync" };
}

export function encodeClientMessage(message: ClientMessage): string {
  return JSON.stringify(message);
}

export type ParsedMessage =
  | { readonly ok: true; readonly message: ServerMessage }
  | { readonly ok: false; readonly error: string };

function readSelection(value: unknown, path: string): Selection {
  if (value === undefined) {
    return { nodes: [], edges: [] };
  }
  const raw = object(value, path);
  const nodes = getOwn(raw, "nodes");
  const edges = getOwn(raw, "edges");
  return {
    nodes:
      nodes === undefined
        ? []
        : list(nodes, `${path}.nodes`).map((id, index) => integer(id, `${path}.nodes.${index}`)),
    edges:
      edges === undefined
        ? []
        : list(edges, `${path}.edges`).map((key, index) =>
            list(key, `${path}.edges.${index}`).map((part, at) =>
              integer(part, `${path}.edges.${index}.${at}`),
            ),
          ),
  };
}

function readCursor(value: unknown, path: string): Cursor | null {
  if (value === undefined || value === null) {
    return null;
  }
  const raw = object(value, path);
  const x = getOwn(raw, "x");
  const y = getOwn(raw, "y");
  if (!isFiniteNumber(x)) {
    fail(`${path}.x`, "must be a number");
  }
  if (!isFiniteNumber(y)) {
    fail(`${path}.y`, "must be a number");
  }
  return { x, y };
}

function readPresenceEntry(value: unknown, path: string): PresenceEntry {
  const raw = object(value, path);
  return {
    clientId: string(getOwn(raw, "clientId"), `${path}.clientId`),
    user: readUser(getOwn(raw, "user"), `${path}.user`),
    role: string(getOwn(raw, "role"), `${path}.role`),
    selection: readSelection(getOwn(raw, "selection"), `${path}.selection`),
    cursor: readCursor(getOwn(raw, "cursor"), `${path}.cursor`),
  };
}

function readDocument(value: unknown, path: string): StreamGraphDocument {
  const parsed = parseDocument(value);
  if (!parsed.ok) {
    const first = parsed.diagnostics[0];
    return fail(path, first === undefined ? "is not a streamgraph/v1 document" : first.message);
  }
  return parsed.document;
}

function guarded<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof InvalidPlan || error instanceof EditRejected) {
      return fail(path, error.message);
    }
    throw error;
  }
}

function readMessage(raw: JsonObject, type: ServerMessageType): ServerMessage {
  const field = (key: string): JsonValue | undefined => getOwn(raw, key);
  switch (type) {
    case "snapshot":
      return {
        type,
        pipeline: integer(field("pipeline"), "pipeline"),
        revision: integer(field("revision"), "revision"),
        document: readDocument(field("document"), "document"),
        plan: guarded("plan", () => parseLivePlan(field("plan"))),
        presence: items(field("presence"), "presence", readPresenceEntry),
        you: readPresenceEntry(field("you"), "you"),
      };
    case "edit_applied":
      return {
        type,
        revision: integer(field("revision"), "revision"),
        clientId: string(field("clientId"), "clientId"),
        user: readUser(field("user"), "user"),
        opId: string(field("opId"), "opId"),
        edit: guarded("edit", () => parseEdit(field("edit"))),
        rebased: boolean(field("rebased"), "rebased"),
        planDelta: guarded("planDelta", () => parsePlanDelta(field("planDelta"))),
      };
    case "edit_rejected": {
      const reason = field("reason");
      if (!REJECTION_REASONS.some((known) => known === reason)) {
        fail("reason", `must be one of ${REJECTION_REASONS.join(", ")}`);
      }
      return {
        type,
        opId: string(field("opId"), "opId"),
        reason: reason as RejectionReason,
        revision: integer(field("revision"), "revision"),
        error: readErrorBody(field("error"), "error"),
      };
    }
    case "document_replaced":
      return {
        type,
        revision: integer(field("revision"), "revision"),
        document: readDocument(field("document"), "document"),
        plan: guarded("plan", () => parseLivePlan(field("plan"))),
      };
    case "version_saved":
      return {
        type,
        number: integer(field("number"), "number"),
        revision: integer(field("revision"), "revision"),
        message: string(field("message"), "message"),
        user: readUser(field("user"), "user"),
      };
    case "run_started":
      return {
        type,
        run: integer(field("run"), "run"),
        version: integer(field("version"), "version"),
        user: readUser(field("user"), "user"),
      };
    case "access_changed":
      return {
        type,
        you: readPresenceEntry(field("you"), "you"),
        canEdit: boolean(field("canEdit"), "canEdit"),
      };
    case "presence":
      return { type, client: readPresenceEntry(field("client"), "client") };
    case "presence_left":
      return { type, clientId: string(field("clientId"), "clientId") };
    case "error":
      return { type, error: readErrorBody(field("error"), "error") };
  }
}

function isServerMessageType(value: unknown): value is ServerMessageType {
  return SERVER_MESSAGE_TYPES.some((type) => type === value);
}

/** A message received on the socket, checked; or why it is not one. */
export function parseServerMessage(text: string): ParsedMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: "not JSON" };
  }
  if (!isJsonObject(raw)) {
    return { ok: false, error: "a message must be a JSON object" };
  }
  const type = getOwn(raw, "type");
  if (!isServerMessageType(type)) {
    return { ok: false, error: `unknown message type ${JSON.stringify(type ?? null)}` };
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
