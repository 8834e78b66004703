import { describe, expect, it } from "vitest";

import { editsDocument, planOf } from "../test-support/builders";
import { fixtureJson, fixtureNames, loadFixture } from "../test-support/fixtures";
import {
  canvasEdgeId,
  diagnosticElements,
  edgeKeyOf,
  GRID,
  moveToEdit,
  nodeIdOf,
  positionEdits,
  toCanvas,
  type CanvasNode,
} from "./canvas";
import { applyEdit, edgeKeys } from "./edits";
import { isJsonObject, type JsonValue } from "./json";
import type { LivePlan } from "./liveplan";
import { documentEdges, type StreamGraphDocument, type StreamNode } from "./streamgraph";

/** Every key path in `value`, e.g. `nodes.0.params.fn`. */
function keyPaths(value: JsonValue | undefined, prefix = ""): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item: JsonValue, index) => keyPaths(item, `${prefix}${index}.`));
  }
  if (isJsonObject(value)) {
    return Object.entries(value).flatMap(([key, item]) => [
      `${prefix}${key}`,
      ...keyPaths(item, `${prefix}${key}.`),
    ]);
  }
  return [];
}

/** The document with the canvas positions stored back, as the editor will store them. */
function storePositions(
  document: StreamGraphDocument,
  nodes: readonly Pick<CanvasNode, "id" | "position">[],
): StreamGraphDocument {
  return positionEdits(document, nodes).reduce(
    (current, edit) => applyEdit(current, edit).document,
    document,
  );
}

describe("toCanvas", () => {
  it.each(fixtureNames())("draws every node and edge of %s", (name) => {
    const document = loadFixture(name);
    const { nodes, edges } = toCanvas(document);
    expect(nodes.map((node) => node.id)).toEqual(document.nodes.map((node) => String(node.id)));
    expect(nodes.map((node) => node.data.node)).toEqual(document.nodes);
    expect(edges.map((edge) => edge.id)).toEqual(edgeKeys(document).map((key) => key.join("-")));
    expect(new Set(edges.map((edge) => edge.id)).size).toBe(edges.length);
    for (const node of nodes) {
      expect(node.position).toEqual({ x: node.data.node.ui?.x, y: node.data.node.ui?.y });
      expect(node.data.placed).toBe(false);
    }
  });

  it("names edges by their key and nodes by their id", () => {
    const { document } = applyEdit(editsDocument(), {
      kind: "connect",
      edge: { source: 1, target: 2 },
    });
    const { edges } = toCanvas(document);
    expect(edges.map((edge) => [edge.id, edge.source, edge.target])).toEqual([
      ["1-2-0-0", "1", "2"],
      ["2-3-0-0", "2", "3"],
      ["1-2-0-1", "1", "2"],
    ]);
    expect(edges[2]?.data.index).toBe(2);
    expect(edges[2]?.data.edge).toBe(documentEdges(document)[2]);
  });

  it("places nodes without a position on a grid, one column per layer", () => {
    const { nodes } = toCanvas(editsDocument());
    expect(nodes.map((node) => node.position)).toEqual([
      { x: GRID.left, y: GRID.top },
      { x: GRID.left + GRID.column, y: GRID.top },
      { x: GRID.left + 2 * GRID.column, y: GRID.top },
    ]);
    expect(nodes.every((node) => node.data.placed)).toBe(true);
  });

  it("lays out the same document the same way every time, cycles included", () => {
    const document = loadFixture("diamond-union");
    const stripped: StreamGraphDocument = {
      ...document,
      nodes: document.nodes.map(
        (node) =>
          Object.fromEntries(Object.entries(node).filter(([key]) => key !== "ui")) as StreamNode,
      ),
      edges: [...documentEdges(document), { source: 4, target: 2, partitioner: "FORWARD" }],
    };
    const first = toCanvas(stripped).nodes.map((node) => node.position);
    expect(toCanvas(stripped).nodes.map((node) => node.position)).toEqual(first);
    expect(new Set(first.map((position) => `${position.x},${position.y}`)).size).toBe(first.length);
  });

  it("carries the plan's OperatorID, vertex and chaining facts", () => {
    const document = editsDocument();
    const base = planOf(document);
    const plan: LivePlan = {
      ...base,
      edges: {
        ...base.edges,
        "1": {
          partitioner: "FORWARD",
          partitionerChosen: true,
          chained: false,
          chainedSource: false,
          reasons: ["parallelism differs"],
        },
      },
    };
    const { nodes, edges } = toCanvas(document, plan);
    expect(nodes[1]?.data).toMatchObject({
      operatorId: base.nodes["2"]?.operatorId,
      vertex: base.nodes["2"]?.vertex,
      userDefinedId: null,
    });
    expect(edges.map((edge) => [edge.data.chained, edge.data.reasons])).toEqual([
      [true, []],
      [false, ["parallelism differs"]],
    ]);
    const without = toCanvas(document);
    expect(without.nodes[1]?.data.operatorId).toBeNull();
    expect(without.edges[1]?.data.chained).toBeNull();
  });
});

describe("canvas positions back into the document", () => {
  it.each(fixtureNames())("loses no key of %s, and changes nothing else", (name) => {
    const raw = fixtureJson(name) as JsonValue;
    const document = loadFixture(name);
    const moved = toCanvas(document).nodes.map((node) => ({
      id: node.id,
      position: { x: node.position.x + 10, y: node.position.y - 5 },
    }));
    const stored = storePositions(document, moved);
    expect(keyPaths(stored)).toEqual(keyPaths(raw));
    const back = toCanvas(stored);
    expect(back.nodes.map((node) => node.position)).toEqual(moved.map((node) => node.position));
    const withoutPositions = (value: StreamGraphDocument) =>
      JSON.stringify({
        ...value,
        nodes: value.nodes.map((node) => ({ ...node, ui: { ...node.ui, x: 0, y: 0 } })),
      });
    expect(withoutPositions(stored)).toBe(withoutPositions(document));
  });

  it("keeps unknown keys at every level through a round trip", () => {
    const document: StreamGraphDocument = {
      ...editsDocument(),
      extension: { list: [1, { deep: true }] },
      nodes: editsDocument().nodes.map((node) => ({
        ...node,
        future: "kept",
        params: { ...node.params, nested: { a: [null] } },
        ui: { color: "teal", collapsed: true },
      })),
      edges: documentEdges(editsDocument()).map((edge) => ({ ...edge, label: "kept" })),
    };
    const stored = storePositions(document, toCanvas(document).nodes);
    const before = keyPaths(document);
    const after = keyPaths(stored);
    expect(before.filter((path) => !after.includes(path))).toEqual([]);
    expect(after.filter((path) => !before.includes(path))).toEqual(
      [0, 1, 2].flatMap((index) => [`nodes.${index}.ui.x`, `nodes.${index}.ui.y`]),
    );
    expect(stored.nodes[0]?.ui).toEqual({
      color: "teal",
      collapsed: true,
      x: GRID.left,
      y: GRID.top,
    });
    expect(stored.extension).toBe(document.extension);
    expect(documentEdges(stored)[0]).toBe(documentEdges(document)[0]);
  });

  it("only moves the nodes whose position changed", () => {
    const document = loadFixture("word-count");
    const { nodes } = toCanvas(document);
    expect(positionEdits(document, nodes)).toEqual([]);
    const [first, ...rest] = nodes;
    if (first === undefined) {
      throw new Error("word-count has nodes");
    }
    const edits = positionEdits(document, [{ ...first, position: { x: 1, y: 2 } }, ...rest]);
    expect(edits).toEqual([moveToEdit(Number(first.id), 1, 2)]);
  });

  it("reads ids back from the canvas", () => {
    expect(nodeIdOf("12")).toBe(12);
    expect(nodeIdOf("1-2-0-0")).toBeNull();
    expect(edgeKeyOf(canvasEdgeId([3, 4, 1, 2]))).toEqual([3, 4, 1, 2]);
    expect(edgeKeyOf("3")).toBeNull();
  });
});

describe("edge partitioners on the canvas", () => {
  it("carry what each edge resolves to and whether it was chosen", () => {
    const document: StreamGraphDocument = {
      ...editsDocument(),
      edges: [
        { source: 1, target: 2, partitioner: null },
        { source: 2, target: 3, partitioner: "SHUFFLE" },
      ],
    };
    const wider = applyEdit(document, {
      kind: "set_field",
      element: "node",
      nodeId: 2,
      field: "parallelism",
      value: 5,
    }).document;
    const facts = (doc: StreamGraphDocument) =>
      toCanvas(doc).edges.map((edge) => [edge.data.partitioner, edge.data.partitionerChosen]);
    expect(facts(document)).toEqual([
      ["FORWARD", false],
      ["SHUFFLE", true],
    ]);
    expect(facts(wider)).toEqual([
      ["REBALANCE", false],
      ["SHUFFLE", true],
    ]);
  });
});

describe("diagnosticElements", () => {
  const problem = {
    code: "graph.cycle",
    severity: "error",
    message: "the graph has a cycle through nodes 2, 3",
    node: 2,
    edge: null,
    field: null,
  } as const;

  it("selects every node and edge of a cycle", () => {
    const document = editsDocument();
    const looped = applyEdit(document, {
      kind: "connect",
      edge: { source: 3, target: 2, partitioner: "REBALANCE" },
    }).document;
    expect(diagnosticElements(looped, { ...problem, nodes: [2, 3], edges: [1, 2] })).toEqual({
      nodes: [2, 3],
      edges: ["2-3-0-0", "3-2-0-0"],
    });
  });

  it("selects the one element of a problem's location otherwise", () => {
    const document = editsDocument();
    expect(diagnosticElements(document, problem)).toEqual({ nodes: [2], edges: [] });
    expect(diagnosticElements(document, { ...problem, node: null, edge: 0 })).toEqual({
      nodes: [],
      edges: ["1-2-0-0"],
    });
  });
});
