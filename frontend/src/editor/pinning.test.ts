import { describe, expect, it } from "vitest";

import type { LivePlan } from "../graph/liveplan";
import type { ServerDiagnostic, StreamGraphDocument, StreamNode } from "../graph/streamgraph";
import { createDocumentStore } from "../store/document";
import { planOf, snapshot } from "../test-support/builders";
import {
  isStateWarning,
  pinEdits,
  pinProposal,
  pinText,
  readableUid,
  STATE_WARNING,
  stateSummary,
  uidEdits,
  uidProposal,
  uidText,
  unpinnedOperators,
} from "./pinning";

/** An operator as the editor adds it: uid and uidHash null. */
function node(id: number, name: string, operator: string, extra: Partial<StreamNode> = {}) {
  return { id, name, operator, parallelism: 1, uid: null, uidHash: null, ...extra };
}

/** source -> map -> keyBy -> Sum -> window -> print. */
function document(extra: readonly StreamNode[] = []): StreamGraphDocument {
  return {
    format: "streamgraph/v1",
    name: "counting",
    config: { defaultParallelism: 1 },
    nodes: [
      node(1, "Source: Numbers", "source.sequence"),
      node(2, "Mod", "map"),
      node(3, "Sum", "sum"),
      node(4, "Per minute", "window.aggregate"),
      node(5, "Sink: Print", "sink.print"),
      ...extra,
    ],
    edges: [
      { source: 1, target: 2, partitioner: "FORWARD" },
      { source: 2, target: 3, partitioner: "HASH", key: { fn: "x % 10" } },
      { source: 3, target: 4, partitioner: "HASH", key: { fn: "x[0]" } },
      { source: 4, target: 5, partitioner: "FORWARD" },
    ],
  };
}

function warning(nodeId: number, name: string): ServerDiagnostic {
  return {
    code: STATE_WARNING,
    severity: "warning",
    message: `${name} keeps keyed state but has no uid: ...`,
    node: nodeId,
    edge: null,
    field: "uid",
    stage: "state",
  };
}

/** The plan the server sends for `doc`: warnings for the stateful operators named. */
function planWith(doc: StreamGraphDocument, warned: readonly number[]): LivePlan {
  const names = new Map(doc.nodes.map((n) => [n.id, n.name]));
  const runProblem: ServerDiagnostic = {
    code: "param.required",
    severity: "error",
    message: "Function is required",
    node: 2,
    edge: null,
    field: "params.fn",
    stage: "run",
  };
  return {
    ...planOf(doc),
    diagnostics: [runProblem, ...warned.map((id) => warning(id, names.get(id) ?? ""))],
  };
}

describe("the operators the plan warns about", () => {
  it("are its state warnings, in its order, by node", () => {
    const doc = document();
    const plan = planWith(doc, [1, 3, 4]);

    expect(unpinnedOperators(doc, plan)).toEqual([
      { node: 1, name: "Source: Numbers" },
      { node: 3, name: "Sum" },
      { node: 4, name: "Per minute" },
    ]);
    expect(unpinnedOperators(doc, plan, [3])).toEqual([{ node: 3, name: "Sum" }]);
    expect(plan.diagnostics.filter(isStateWarning)).toHaveLength(3);
  });

  it("leave out an operator given a uid or uidHash since the plan was made", () => {
    const doc = document();
    const plan = planWith(doc, [1, 3]);
    const edited: StreamGraphDocument = {
      ...doc,
      nodes: doc.nodes.map((n) => (n.id === 3 ? { ...n, uidHash: "a".repeat(32) } : n)),
    };

    expect(unpinnedOperators(edited, plan)).toEqual([{ node: 1, name: "Source: Numbers" }]);
  });
});

describe("pinning current IDs", () => {
  it("proposes each warned operator's OperatorID now", () => {
    const doc = document();
    const plan = planWith(doc, [1, 3]);

    const proposal = pinProposal(doc, plan);

    expect(proposal).toEqual({
      items: [
        { node: 1, name: "Source: Numbers", operatorId: plan.nodes["1"]?.operatorId },
        { node: 3, name: "Sum", operatorId: plan.nodes["3"]?.operatorId },
      ],
      missing: [],
    });
    expect(pinText(proposal)).toMatch(/^Pin 2 operators: each keeps the OperatorID it has now/);
    // Flink saves state under the generated ID: a pin finds only what was saved under it.
    expect(pinText(proposal)).toContain("a savepoint taken under that ID");
    expect(pinText(proposal)).toContain("pin again then, or give the operator a uid");
  });

  it("sets uidHash to those IDs as one step of the document store, undone together", () => {
    const doc = document();
    const store = createDocumentStore({ send: () => undefined });
    store.getState().receiveSnapshot({ ...snapshot(doc, 3), plan: planWith(doc, [1, 3]) });
    const { plan } = store.getState();
    const proposal = pinProposal(doc, plan ?? planOf(doc));

    const result = store.getState().applyEdits(pinEdits(proposal.items));

    expect(result.ok).toBe(true);
    const pinned = store.getState().document;
    expect(pinned?.nodes.find((n) => n.id === 1)?.uidHash).toBe(plan?.nodes["1"]?.operatorId);
    expect(pinned?.nodes.find((n) => n.id === 3)?.uidHash).toBe(plan?.nodes["3"]?.operatorId);
    expect(store.getState().undoStack).toHaveLength(1);
    store.getState().undo();
    expect(store.getState().document).toEqual(doc);
    expect(store.getState().undoStack).toHaveLength(0);
  });

  it("pins only the chosen operator for a quick fix", () => {
    const doc = document();

    const proposal = pinProposal(doc, planWith(doc, [1, 3, 4]), [4]);

    expect(proposal.items.map((item) => item.node)).toEqual([4]);
    expect(pinText(proposal)).toMatch(/^Pin 1 operator: /);
  });

  it("cannot pin without OperatorIDs, and says why", () => {
    const doc = document();
    const broken: LivePlan = { ...planWith(doc, [3]), ok: false, summary: null, nodes: {} };

    const proposal = pinProposal(doc, broken);

    expect(proposal.items).toEqual([]);
    expect(proposal.missing).toEqual([{ node: 3, name: "Sum" }]);
    expect(pinText(proposal)).toContain("fix the errors first");
    expect(pinText(pinProposal(doc, planWith(doc, [])))).toContain("nothing to pin");
  });
});

describe("readable uids", () => {
  it.each([
    ["Source: Orders", "source-orders"],
    ["Sum", "sum"],
    ["  Per minute / EUR  ", "per-minute-eur"],
    ["Zähler Café", "zahler-cafe"],
    ["Window_All #2", "window-all-2"],
    ["→ ← ✓", ""],
  ])("are made of the name %j: %j", (name, uid) => {
    expect(readableUid(name)).toBe(uid);
  });

  it("are unique in the pipeline, beside the uids it has", () => {
    const doc = document([
      node(6, "Sum", "sum"),
      node(7, "Enrich", "map", { uid: "sum-2" }),
      node(8, "???", "reduce"),
    ]);

    const items = uidProposal(doc, planWith(doc, [1, 3, 6, 8]));

    expect(items.map((item) => [item.node, item.uid])).toEqual([
      [1, "source-numbers"],
      [3, "sum"],
      [6, "sum-3"],
      [8, "operator-8"],
    ]);
    const uids = [...items.map((item) => item.uid), "sum-2"];
    expect(new Set(uids).size).toBe(uids.length);
  });

  it("are set as uid edits", () => {
    expect(uidEdits([{ node: 3, name: "Sum", uid: "sum" }])).toEqual([
      { kind: "set_field", element: "node", nodeId: 3, field: "uid", value: "sum" },
    ]);
  });

  it("say plainly that the IDs change once, and what that means after saved versions", () => {
    const items = [{ node: 3, name: "Sum", uid: "sum" }];

    expect(uidText(items, 0)).toContain("each ID changes once, now: do it before the first deploy");
    expect(uidText(items, 0)).not.toContain("saved version");
    expect(uidText(items, 2)).toContain(
      "This pipeline has 2 saved versions: a savepoint of those would not restore these " +
        "operators' state under the new IDs. To keep it, pin their current IDs instead.",
    );
    expect(uidText([], 2)).toContain("nothing to name");
  });
});

describe("the pipeline settings' line", () => {
  it("counts the operators whose state is not pinned and offers both ways", () => {
    expect(stateSummary(0)).toMatch(/^Every stateful operator has a uid or uidHash/);
    expect(stateSummary(0)).toContain("a uidHash finds the state saved under that ID");
    expect(stateSummary(1)).toMatch(/^1 stateful operator has no uid or uidHash: /);
    expect(stateSummary(3)).toMatch(/^3 stateful operators have no uid or uidHash: /);
    expect(stateSummary(3)).toContain("Pin their current IDs");
    expect(stateSummary(3)).toContain("readable uids (before the first deploy)");
  });
});
