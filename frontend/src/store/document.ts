/**
 * The one store that owns the pipeline document being edited.
 *
 * Every change is a named action that builds an `Edit`, applies it to the
 * document at once (optimistically), records how to undo it and hands it to the
 * server through the injected `send`. The server answers every edit: the store
 * keeps the last document it confirmed (`confirmed`, at `revision`) apart from
 * the one shown (`document` = `confirmed` + the `pending` edits), so an edit the
 * server rejects is rolled back by replaying the others, and edits by other
 * clients slot in under the pending ones, as the server orders them. An edit
 * the server would refuse whatever happens meanwhile (an unknown node or edge, a
 * document it could no longer read as a graph) is refused here: the action
 * returns why, and nothing is sent.
 *
 * Sending: each edit goes out at once with `baseRevision` = the confirmed
 * revision plus the edits still pending before it, the revision it will apply
 * to when no one else edits meanwhile. When an earlier edit is rejected the ones
 * after it may be rejected as well; each rejection rolls back only its own edit.
 *
 * Node ids: a node added here gets an id at once; when the server assigns
 * another (someone else took that id first), the undo and redo history follows.
 *
 * The store is plain zustand (`zustand/vanilla`): components subscribe to narrow
 * slices of it, and tests drive it without React.
 */

import { createStore, type StoreApi } from "zustand/vanilla";

import type {
  DocumentReplacedMessage,
  EditAppliedMessage,
  EditRejectedMessage,
  ErrorBody,
  RejectionReason,
  ServerMessage,
  SnapshotMessage,
} from "../api/messages";
import {
  affectsPlan,
  applyEdit,
  edgeIndex,
  EditRejected,
  inverseEdits,
  renameNodes,
  type AppliedEdit,
  type ApplyResult,
  type EdgeInput,
  type EdgeKey,
  type Edit,
  type InboundEdgeInput,
  type NodeInput,
  type NodeMove,
} from "../graph/edits";
import { jsonEqual, type JsonObject, type JsonValue } from "../graph/json";
import { applyPlanDelta, InvalidPlan, type LivePlan } from "../graph/liveplan";
import {
  checkConfig,
  checkDocument,
  checkEdge,
  checkNode,
  documentEdges,
  nodeIdSet,
  type Diagnostic,
  type StreamGraphDocument,
} from "../graph/streamgraph";

/** Hands an edit to the server: an `edit` message with these `baseRevision` and `opId`. */
export type SendEdit = (edit: Edit, baseRevision: number, opId: string) => void;

export interface DocumentStoreOptions {
  readonly send: SendEdit;
  /** Asks the server for a fresh snapshot (a `resync` message) after a missed revision. */
  readonly resync?: () => void;
  /** A new id for every edit sent, unique on the connection (default `op-1`, `op-2`, ...). */
  readonly createOpId?: () => string;
}

/** An edit sent and not yet applied or rejected by the server. */
export interface PendingEdit {
  readonly opId: string;
  /** The edit as sent. */
  readonly edit: Edit;
  readonly baseRevision: number;
  /** The edit as it applies to the shown document; null when it does not apply there now. */
  readonly applied: AppliedEdit | null;
}

/** One step of the undo or redo history. */
export interface HistoryEntry {
  /** The edits that take the step back (undo stack) or again (redo stack), in order. */
  readonly edits: readonly Edit[];
  /** The edits this entry reverses: when the server rejects one, the entry is dropped. */
  readonly opIds: readonly string[];
}

/** An edit the server refused. */
export interface Rejection {
  readonly opId: string;
  readonly reason: RejectionReason;
  readonly error: ErrorBody;
  readonly edit: Edit;
}

export type ActionResult =
  | {
      readonly ok: true;
      /** The opIds the edits were sent with. */
      readonly opIds: readonly string[];
      /** The edits as applied (an added node carries its id). */
      readonly applied: readonly AppliedEdit[];
    }
  | { readonly ok: false; readonly error: EditRejected };

export interface DocumentState {
  readonly pipeline: number | null;
  /** This connection's id (`you.clientId` of the snapshot): how own edits are recognised. */
  readonly clientId: string | null;
  /** The revision of `confirmed`. */
  readonly revision: number;
  /** The document as the server has it at `revision`. */
  readonly confirmed: StreamGraphDocument | null;
  /** The document shown: `confirmed` with the pending edits applied. */
  readonly document: StreamGraphDocument | null;
  /** The plan of `confirmed` (`liveplan/v1`). */
  readonly plan: LivePlan | null;
  readonly pending: readonly PendingEdit[];
  readonly undoStack: readonly HistoryEntry[];
  readonly redoStack: readonly HistoryEntry[];
  /** The last edit refused, for the notice the editor shows; `dismissRejection` clears it. */
  readonly lastRejection: Rejection | null;
  /** A revision was missed; a resync was requested and the next snapshot clears this. */
  readonly outOfSync: boolean;
}

export interface DocumentActions {
  /** Several edits as one step: applied and sent in order, undone together. */
  applyEdits(edits: readonly Edit[]): ActionResult;
  /** A node, with the edge `inbound` into it when given: one edit (`add_node`), one undo step. */
  addOperator(node: NodeInput, inbound?: InboundEdgeInput): ActionResult;
  removeOperator(nodeId: number): ActionResult;
  moveOperator(nodeId: number, x: number, y: number): ActionResult;
  /**
   * Many operators moved as one edit (`move_nodes`: an auto-layout, a dragged
   * selection): one revision on the server and one undo step. No moves, no edit.
   */
  moveOperators(moves: readonly NodeMove[]): ActionResult;
  /** A node's operator kind, with its parameters replaced whole (`set_operator`). */
  setOperator(nodeId: number, operator: string, params: JsonObject): ActionResult;
  connect(edge: EdgeInput): ActionResult;
  disconnect(edgeKey: EdgeKey): ActionResult;
  setNodeField(nodeId: number, field: string, value: JsonValue): ActionResult;
  setEdgeField(edgeKey: EdgeKey, field: string, value: JsonValue): ActionResult;
  setConfigField(field: string, value: JsonValue): ActionResult;
  setDocumentField(field: string, value: JsonValue): ActionResult;
  /** Undo the last step; null when there is none. */
  undo(): ActionResult | null;
  /** Redo the last undone step; null when there is none. */
  redo(): ActionResult | null;
  receiveSnapshot(message: SnapshotMessage): void;
  receiveEditApplied(message: EditAppliedMessage): void;
  receiveEditRejected(message: EditRejectedMessage): void;
  receiveDocumentReplaced(message: DocumentReplacedMessage): void;
  /** Route a server message to the action for it (presence is not this store's). */
  receive(message: ServerMessage): void;
  dismissRejection(): void;
}

export type DocumentStore = DocumentState & DocumentActions;

const INITIAL: DocumentState = {
  pipeline: null,
  clientId: null,
  revision: 0,
  confirmed: null,
  document: null,
  plan: null,
  pending: [],
  undoStack: [],
  redoStack: [],
  lastRejection: null,
  outOfSync: false,
};

function addedNodeId(applied: AppliedEdit | null): number | null {
  return applied?.kind === "add_node" ? applied.node.id : null;
}

/** `confirmed` with `pending` applied in order; an edit that no longer applies is skipped. */
function replay(
  confirmed: StreamGraphDocument,
  pending: readonly PendingEdit[],
  renames: Map<number, number>,
): { document: StreamGraphDocument; pending: PendingEdit[] } {
  let document = confirmed;
  const replayed = pending.map((entry): PendingEdit => {
    let applied: AppliedEdit | null = null;
    try {
      const result = applyEdit(document, entry.edit);
      document = result.document;
      applied = result.applied;
    } catch (error) {
      if (!(error instanceof EditRejected)) {
        throw error;
      }
    }
    const before = addedNodeId(entry.applied);
    const after = addedNodeId(applied);
    if (before !== null && after !== null && before !== after) {
      renames.set(before, after);
    }
    return { ...entry, applied };
  });
  return { document, pending: replayed };
}

function renameHistory(
  stack: readonly HistoryEntry[],
  renames: ReadonlyMap<number, number>,
): readonly HistoryEntry[] {
  if (renames.size === 0) {
    return stack;
  }
  return stack.map((entry) => ({
    ...entry,
    edits: entry.edits.map((edit) => renameNodes(edit, renames)),
  }));
}

/**
 * The first problem that would make the document unreadable as a graph, in the
 * element the edit changed: the server refuses such an edit (`invalid-document`).
 */
function structuralProblem(
  before: StreamGraphDocument,
  result: ApplyResult,
): Diagnostic | undefined {
  const { applied, document } = result;
  switch (applied.kind) {
    case "add_node": {
      const problem = checkNode(applied.node, document.nodes.length - 1)[0];
      if (problem !== undefined || applied.edge === undefined) {
        return problem;
      }
      const edges = documentEdges(document);
      return checkEdge(edges[edges.length - 1], edges.length - 1, nodeIdSet(document.nodes))[0];
    }
    case "connect": {
      const edges = documentEdges(document);
      return checkEdge(applied.edge, edges.length - 1, nodeIdSet(document.nodes))[0];
    }
    case "set_field":
      if (applied.element === "node") {
        const position = document.nodes.findIndex((node) => node.id === applied.nodeId);
        return checkNode(document.nodes[position], position)[0];
      }
      if (applied.element === "edge") {
        const index = edgeIndex(before, applied.edgeKey);
        return checkEdge(documentEdges(document)[index], index, nodeIdSet(document.nodes))[0];
      }
      if (applied.element === "config") {
        return checkConfig(document.config)[0];
      }
      return checkDocument(document)[0];
    default:
      return undefined;
  }
}

type Mode = "do" | "undo" | "redo";

export function createDocumentStore(options: DocumentStoreOptions): StoreApi<DocumentStore> {
  let counter = 0;
  const createOpId =
    options.createOpId ??
    ((): string => {
      counter += 1;
      return `op-${counter}`;
    });

  return createStore<DocumentStore>()((set, get) => {
    /**
     * Apply `edits` in order to the shown document, send each, and record the step.
     * A single edit that fails is refused as a whole; of several (an undo step),
     * the ones that no longer apply are left out.
     */
    const commit = (edits: readonly Edit[], mode: Mode): ActionResult => {
      const state = get();
      if (state.document === null) {
        throw new Error("no document is loaded: receive a snapshot first");
      }
      let document = state.document;
      const sent: PendingEdit[] = [];
      const applied: AppliedEdit[] = [];
      let inverse: Edit[] = [];
      const renames = new Map<number, number>();
      let refused: EditRejected | null = null;
      for (const original of edits) {
        const edit = renameNodes(original, renames);
        let result: ApplyResult;
        try {
          result = applyEdit(document, edit);
          const problem = structuralProblem(document, result);
          if (problem !== undefined) {
            throw new EditRejected(
              "invalid-document",
              `the edit would make the document unreadable: ${problem.message}`,
              problem,
            );
          }
        } catch (error) {
          if (!(error instanceof EditRejected)) {
            throw error;
          }
          refused ??= error;
          continue;
        }
        const requested = edit.kind === "add_node" ? edit.node.id : undefined;
        const given = addedNodeId(result.applied);
        if (requested !== undefined && given !== null && requested !== given) {
          renames.set(requested, given);
        }
        inverse = [...inverseEdits(document, result.document, result.applied), ...inverse];
        // The edit as applied, so that an added node keeps the id it was shown with.
        sent.push({
          opId: createOpId(),
          edit: result.applied,
          baseRevision: state.revision + state.pending.length + sent.length,
          applied: result.applied,
        });
        applied.push(result.applied);
        document = result.document;
      }
      if (sent.length === 0) {
        // Nothing changed. An undo or redo step that no longer applies (its elements
        // are gone) has left the history already.
        return {
          ok: false,
          error: refused ?? new EditRejected("edit.malformed", "there is nothing to apply"),
        };
      }
      const entry: HistoryEntry = { edits: inverse, opIds: sent.map((item) => item.opId) };
      set({
        document,
        pending: [...state.pending, ...sent],
        undoStack: mode === "undo" ? state.undoStack : [...state.undoStack, entry],
        redoStack:
          mode === "undo" ? [...state.redoStack, entry] : mode === "redo" ? state.redoStack : [],
      });
      for (const item of sent) {
        options.send(item.edit, item.baseRevision, item.opId);
      }
      return { ok: true, opIds: entry.opIds, applied };
    };

    const step = (from: "undoStack" | "redoStack"): ActionResult | null => {
      const stack = get()[from];
      const entry = stack.at(-1);
      if (entry === undefined) {
        return null;
      }
      set(
        from === "undoStack"
          ? { undoStack: stack.slice(0, -1) }
          : { redoStack: stack.slice(0, -1) },
      );
      return commit(entry.edits, from === "undoStack" ? "undo" : "redo");
    };

    /** Start over from a document the server sent whole. */
    const reset = (
      revision: number,
      document: StreamGraphDocument,
      plan: LivePlan,
    ): Partial<DocumentState> => ({
      revision,
      confirmed: document,
      document,
      plan,
      pending: [],
      undoStack: [],
      redoStack: [],
      outOfSync: false,
    });

    const lose = (): void => {
      set({ outOfSync: true });
      options.resync?.();
    };

    return {
      ...INITIAL,

      applyEdits: (edits) => commit(edits, "do"),
      addOperator: (node, inbound) =>
        commit(
          [
            inbound === undefined
              ? { kind: "add_node", node }
              : { kind: "add_node", node, edge: inbound },
          ],
          "do",
        ),
      removeOperator: (nodeId) => commit([{ kind: "remove_node", nodeId }], "do"),
      moveOperator: (nodeId, x, y) => commit([{ kind: "move_node", nodeId, x, y }], "do"),
      moveOperators: (moves) =>
        moves.length === 0
          ? { ok: true, opIds: [], applied: [] }
          : commit(
              [{ kind: "move_nodes", moves: moves.map(({ nodeId, x, y }) => ({ nodeId, x, y })) }],
              "do",
            ),
      setOperator: (nodeId, operator, params) =>
        commit([{ kind: "set_operator", nodeId, operator, params }], "do"),
      connect: (edge) => commit([{ kind: "connect", edge }], "do"),
      disconnect: (edgeKey) => commit([{ kind: "disconnect", edgeKey }], "do"),
      setNodeField: (nodeId, field, value) =>
        commit([{ kind: "set_field", element: "node", nodeId, field, value }], "do"),
      setEdgeField: (edgeKey, field, value) =>
        commit([{ kind: "set_field", element: "edge", edgeKey, field, value }], "do"),
      setConfigField: (field, value) =>
        commit([{ kind: "set_field", element: "config", field, value }], "do"),
      setDocumentField: (field, value) =>
        commit([{ kind: "set_field", element: "document", field, value }], "do"),
      undo: () => step("undoStack"),
      redo: () => step("redoStack"),

      receiveSnapshot: (message) => {
        set({
          ...reset(message.revision, message.document, message.plan),
          pipeline: message.pipeline,
          clientId: message.you.clientId,
          lastRejection: null,
        });
      },

      receiveDocumentReplaced: (message) => {
        set(reset(message.revision, message.document, message.plan));
      },

      receiveEditApplied: (message) => {
        const state = get();
        if (state.confirmed === null || state.plan === null || state.outOfSync) {
          return;
        }
        if (message.revision <= state.revision) {
          return; // already part of the snapshot this store started from
        }
        if (message.revision !== state.revision + 1) {
          lose();
          return;
        }
        let confirmed: StreamGraphDocument;
        try {
          confirmed = applyEdit(state.confirmed, message.edit).document;
        } catch (error) {
          if (!(error instanceof EditRejected)) {
            throw error;
          }
          lose();
          return;
        }
        let plan: LivePlan;
        try {
          plan = applyPlanDelta(state.plan, message.planDelta);
        } catch (error) {
          if (!(error instanceof InvalidPlan)) {
            throw error;
          }
          lose();
          return;
        }
        const own =
          message.clientId === state.clientId
            ? state.pending.findIndex((item) => item.opId === message.opId)
            : -1;
        const mine = state.pending[own];
        if (own === 0 && mine?.applied && jsonEqual(toJson(message.edit), toJson(mine.applied))) {
          // Applied as shown: the shown document stays as it is.
          set({ revision: message.revision, confirmed, plan, pending: state.pending.slice(1) });
          return;
        }
        const renames = new Map<number, number>();
        const shown = addedNodeId(mine?.applied ?? null);
        const stored = message.edit.kind === "add_node" ? message.edit.node.id : undefined;
        if (shown !== null && stored !== undefined && shown !== stored) {
          renames.set(shown, stored);
        }
        const rest = own >= 0 ? state.pending.filter((_, index) => index !== own) : state.pending;
        const replayed = replay(confirmed, rest, renames);
        set({
          revision: message.revision,
          confirmed,
          plan,
          document: replayed.document,
          pending: replayed.pending,
          undoStack: renameHistory(state.undoStack, renames),
          redoStack: renameHistory(state.redoStack, renames),
        });
      },

      receiveEditRejected: (message) => {
        const state = get();
        const rejected = state.pending.find((item) => item.opId === message.opId);
        if (state.confirmed === null || rejected === undefined) {
          return;
        }
        const renames = new Map<number, number>();
        const replayed = replay(
          state.confirmed,
          state.pending.filter((item) => item !== rejected),
          renames,
        );
        const keep = (stack: readonly HistoryEntry[]): readonly HistoryEntry[] =>
          renameHistory(
            stack.filter((entry) => !entry.opIds.includes(message.opId)),
            renames,
          );
        set({
          document: replayed.document,
          pending: replayed.pending,
          undoStack: keep(state.undoStack),
          redoStack: keep(state.redoStack),
          lastRejection: {
            opId: message.opId,
            reason: message.reason,
            error: message.error,
            edit: rejected.edit,
          },
        });
      },

      receive: (message) => {
        const store = get();
        switch (message.type) {
          case "snapshot":
            store.receiveSnapshot(message);
            break;
          case "edit_applied":
            store.receiveEditApplied(message);
            break;
          case "edit_rejected":
            store.receiveEditRejected(message);
            break;
          case "document_replaced":
            store.receiveDocumentReplaced(message);
            break;
          case "version_saved":
          case "run_started":
          case "presence":
          case "presence_left":
          case "error":
            break;
        }
      },

      dismissRejection: () => {
        set({ lastRejection: null });
      },
    };
  });
}

function toJson(edit: Edit): JsonValue {
  return edit as unknown as JsonValue;
}

// Selectors: the narrow slices components subscribe to.

export const selectDocument = (state: DocumentState): StreamGraphDocument | null => state.document;
export const selectPlan = (state: DocumentState): LivePlan | null => state.plan;
export const selectCanUndo = (state: DocumentState): boolean => state.undoStack.length > 0;
export const selectCanRedo = (state: DocumentState): boolean => state.redoStack.length > 0;

/** False while an edit that changes the plan is pending: the plan shown is the last confirmed. */
export const selectPlanIsCurrent = (state: DocumentState): boolean =>
  !state.pending.some((item) => affectsPlan(item.edit));
