import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { parseServerMessage } from "../api/messages";
import { applyEdit, parseEdit, type Edit } from "../graph/edits";
import { parseLivePlan, parsePlanDelta, type LivePlan } from "../graph/liveplan";
import { documentEdges, type StreamGraphDocument } from "../graph/streamgraph";
import {
  documentReplaced,
  editApplied,
  editRejected,
  editsDocument,
  snapshot,
} from "../test-support/builders";
import { loadFixture } from "../test-support/fixtures";
import { createDocumentStore, selectCanRedo, selectCanUndo, selectPlanIsCurrent } from "./document";

interface Sent {
  readonly edit: Edit;
  readonly baseRevision: number;
  readonly opId: string;
}

/** A store that has joined at revision 5 as client `me`, and what it sent. */
function joined(document: StreamGraphDocument = editsDocument()) {
  const sent: Sent[] = [];
  let resyncs = 0;
  const store = createDocumentStore({
    send: (edit, baseRevision, opId) => {
      sent.push({ edit, baseRevision, opId });
    },
    resync: () => {
      resyncs += 1;
    },
  });
  store.getState().receiveSnapshot(snapshot(document, 5, "me"));
  /** The server applying the edit sent as `opId` as the next revision. */
  const confirm = (opId: string, planDelta = {}) => {
    const edit = sent.find((item) => item.opId === opId)?.edit;
    if (edit === undefined) {
      throw new Error(`nothing was sent as ${opId}`);
    }
    const state = store.getState();
    state.receiveEditApplied(
      editApplied(state.revision + 1, edit, { clientId: "me", opId, planDelta }),
    );
  };
  /** Another client's edit, applied by the server as the next revision. */
  const theirs = (edit: Edit) => {
    const state = store.getState();
    state.receiveEditApplied(editApplied(state.revision + 1, edit));
  };
  return { store, sent, confirm, theirs, resyncs: () => resyncs };
}

function node(document: StreamGraphDocument | null, id: number) {
  return document?.nodes.find((item) => item.id === id);
}

describe("optimistic edits", () => {
  it("show at once, are sent, and are confirmed by edit_applied", () => {
    const { store, sent, confirm } = joined();
    const result = store.getState().setNodeField(2, "parallelism", 4);
    expect(result.ok).toBe(true);
    let state = store.getState();
    expect(node(state.document, 2)?.parallelism).toBe(4);
    expect(node(state.confirmed, 2)?.parallelism).toBe(2);
    expect(state.pending.map((item) => item.opId)).toEqual(["op-1"]);
    expect(sent).toEqual([
      {
        edit: { kind: "set_field", element: "node", nodeId: 2, field: "parallelism", value: 4 },
        baseRevision: 5,
        opId: "op-1",
      },
    ]);
    const shown = state.document;
    confirm("op-1", { ok: false, summary: null });
    state = store.getState();
    expect(state.revision).toBe(6);
    expect(state.pending).toEqual([]);
    expect(state.document).toBe(shown);
    expect(node(state.confirmed, 2)?.parallelism).toBe(4);
    expect(state.plan?.ok).toBe(false);
    expect(state.plan?.summary).toBeNull();
  });

  it("go out one after the other on the revisions they will apply to", () => {
    const { store, sent } = joined();
    const state = store.getState();
    state.moveOperator(1, 10, 20);
    state.connect({ source: 1, target: 3 });
    state.setConfigField("defaultParallelism", 3);
    expect(sent.map((item) => [item.opId, item.baseRevision])).toEqual([
      ["op-1", 5],
      ["op-2", 6],
      ["op-3", 7],
    ]);
    const shown = store.getState().document;
    expect(node(shown, 1)?.ui).toEqual({ x: 10, y: 20 });
    expect(documentEdges(shown ?? editsDocument()).at(-1)).toMatchObject({ source: 1, target: 3 });
    expect(shown?.config?.defaultParallelism).toBe(3);
  });

  it("are refused here, unsent, when the server would refuse them", () => {
    const { store, sent } = joined();
    const before = store.getState();
    const unknown = before.removeOperator(42);
    expect(!unknown.ok && unknown.error.code).toBe("edit.unknown-node");
    const unreadable = before.setNodeField(2, "parallelism", "four");
    expect(
      !unreadable.ok && [unreadable.error.code, unreadable.error.node, unreadable.error.field],
    ).toEqual(["invalid-document", 2, "parallelism"]);
    const badEnum = before.setEdgeField([1, 2, 0, 0], "partitioner", "SIDEWAYS");
    expect(!badEnum.ok && badEnum.error.message).toBe(
      "the edit would make the document unreadable: 'partitioner' must be one of FORWARD, " +
        "REBALANCE, RESCALE, SHUFFLE, HASH, BROADCAST, GLOBAL, CUSTOM, got 'SIDEWAYS'",
    );
    expect(sent).toEqual([]);
    expect(store.getState()).toBe(before);
  });

  it("tell whether the plan shown is the plan of the document shown", () => {
    const { store, confirm } = joined();
    store.getState().moveOperator(2, 1, 1);
    expect(selectPlanIsCurrent(store.getState())).toBe(true);
    store.getState().setNodeField(2, "name", "Parse");
    expect(selectPlanIsCurrent(store.getState())).toBe(false);
    confirm("op-1");
    confirm("op-2");
    expect(selectPlanIsCurrent(store.getState())).toBe(true);
  });
});

describe("rejections", () => {
  it("roll back the rejected edit and keep the pending ones after it", () => {
    const { store } = joined();
    store.getState().setNodeField(2, "parallelism", 4);
    store.getState().moveOperator(3, 7, 8);
    store.getState().receiveEditRejected(editRejected("op-1", 5));
    const state = store.getState();
    expect(node(state.document, 2)?.parallelism).toBe(2);
    expect(node(state.document, 3)?.ui).toEqual({ x: 7, y: 8 });
    expect(state.pending.map((item) => item.opId)).toEqual(["op-2"]);
    expect(state.lastRejection).toMatchObject({
      opId: "op-1",
      reason: "conflict",
      edit: { kind: "set_field", nodeId: 2, field: "parallelism", value: 4 },
    });
    expect(state.undoStack).toHaveLength(1);
    expect(state.undoStack[0]?.edits).toEqual([
      { kind: "set_field", element: "node", nodeId: 3, field: "ui.x", value: null },
      { kind: "set_field", element: "node", nodeId: 3, field: "ui.y", value: null },
    ]);
    store.getState().dismissRejection();
    expect(store.getState().lastRejection).toBeNull();
  });

  it("of an edit that is not pending change nothing", () => {
    const { store } = joined();
    const before = store.getState();
    before.receiveEditRejected(editRejected("op-9", 5));
    expect(store.getState()).toBe(before);
  });
});

describe("edits from other clients", () => {
  it("slot in under the pending edits, as the server orders them", () => {
    const { store, theirs, confirm } = joined();
    store.getState().setNodeField(2, "name", "Parse");
    theirs({ kind: "set_field", element: "node", nodeId: 3, field: "parallelism", value: 8 });
    let state = store.getState();
    expect(state.revision).toBe(6);
    expect(node(state.confirmed, 3)?.parallelism).toBe(8);
    expect(node(state.confirmed, 2)?.name).toBe("Map");
    expect(node(state.document, 3)?.parallelism).toBe(8);
    expect(node(state.document, 2)?.name).toBe("Parse");
    confirm("op-1");
    state = store.getState();
    expect(state.revision).toBe(7);
    expect(state.pending).toEqual([]);
    expect(state.document).toEqual(state.confirmed);
  });

  it("renumber a node added here when someone else took its id first", () => {
    const { store, sent, theirs, confirm } = joined();
    const added = store.getState().addOperator({ name: "Mine" });
    expect(added.ok && added.applied[0]?.kind === "add_node" && added.applied[0].node.id).toBe(4);
    theirs({ kind: "add_node", node: { id: 4, name: "Theirs" } });
    const state = store.getState();
    expect(state.document?.nodes.map((item) => [item.id, item.name])).toEqual([
      [1, "Source: s"],
      [2, "Map"],
      [3, "Sink: out"],
      [4, "Theirs"],
      [5, "Mine"],
    ]);
    expect(state.undoStack.at(-1)?.edits).toEqual([{ kind: "remove_node", nodeId: 5 }]);
    state.receiveEditApplied(
      editApplied(
        7,
        { kind: "add_node", node: { ...node(state.document, 5), id: 5, name: "Mine" } },
        {
          clientId: "me",
          opId: "op-1",
        },
      ),
    );
    expect(store.getState().pending).toEqual([]);
    store.getState().undo();
    expect(sent.at(-1)?.edit).toEqual({ kind: "remove_node", nodeId: 5 });
    confirm(sent.at(-1)?.opId ?? "");
    expect(store.getState().document?.nodes.map((item) => item.name)).toEqual([
      "Source: s",
      "Map",
      "Sink: out",
      "Theirs",
    ]);
  });

  it("add a node with its edge as one edit and one undo step, the edge following its id", () => {
    const { store, sent, theirs, confirm } = joined();
    const added = store
      .getState()
      .addOperator({ id: 4, name: "Mine" }, { source: 2, partitioner: null });
    expect(added.ok).toBe(true);
    expect(sent.map((item) => item.edit.kind)).toEqual(["add_node"]);
    // Someone else took id 4 first: the node becomes 5, and its edge goes to 5.
    theirs({ kind: "add_node", node: { id: 4, name: "Theirs" } });
    let state = store.getState();
    expect(documentEdges(state.document ?? editsDocument()).at(-1)).toMatchObject({
      source: 2,
      target: 5,
      partitioner: null,
    });
    const mine = sent[0]?.edit;
    expect(mine?.kind === "add_node" && mine.edge).toEqual({
      partitioner: null,
      exchangeMode: "UNDEFINED",
      typeNumber: 0,
      sideOutputTag: null,
      source: 2,
    });
    state.receiveEditApplied(
      editApplied(
        7,
        applyEdit(state.confirmed ?? editsDocument(), mine ?? { kind: "add_node", node: {} })
          .applied,
        { clientId: "me", opId: "op-1" },
      ),
    );
    expect(store.getState().pending).toEqual([]);
    expect(store.getState().undoStack.at(-1)?.edits).toEqual([{ kind: "remove_node", nodeId: 5 }]);
    store.getState().undo();
    confirm(sent.at(-1)?.opId ?? "");
    state = store.getState();
    expect(state.document?.nodes.map((item) => item.name)).toEqual([
      "Source: s",
      "Map",
      "Sink: out",
      "Theirs",
    ]);
    expect(documentEdges(state.document ?? editsDocument())).toHaveLength(2);
    // Redo brings both back in one edit again.
    store.getState().redo();
    expect(sent.at(-1)?.edit).toMatchObject({ kind: "add_node", edge: { source: 2 } });
    expect(documentEdges(store.getState().document ?? editsDocument()).at(-1)).toMatchObject({
      source: 2,
      target: 5,
    });
  });

  it("refuse an added node's edge the server would refuse, adding nothing", () => {
    const { store, sent } = joined();
    const before = store.getState();
    const unknown = before.addOperator({ name: "Mine" }, { source: 42 });
    expect(!unknown.ok && unknown.error.code).toBe("edit.unknown-node");
    const unreadable = before.addOperator({ name: "Mine" }, { source: 2, typeNumber: 1.5 });
    expect(!unreadable.ok && unreadable.error.code).toBe("invalid-document");
    expect(sent).toEqual([]);
    expect(store.getState()).toBe(before);
  });

  it("follow the server's ids and plans, step by step", () => {
    const recorded = JSON.parse(
      readFileSync(new URL("../graph/testdata/word-count.liveplan.json", import.meta.url), "utf8"),
    ) as {
      fixture: string;
      plan: unknown;
      steps: { edit: unknown; planDelta: unknown; plan: unknown }[];
    };
    const start = loadFixture(recorded.fixture);
    const { store } = joined(start);
    store
      .getState()
      .receiveSnapshot({ ...snapshot(start, 1, "me"), plan: parseLivePlan(recorded.plan) });
    let expected = start;
    recorded.steps.forEach((step, index) => {
      const edit = parseEdit(step.edit);
      store
        .getState()
        .receiveEditApplied(
          editApplied(2 + index, edit, { planDelta: parsePlanDelta(step.planDelta) }),
        );
      expected = applyEdit(expected, edit).document;
      expect(store.getState().plan).toEqual(step.plan as LivePlan);
      expect(store.getState().document).toEqual(expected);
    });
    expect(store.getState().revision).toBe(1 + recorded.steps.length);
  });
});

describe("moving many operators", () => {
  it("is one edit, one revision and one undo step, as an auto-layout must be", () => {
    const placed = applyEdit(editsDocument(), {
      kind: "move_node",
      nodeId: 1,
      x: 5,
      y: 5,
    }).document;
    const { store, sent, confirm } = joined(placed);
    const moves = [
      { nodeId: 1, x: 40, y: 60 },
      { nodeId: 2, x: 250, y: 60 },
      { nodeId: 3, x: 460, y: 60 },
    ];
    const result = store.getState().moveOperators(moves);
    expect(result.ok && result.opIds).toEqual(["op-1"]);
    expect(sent).toEqual([{ edit: { kind: "move_nodes", moves }, baseRevision: 5, opId: "op-1" }]);
    expect(store.getState().document?.nodes.map((item) => item.ui)).toEqual([
      { x: 40, y: 60 },
      { x: 250, y: 60 },
      { x: 460, y: 60 },
    ]);
    confirm("op-1");
    expect(store.getState().revision).toBe(6);
    expect(store.getState().undoStack).toHaveLength(1);

    store.getState().undo();
    // One edit takes it back: node 1 where it was, 2 and 3 back on the grid (no position).
    expect(sent.slice(1).map((item) => item.edit)).toEqual([
      {
        kind: "move_nodes",
        moves: [
          { nodeId: 1, x: 5, y: 5 },
          { nodeId: 2, x: null, y: null },
          { nodeId: 3, x: null, y: null },
        ],
      },
    ]);
    expect(node(store.getState().document, 1)?.ui).toEqual({ x: 5, y: 5 });
    expect(node(store.getState().document, 2)?.ui).toEqual({});
    expect(selectCanUndo(store.getState())).toBe(false);
    expect(selectCanRedo(store.getState())).toBe(true);
  });

  it("sends nothing and records no step when nothing moves", () => {
    const { store, sent } = joined();
    expect(store.getState().moveOperators([]).ok).toBe(true);
    expect(sent).toEqual([]);
    expect(selectCanUndo(store.getState())).toBe(false);
  });

  it("keeps only the position of each move, whatever else it carries", () => {
    const { store, sent } = joined();
    const move = { kind: "move_node", nodeId: 2, x: 1, y: 2 } as const;
    store.getState().moveOperators([move]);
    expect(sent[0]?.edit).toEqual({ kind: "move_nodes", moves: [{ nodeId: 2, x: 1, y: 2 }] });
  });
});

describe("setting an operator's kind", () => {
  it("changes the kind and its parameters in one edit and one undo step", () => {
    const { store, sent } = joined();
    store.getState().setOperator(2, "filter", { predicate: "x > 0" });
    expect(sent.map((item) => item.edit)).toEqual([
      { kind: "set_operator", nodeId: 2, operator: "filter", params: { predicate: "x > 0" } },
    ]);
    expect(node(store.getState().document, 2)).toMatchObject({
      operator: "filter",
      params: { predicate: "x > 0" },
      name: "Map",
      parallelism: 2,
    });
    store.getState().undo();
    expect(node(store.getState().document, 2)).toMatchObject({
      operator: "map",
      params: { fn: "x" },
    });
  });
});

describe("undo and redo", () => {
  it("undo several edits applied together as one step", () => {
    const { store, sent } = joined();
    const result = store.getState().applyEdits([
      { kind: "move_node", nodeId: 1, x: 10, y: 20 },
      { kind: "move_node", nodeId: 2, x: 210, y: 20 },
      { kind: "remove_node", nodeId: 3 },
    ]);
    expect(result.ok && result.opIds).toEqual(["op-1", "op-2", "op-3"]);
    expect(sent.map((item) => item.baseRevision)).toEqual([5, 6, 7]);
    expect(store.getState().undoStack).toHaveLength(1);
    store.getState().undo();
    const document = store.getState().document;
    expect(node(document, 3)?.name).toBe("Sink: out");
    expect(document?.edges).toHaveLength(2);
    expect(node(document, 1)?.ui ?? {}).not.toHaveProperty("x");
    expect(selectCanUndo(store.getState())).toBe(false);
  });

  it("send the inverse edit, then the edit again", () => {
    const { store, sent, confirm } = joined();
    expect(selectCanUndo(store.getState())).toBe(false);
    store.getState().setNodeField(2, "parallelism", 4);
    confirm("op-1");
    const undone = store.getState().undo();
    expect(undone?.ok).toBe(true);
    expect(sent.at(-1)).toEqual({
      edit: { kind: "set_field", element: "node", nodeId: 2, field: "parallelism", value: 2 },
      baseRevision: 6,
      opId: "op-2",
    });
    expect(node(store.getState().document, 2)?.parallelism).toBe(2);
    expect(selectCanUndo(store.getState())).toBe(false);
    expect(selectCanRedo(store.getState())).toBe(true);
    store.getState().redo();
    expect(sent.at(-1)?.edit).toEqual({
      kind: "set_field",
      element: "node",
      nodeId: 2,
      field: "parallelism",
      value: 4,
    });
    expect(node(store.getState().document, 2)?.parallelism).toBe(4);
    expect(selectCanUndo(store.getState())).toBe(true);
    expect(selectCanRedo(store.getState())).toBe(false);
    expect(store.getState().redo()).toBeNull();
  });

  it("bring a removed node back with its edges, each edit sent", () => {
    const { store, sent } = joined();
    const before = store.getState().document;
    store.getState().removeOperator(2);
    expect(store.getState().document?.edges).toEqual([]);
    store.getState().undo();
    expect(sent.slice(1).map((item) => [item.edit.kind, item.baseRevision])).toEqual([
      ["add_node", 6],
      ["connect", 7],
      ["connect", 8],
    ]);
    const after = store.getState().document;
    // The edit operations fill in the defaults of what they add.
    expect(node(after, 2)).toMatchObject(node(before, 2) ?? {});
    expect(documentEdges(after ?? editsDocument())).toEqual(
      documentEdges(before ?? editsDocument()).map((edge) => ({
        exchangeMode: "UNDEFINED",
        typeNumber: 0,
        sideOutputTag: null,
        ...edge,
      })),
    );
  });

  it("start a new branch: a new edit clears what could be redone", () => {
    const { store } = joined();
    store.getState().moveOperator(1, 1, 1);
    store.getState().undo();
    expect(selectCanRedo(store.getState())).toBe(true);
    store.getState().moveOperator(1, 2, 2);
    expect(selectCanRedo(store.getState())).toBe(false);
  });

  it("drop a step whose elements someone else removed", () => {
    const { store, sent, theirs, confirm } = joined();
    store.getState().setNodeField(3, "name", "Out");
    confirm("op-1");
    theirs({ kind: "remove_node", nodeId: 3 });
    const result = store.getState().undo();
    expect(result?.ok === false && result.error.code).toBe("edit.unknown-node");
    expect(sent).toHaveLength(1);
    expect(selectCanUndo(store.getState())).toBe(false);
  });
});

describe("keeping in step with the server", () => {
  it("asks for a resync when a plan delta patches what its plan lacks", () => {
    const { store, resyncs } = joined();
    const planDelta = { nodes: { patch: { "999": { vertex: "ab" } } } };
    store
      .getState()
      .receiveEditApplied(
        editApplied(6, { kind: "move_node", nodeId: 1, x: 5, y: 5 }, { planDelta }),
      );
    expect(store.getState().outOfSync).toBe(true);
    expect(resyncs()).toBe(1);
  });

  it("asks for a resync when a revision was missed, and starts over from the snapshot", () => {
    const { store, resyncs } = joined();
    store.getState().receiveEditApplied(editApplied(8, { kind: "remove_node", nodeId: 1 }));
    expect(store.getState().outOfSync).toBe(true);
    expect(resyncs()).toBe(1);
    store.getState().receiveEditApplied(editApplied(9, { kind: "remove_node", nodeId: 2 }));
    expect(store.getState().document?.nodes).toHaveLength(3);
    const fresh = applyEdit(editsDocument(), { kind: "remove_node", nodeId: 1 }).document;
    store.getState().receiveSnapshot(snapshot(fresh, 9, "me"));
    expect(store.getState().outOfSync).toBe(false);
    expect(store.getState().revision).toBe(9);
    expect(store.getState().document).toBe(fresh);
  });

  it("ignores an edit the snapshot already holds", () => {
    const { store } = joined();
    const before = store.getState();
    before.receiveEditApplied(editApplied(5, { kind: "remove_node", nodeId: 1 }));
    expect(store.getState()).toBe(before);
  });

  it("starts over when the document is replaced", () => {
    const { store } = joined();
    store.getState().setNodeField(2, "parallelism", 4);
    const replacement = loadFixture("word-count");
    store.getState().receiveDocumentReplaced(documentReplaced(replacement, 12));
    const state = store.getState();
    expect(state.document).toBe(replacement);
    expect(state.confirmed).toBe(replacement);
    expect(state.revision).toBe(12);
    expect(state.pending).toEqual([]);
    expect(selectCanUndo(state)).toBe(false);
  });

  it("takes messages as the socket parses them", () => {
    const { store } = joined();
    const text = JSON.stringify(editApplied(6, { kind: "move_node", nodeId: 1, x: 3, y: 4 }));
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      throw new Error(parsed.error);
    }
    if (parsed.kind !== "pipeline") {
      throw new Error(`read as ${parsed.kind}`);
    }
    store.getState().receive(parsed.message);
    expect(node(store.getState().document, 1)?.ui).toEqual({ x: 3, y: 4 });
    expect(store.getState().revision).toBe(6);
  });
});
