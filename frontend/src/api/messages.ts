/**
 * The co-editing websocket's messages (docs/COEDITING.md). Their types are
 * generated from the models of `backend/pipelines/events.py` (`./generated/wire`,
 * `make wire`): `ClientMessage` is what the browser sends, `ServerMessage` what
 * it receives.
 *
 * `parseServerMessage` checks a received text before anything uses it: a known
 * `type`, every required field with its type, and the documents, plans and edits
 * inside. Fields the server models fill with defaults may be missing and get the
 * same defaults here.
 *
 * The same socket carries team review's messages (`backend/reviews/events.py`:
 * comments, resolutions, review requests, verdicts), read by `reviewMessages.ts` and
 * told apart by `kind`: the editor's session hands them to the review store, the others
 * to the document and session stores.
 */

import { parseEdit, EditRejected, type Edit, type EdgeKey } from "../graph/edits";
import {
  getOwn,
  isFiniteNumber,
  isJsonObject,
  type JsonObject,
  type JsonValue,
} from "../graph/json";
import { InvalidPlan, parseLivePlan, parsePlanDelta } from "../graph/liveplan";
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
} from "./read";
import type * as Wire from "./generated/wire";
import { PIPELINE_SERVER_MESSAGE_TYPES } from "./generated/wire";
import { isReviewMessageType, readReviewMessage, type ReviewMessage } from "./reviewMessages";

export type { ErrorBody, UserRef } from "./read";

// The shapes, generated from `backend/pipelines/events.py` --------------------------------

export type Selection = Wire.Selection;
export type Cursor = Wire.Cursor;
export type PresenceEntry = Wire.PresenceEntry;

/** The limits the server's models put on what a client sends (tests check them against
 * the generated schema). */
export const OP_ID_MAX_LENGTH = 100;
/** Selected nodes, and edges, a presence message names (`pipelines.events.SELECTION_LIMIT`). */
export const SELECTION_MAX_ITEMS = 1_000;

export type EditRequest = Wire.EditRequest;
export type PresenceRequest = Wire.PresenceRequest;
export type ResyncRequest = Wire.ResyncRequest;
/** What the browser sends (`Inbound` there). */
export type ClientMessage = Wire.PipelineClientMessage;

/** Sent on joining and on `resync`. */
export type SnapshotMessage = Wire.Snapshot;
/** To every client of the pipeline, the author included. */
export type EditAppliedMessage = Wire.EditApplied;
/** Only to the author; nothing changed. */
export type EditRejectedMessage = Wire.EditRejected;
export type RejectionReason = EditRejectedMessage["reason"];
/** Every rejection reason (a record, so one the server gains and this lacks does not compile). */
const REASONS: Readonly<Record<RejectionReason, true>> = {
  conflict: true,
  invalid: true,
  forbidden: true,
};
export const REJECTION_REASONS = Object.keys(REASONS) as readonly RejectionReason[];
/** The working copy was replaced through the REST API. */
export type DocumentReplacedMessage = Wire.DocumentReplaced;
export type VersionSavedMessage = Wire.VersionSaved;
export type RunStartedMessage = Wire.RunStarted;
/** This connection's role changed while it was open; without `canEdit` it is read-only. */
export type AccessChangedMessage = Wire.AccessChanged;
/** A client joined or changed its selection or cursor. */
export type PresenceMessage = Wire.PresenceChanged;
export type PresenceLeftMessage = Wire.PresenceLeft;
/** The server could not read a message this client sent. */
export type ErrorMessage = Wire.ErrorMessage;

/** What the browser receives (`Outbound` there). */
export type ServerMessage = Wire.PipelineServerMessage;
export type ServerMessageType = ServerMessage["type"];
export const SERVER_MESSAGE_TYPES: readonly ServerMessageType[] = PIPELINE_SERVER_MESSAGE_TYPES;

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

export type { ReviewMessage } from "./reviewMessages";

export type ParsedMessage =
  /** A message of co-editing (`pipelines/events.py`). */
  | { readonly ok: true; readonly kind: "pipeline"; readonly message: ServerMessage }
  /** A message of team review (`reviews/events.py`). */
  | { readonly ok: true; readonly kind: "review"; readonly message: ReviewMessage }
  | { readonly ok: false; readonly error: string };

function readEdgeKey(value: unknown, path: string): EdgeKey {
  const [source, target, typeNumber, k, ...rest] = items(value, path, integer);
  const complete = source !== undefined && target !== undefined && typeNumber !== undefined;
  if (!complete || k === undefined || rest.length > 0) {
    return fail(path, "must be [source, target, typeNumber, k]");
  }
  return [source, target, typeNumber, k];
}

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
    edges: edges === undefined ? [] : items(edges, `${path}.edges`, readEdgeKey),
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

const ROLES: readonly PresenceEntry["role"][] = ["viewer", "editor", "owner"];

function readRole(value: unknown, path: string): PresenceEntry["role"] {
  const text = string(value, path);
  return ROLES.find((role) => role === text) ?? fail(path, `must be one of ${ROLES.join(", ")}`);
}

function readPresenceEntry(value: unknown, path: string): PresenceEntry {
  const raw = object(value, path);
  return {
    clientId: string(getOwn(raw, "clientId"), `${path}.clientId`),
    user: readUser(getOwn(raw, "user"), `${path}.user`),
    role: readRole(getOwn(raw, "role"), `${path}.role`),
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
  if (isReviewMessageType(type)) {
    return checked(type, () => ({
      ok: true,
      kind: "review",
      message: readReviewMessage(raw, type),
    }));
  }
  if (!isServerMessageType(type)) {
    return { ok: false, error: `unknown message type ${JSON.stringify(type ?? null)}` };
  }
  return checked(type, () => ({ ok: true, kind: "pipeline", message: readMessage(raw, type) }));
}

/** What `read` makes of a message of this type, or where it is not what the server sends. */
function checked(type: string, read: () => ParsedMessage): ParsedMessage {
  try {
    return read();
  } catch (error) {
    if (error instanceof InvalidData) {
      return { ok: false, error: `${type}: ${error.message}` };
    }
    throw error;
  }
}
