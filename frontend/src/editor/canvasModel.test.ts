import { describe, expect, it } from "vitest";

import { applyEdit } from "../graph/edits";
import type { LivePlan } from "../graph/liveplan";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { editsDocument, planOf, presenceEntry } from "../test-support/builders";
import {
  CanvasModel,
  chainBox,
  diagnosticsByElement,
  NODE_HEIGHT,
  NODE_WIDTH,
  presenceMarks,
  targetHandleOf,
  typeNumberOf,
  type CanvasInputs,
  type ChainFlowNode,
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

describe("canvas model", () => {
  it("draws every operator, a box around the chain and every edge", () => {
    const document = editsDocument();
    const { nodes, edges } = new CanvasModel().build(inputs(document));
    expect(operators(nodes).map((node) => node.id)).toEqual(["1", "2", "3"]);
    const chain = nodes.find((node): node is ChainFlowNode => node.type === "chain");
    expect(chain?.data.vertex.nodes).toEqual([1, 2, 3]);
    expect(nodes[0]).toBe(chain);
    expect(edges.map((edge) => [edge.id, edge.data?.chained])).toEqual([
      ["1-2-0-0", true],
      ["2-3-0-0", true],
    ]);
    const map = operators(nodes)[1];
    expect(map?.data.parallelism).toBe(2);
    expect(map?.data.operatorId).toMatch(/^[0-9a-f]{32}$/);
    expect(operators(nodes)[0]?.data.chainHead).toBe(true);
  });

  it("hands back the same objects for what did not change", () => {
    const model = new CanvasModel();
    const document = editsDocument();
    const plan = planOf(document);
    const first = model.build(inputs(document, { plan }));
    const { document: renamed } = applyEdit(document, {
      kind: "set_field",
      element: "node",
      nodeId: 2,
      field: "name",
      value: "Parse",
    });
    const second = model.build(inputs(renamed, { plan }));
    const [a1, a2, a3] = operators(first.nodes);
    const [b1, b2, b3] = operators(second.nodes);
    expect(b1).toBe(a1);
    expect(b3).toBe(a3);
    expect(b2).not.toBe(a2);
    expect(b2?.data.node.name).toBe("Parse");
    expect(second.edges[0]).toBe(first.edges[0]);
  });

  it("shows a parallelism edit at once, before the plan has caught up", () => {
    const model = new CanvasModel();
    const document = editsDocument();
    const plan = planOf(document);
    model.build(inputs(document, { plan }));
    const { document: edited } = applyEdit(document, {
      kind: "set_field",
      element: "node",
      nodeId: 3,
      field: "parallelism",
      value: 7,
    });
    const [, , sink] = operators(model.build(inputs(edited, { plan })).nodes);
    expect(sink?.data.parallelism).toBe(7);
    expect(sink?.data.parallelismIsDefault).toBe(false);
    // The plan-derived facts stay those of the last plan until the server answers.
    expect(sink?.data.vertex).toBe(plan.nodes["3"]?.vertex);
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
    const other = {
      ...presenceEntry("c2", "grace"),
      selection: { nodes: [3], edges: [[1, 2, 0, 0]] },
    };
    const { nodes, edges } = new CanvasModel().build(
      inputs(document, {
        plan,
        selectedNodes: new Set([1]),
        dragging: new Map([[1, { x: 500, y: 600 }]]),
        others: { c2: other },
      }),
    );
    const [n1, n2, n3] = operators(nodes);
    expect(n1?.selected).toBe(true);
    expect(n1?.position).toEqual({ x: 500, y: 600 });
    expect(n2?.data.diagnostics.map((d) => d.message)).toEqual(["bad"]);
    expect(n3?.data.presence.map((m) => m.username)).toEqual(["grace"]);
    expect(edges[1]?.data?.diagnostics.map((d) => d.message)).toEqual(["odd"]);
    expect(edges[0]?.data?.presence).toHaveLength(1);
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
    } as const;
    const { nodes, edges } = new CanvasModel().build(
      inputs(document, { plan: null, specs: new Map([["source.sequence", source]]) }),
    );
    expect(operators(nodes).map((node) => node.data.inputHandles)).toEqual([0, 0, 2]);
    expect(edges.map((edge) => edge.targetHandle)).toEqual(["in1", "in2"]);
    expect(typeNumberOf(targetHandleOf(2))).toBe(2);
    expect(typeNumberOf(null)).toBe(0);
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
