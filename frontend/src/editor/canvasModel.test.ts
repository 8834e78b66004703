import { describe, expect, it } from "vitest";

import type { PresenceEntry } from "../api/messages";
import { NODE_HEIGHT, NODE_WIDTH } from "../canvas/geometry";
import { HANDLE_SIZE, OPERATOR_HANDLES, targetHandleOf, typeNumberOf } from "../canvas/handles";
import { applyEdit, type Edit } from "../graph/edits";
import type { LivePlan } from "../graph/liveplan";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { editsDocument, planOf, presenceEntry } from "../test-support/builders";
import {
  CanvasModel,
  chainBox,
  diagnosticsByElement,
  partitionerClass,
  partitionerLabel,
  presenceMarks,
  type CanvasInputs,
  type OperatorFlowNode,
} from "./canvasModel";

function inputs(
  document: StreamGraphDocument,
  overrides: Partial<CanvasInputs> = {},
): CanvasInputs {
  return {
    document,
    plan: planOf(document),
    specs: new Map(),
    selectedNodes: new Set(),
    selectedEdges: new Set(),
    others: {},
    dragging: new Map(),
    ...overrides,
  };
}

function operators(nodes: readonly { type?: string }[]): OperatorFlowNode[] {
  return nodes.filter((node) => node.type === "operator") as OperatorFlowNode[];
}

function edited(document: StreamGraphDocument, edit: Edit): StreamGraphDocument {
  return applyEdit(document, edit).document;
}

const setSinkParallelism: Edit = {
  kind: "set_field",
  element: "node",
  nodeId: 3,
  field: "parallelism",
  value: 7,
};

describe("canvas model", () => {
  it("draws every operator, a box around the chain and every edge", () => {
    const document = editsDocument();
    const frame = new CanvasModel().build(inputs(document));
    expect(operators(frame.nodes).map((node) => node.id)).toEqual(["1", "2", "3"]);
    const [chain] = frame.nodes;
    expect(chain?.type).toBe("chain");
    expect(frame.chains.get(chain?.id ?? "")?.vertex.nodes).toEqual([1, 2, 3]);
    expect(frame.edges.map((edge) => [edge.id, frame.edgeViews.get(edge.id)?.chained])).toEqual([
      ["1-2-0-0", true],
      ["2-3-0-0", true],
    ]);
    const map = frame.operators.get("2");
    expect(map?.parallelism).toBe(2);
    expect(map?.operatorId).toMatch(/^[0-9a-f]{32}$/);
    expect(frame.operators.get("1")?.chainHead).toBe(true);
    expect(frame.changed).toEqual(expect.arrayContaining(["1", "2", "3", "1-2-0-0", chain?.id]));
  });

  it("tells React Flow each node's size and handles, so nothing has to be measured", () => {
    const frame = new CanvasModel().build(inputs(editsDocument()));
    const [, map] = operators(frame.nodes);
    expect(map?.measured).toEqual({ width: NODE_WIDTH, height: NODE_HEIGHT });
    expect(map?.handles?.map((h) => [h.id, h.x, h.y])).toEqual([
      ["in", -HANDLE_SIZE / 2, NODE_HEIGHT / 2 - HANDLE_SIZE / 2],
      ["out", NODE_WIDTH - HANDLE_SIZE / 2, NODE_HEIGHT / 2 - HANDLE_SIZE / 2],
    ]);
    const chain = frame.nodes[0];
    expect(chain?.handles).toEqual([]);
    expect(chain?.measured).toEqual({ width: chain?.width, height: chain?.height });
    expect(frame.bounds).toEqual({
      x: chain?.position.x,
      y: chain?.position.y,
      width: chain?.width,
      height: chain?.height,
    });
  });

  it("hands back the same objects and arrays for what did not change", () => {
    const model = new CanvasModel();
    const document = editsDocument();
    const base = inputs(document);
    const first = model.build(base);
    const renamed = edited(document, {
      kind: "set_field",
      element: "node",
      nodeId: 2,
      field: "name",
      value: "Parse",
    });
    const second = model.build({ ...base, document: renamed });
    // Only the view of node 2 changed: React Flow's elements are untouched.
    expect(second.nodes).toBe(first.nodes);
    expect(second.edges).toBe(first.edges);
    expect(second.changed).toEqual(["2"]);
    expect(second.operators.get("1")).toBe(first.operators.get("1"));
    expect(second.operators.get("2")?.node.name).toBe("Parse");
    expect(second.edgeViews.get("1-2-0-0")).toBe(first.edgeViews.get("1-2-0-0"));
    // The edit copied the edge list without changing it: nothing about edges is rebuilt.
    expect(renamed.edges).not.toBe(document.edges);
    expect(second.edgeViews).toBe(first.edgeViews);

    const again = model.build({ ...base, document: renamed });
    expect(again.changed).toEqual([]);
  });

  it("shows a parallelism edit at once, before the plan has caught up", () => {
    const model = new CanvasModel();
    const document = editsDocument();
    const plan = planOf(document);
    model.build(inputs(document, { plan }));
    const frame = model.build(inputs(edited(document, setSinkParallelism), { plan }));
    const sink = frame.operators.get("3");
    expect(frame.changed).toEqual(["3"]);
    expect(sink?.parallelism).toBe(7);
    expect(sink?.parallelismIsDefault).toBe(false);
    // The plan-derived facts stay those of the last plan until the server answers.
    expect(sink?.vertex).toBe(plan.nodes["3"]?.vertex);
  });

  it("compares diagnostics by what they say", () => {
    const model = new CanvasModel();
    const document = editsDocument();
    const problem = () => ({
      code: "x",
      severity: "error" as const,
      message: "bad",
      node: 2,
      edge: null,
      field: "parallelism",
    });
    const plan: LivePlan = { ...planOf(document), diagnostics: [problem()] };
    const first = model.build(inputs(document, { plan }));
    const second = model.build(inputs(document, { plan: { ...plan, diagnostics: [problem()] } }));
    expect(second.changed).toEqual([]);
    expect(second.operators.get("2")).toBe(first.operators.get("2"));
  });

  it("changes the element, not the view, when a node is selected or moved", () => {
    const model = new CanvasModel();
    const document = editsDocument();
    const plan = planOf(document);
    const first = model.build(inputs(document, { plan }));
    const selected = model.build(inputs(document, { plan, selectedNodes: new Set([1]) }));
    expect(selected.nodes).not.toBe(first.nodes);
    expect(operators(selected.nodes)[0]?.selected).toBe(true);
    expect(operators(selected.nodes)[1]).toBe(operators(first.nodes)[1]);
    expect(selected.changed).toEqual([]);

    const dragged = model.build(
      inputs(document, { plan, dragging: new Map([[3, { x: 900, y: 0 }]]) }),
    );
    expect(operators(dragged.nodes)[2]?.position).toEqual({ x: 900, y: 0 });
    // The chain box grows with it.
    expect(dragged.nodes[0]).not.toBe(first.nodes[0]);
    expect(dragged.changed).toEqual([dragged.nodes[0]?.id]);
  });

  it("lists what is gone", () => {
    const model = new CanvasModel();
    const document = editsDocument();
    model.build(inputs(document));
    const removed = edited(document, { kind: "remove_node", nodeId: 3 });
    const frame = model.build(inputs(removed, { plan: null }));
    expect(operators(frame.nodes).map((node) => node.id)).toEqual(["1", "2"]);
    expect(frame.changed).toEqual(expect.arrayContaining(["3", "2-3-0-0"]));
    expect(frame.chains.size).toBe(0);
  });

  it("marks selection, dragging, diagnostics and other users' selections", () => {
    const document = editsDocument();
    const plan: LivePlan = {
      ...planOf(document),
      diagnostics: [
        { code: "x", severity: "error", message: "bad", node: 2, edge: null, field: "parallelism" },
        { code: "y", severity: "warning", message: "odd", node: null, edge: 1, field: null },
      ],
    };
    const other: PresenceEntry = {
      ...presenceEntry("c2", "grace"),
      selection: { nodes: [3], edges: [[1, 2, 0, 0]] },
    };
    const frame = new CanvasModel().build(
      inputs(document, {
        plan,
        selectedNodes: new Set([1]),
        selectedEdges: new Set(["2-3-0-0"]),
        dragging: new Map([[1, { x: 500, y: 600 }]]),
        others: { c2: other },
      }),
    );
    const [n1] = operators(frame.nodes);
    expect(n1?.selected).toBe(true);
    expect(n1?.position).toEqual({ x: 500, y: 600 });
    expect(frame.edges[1]?.selected).toBe(true);
    expect(frame.operators.get("2")?.diagnostics.map((d) => d.message)).toEqual(["bad"]);
    expect(frame.operators.get("3")?.presence.map((m) => m.username)).toEqual(["grace"]);
    expect(frame.edgeViews.get("2-3-0-0")?.diagnostics.map((d) => d.message)).toEqual(["odd"]);
    expect(frame.edgeViews.get("1-2-0-0")?.presence).toHaveLength(1);
  });

  it("gives two-input operators two handles and sources none", () => {
    const document: StreamGraphDocument = {
      format: "streamgraph/v1",
      nodes: [
        { id: 1, name: "a", operator: "source.sequence" },
        { id: 2, name: "b", operator: "source.sequence" },
        { id: 3, name: "co", operator: "co_map" },
      ],
      edges: [
        { source: 1, target: 3, partitioner: "FORWARD", typeNumber: 1 },
        { source: 2, target: 3, partitioner: "FORWARD", typeNumber: 2 },
      ],
    };
    const source = {
      kind: "source.sequence",
      label: "Sequence",
      category: "source",
      description: "",
      inputs: 0,
      keyed: false,
      defaults: { name: "Source: Sequence", chainingStrategy: "ALWAYS", factory: "SOURCE" },
      params: [],
      palette: true,
    } as const;
    const frame = new CanvasModel().build(
      inputs(document, { plan: null, specs: new Map([["source.sequence", source]]) }),
    );
    expect([...frame.operators.values()].map((view) => view.inputHandles)).toEqual([0, 0, 2]);
    expect(operators(frame.nodes).map((node) => node.handles)).toEqual([
      OPERATOR_HANDLES[0],
      OPERATOR_HANDLES[0],
      OPERATOR_HANDLES[2],
    ]);
    expect(frame.edges.map((edge) => edge.targetHandle)).toEqual(["in1", "in2"]);
    expect(typeNumberOf(targetHandleOf(2))).toBe(2);
    expect(typeNumberOf(null)).toBe(0);
  });

  it("places nodes without a stored position on the grid", () => {
    const document: StreamGraphDocument = {
      format: "streamgraph/v1",
      nodes: [
        { id: 1, name: "a" },
        { id: 2, name: "b", ui: { x: 5, y: 6 } },
      ],
      edges: [{ source: 1, target: 2, partitioner: "FORWARD" }],
    };
    const frame = new CanvasModel().build(inputs(document, { plan: null }));
    expect(operators(frame.nodes).map((node) => node.position)).toEqual([
      { x: 40, y: 40 },
      { x: 5, y: 6 },
    ]);
  });
});

describe("edge partitioners", () => {
  it("name the chosen partitioner, or Flink's default as the plan resolved it", () => {
    const document = edited(editsDocument(), {
      kind: "set_field",
      element: "edge",
      edgeKey: [2, 3, 0, 0],
      field: "partitioner",
      value: null,
    });
    const frame = new CanvasModel().build(inputs(document));
    const chosen = frame.edgeViews.get("1-2-0-0");
    const unchosen = frame.edgeViews.get("2-3-0-0");
    expect(chosen && [chosen.partitioner, chosen.partitionerChosen]).toEqual(["FORWARD", true]);
    expect(unchosen && [unchosen.partitioner, unchosen.partitionerChosen]).toEqual([
      "FORWARD",
      false,
    ]);
    expect(chosen && partitionerLabel(chosen)).toBe("FORWARD");
    expect(unchosen && partitionerLabel(unchosen)).toBe("FORWARD (default)");
    const planless = new CanvasModel().build(inputs(document, { plan: null }));
    const waiting = planless.edgeViews.get("2-3-0-0");
    expect(waiting && partitionerLabel(waiting)).toBe("default");
    // Default edges are drawn apart from chosen ones.
    expect(partitionerClass(unchosen)).toBe(" is-default");
    expect(partitionerClass(chosen)).toBe("");
    expect(partitionerClass(undefined)).toBe("");
  });
});

describe("helpers", () => {
  it("boxes a chain around its operators", () => {
    const [vertex] = Object.values(planOf(editsDocument()).vertices);
    if (vertex === undefined) {
      throw new Error("the plan has a vertex");
    }
    const box = chainBox(
      vertex,
      new Map([
        [1, { x: 0, y: 0 }],
        [2, { x: 200, y: 0 }],
        [3, { x: 400, y: 100 }],
      ]),
    );
    expect(box).toEqual({
      x: -10,
      y: -32,
      width: 400 + NODE_WIDTH + 20,
      height: 100 + NODE_HEIGHT + 20 + 22,
    });
  });

  it("sorts diagnostics to their elements and presence to selections", () => {
    const sorted = diagnosticsByElement([
      { code: "a", severity: "error", message: "", node: 1, edge: null, field: null },
      { code: "b", severity: "error", message: "", node: 1, edge: 0, field: null },
      { code: "c", severity: "error", message: "", node: null, edge: null, field: null },
    ]);
    expect(sorted.nodes.get(1)).toHaveLength(1);
    expect(sorted.edges.get(0)).toHaveLength(1);
    expect(sorted.global).toHaveLength(1);
    const marks = presenceMarks({
      a: { ...presenceEntry("a", "ada"), selection: { nodes: [4], edges: [] } },
    });
    expect(marks.nodes.get(4)?.[0]?.initial).toBe("A");
  });
});
