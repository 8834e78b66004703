import { describe, expect, it } from "vitest";

import { editsDocument } from "../test-support/builders";
import { fixtureNames, loadFixture } from "../test-support/fixtures";
import { applyEdit, inverseEdits, parseEdit, renameNodes, type Edit } from "./edits";
import type { JsonValue } from "./json";
import { documentEdges, type StreamGraphDocument } from "./streamgraph";

/** `Edit.from_json` then `apply_edit`, as the server runs an edit it receives. */
function apply(document: StreamGraphDocument, data: unknown) {
  return applyEdit(document, parseEdit(data));
}

/** JSON text with the keys of every object sorted. */
function canonical(value: JsonValue): string {
  return JSON.stringify(value, (_, item: unknown) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}

// Applying and rejecting edits as the server does: the shared cases
// (tests/contracts/edits.json, `edits.contracts.test.ts`). What only this one does:
describe("applyEdit", () => {
  it("shares every element the edit does not change", () => {
    const before = editsDocument();
    const { document } = apply(before, {
      kind: "set_field",
      element: "node",
      nodeId: 2,
      field: "params.fn",
      value: "y",
    });
    expect(document.nodes[0]).toBe(before.nodes[0]);
    expect(document.nodes[2]).toBe(before.nodes[2]);
    expect(document.nodes[1]).not.toBe(before.nodes[1]);
    expect(documentEdges(document)[0]).toBe(documentEdges(before)[0]);
    expect(document.meta).toBe(before.meta);
  });

  it("never lets a key such as __proto__ reach a prototype", () => {
    const { document } = apply(editsDocument(), {
      kind: "set_field",
      element: "node",
      nodeId: 2,
      field: "params.__proto__",
      value: { polluted: true },
    });
    const params = document.nodes[1]?.params ?? {};
    expect(Object.keys(params)).toEqual(["fn", "__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("inverseEdits", () => {
  function undoes(before: StreamGraphDocument, edit: Edit): StreamGraphDocument {
    const { document: after, applied } = applyEdit(before, edit);
    return inverseEdits(before, after, applied).reduce(
      (document, inverse) => applyEdit(document, inverse).document,
      after,
    );
  }

  it.each<Edit>([
    { kind: "add_node", node: { name: "Filter" } },
    { kind: "add_node", node: { name: "Filter" }, edge: { source: 2, partitioner: null } },
    { kind: "move_node", nodeId: 2, x: 1, y: 2 },
    { kind: "connect", edge: { source: 1, target: 3, partitioner: "HASH" } },
    { kind: "set_field", element: "node", nodeId: 2, field: "params.fn", value: "y" },
    { kind: "set_field", element: "node", nodeId: 2, field: "params.new", value: "y" },
    { kind: "set_field", element: "node", nodeId: 2, field: "parallelism", value: 8 },
    { kind: "set_field", element: "edge", edgeKey: [10, 12, 0, 0], field: "key.fn", value: "k" },
    { kind: "set_field", element: "config", field: "defaultParallelism", value: 8 },
    { kind: "set_field", element: "document", field: "meta.description", value: null },
    { kind: "set_field", element: "document", field: "name", value: "renamed" },
    {
      kind: "move_nodes",
      moves: [
        { nodeId: 2, x: 1, y: 2 },
        { nodeId: 1, x: 3, y: 4 },
      ],
    },
    { kind: "set_operator", nodeId: 2, operator: "filter", params: { predicate: "x > 0" } },
  ])("restores a fixture after %j", (edit) => {
    // A fixture spells out every key, so the inverse is exact up to key order.
    const before = loadFixture("basic-operations");
    expect(canonical(undoes(before, edit))).toBe(canonical(before));
  });

  it("puts back what the compiler reads when the key was left out before", () => {
    const fixture = loadFixture("basic-operations");
    const reconnected = undoes(fixture, { kind: "disconnect", edgeKey: [2, 3, 0, 0] });
    expect(documentEdges(reconnected).at(-1)).toEqual(documentEdges(fixture)[1]);
    const keyed = undoes(fixture, {
      kind: "set_field",
      element: "edge",
      edgeKey: [1, 2, 0, 0],
      field: "key",
      value: { fn: "k" },
    });
    expect(documentEdges(keyed)[0]).toHaveProperty("key", null);
    const before = editsDocument();
    const moved = undoes(before, { kind: "move_node", nodeId: 2, x: 1, y: 2 });
    expect(moved.nodes[1]?.ui).toEqual({});
    const set = undoes(before, {
      kind: "set_field",
      element: "node",
      nodeId: 2,
      field: "chainingStrategy",
      value: "NEVER",
    });
    expect(set.nodes[1]?.chainingStrategy).toBe("ALWAYS");
  });

  it("takes a layout back in one move, and unplaced nodes back off the grid", () => {
    const before = applyEdit(editsDocument(), {
      kind: "move_node",
      nodeId: 1,
      x: 10,
      y: 20,
    }).document;
    const layout: Edit = {
      kind: "move_nodes",
      moves: [
        { nodeId: 1, x: 100, y: 200 },
        { nodeId: 2, x: 300, y: 200 },
      ],
    };
    const { document: after, applied } = applyEdit(before, layout);
    // One edit, however many nodes had no position: they go back to the grid in it.
    expect(inverseEdits(before, after, applied)).toEqual([
      {
        kind: "move_nodes",
        moves: [
          { nodeId: 1, x: 10, y: 20 },
          { nodeId: 2, x: null, y: null },
        ],
      },
    ]);
    const undone = undoes(before, layout);
    expect(undone.nodes[0]?.ui).toEqual({ x: 10, y: 20 });
    expect(undone.nodes[1]?.ui).toEqual({}); // as after undoing a move_node
  });

  it("brings back a node fed by one edge in one edit, with that edge", () => {
    const before = editsDocument();
    const { document: after, applied } = applyEdit(before, { kind: "remove_node", nodeId: 3 });
    const inverse = inverseEdits(before, after, applied);
    expect(inverse).toEqual([
      {
        kind: "add_node",
        node: before.nodes[2],
        edge: { source: 2, partitioner: "FORWARD" },
      },
    ]);
    const restored = inverse.reduce((document, edit) => applyEdit(document, edit).document, after);
    // Node and edge with the defaults they had been read with.
    expect(restored.nodes.map((node) => node.id)).toEqual([1, 2, 3]);
    expect(restored.nodes[2]).toMatchObject(before.nodes[2] ?? {});
    expect(documentEdges(restored)).toEqual([
      documentEdges(before)[0],
      {
        source: 2,
        target: 3,
        partitioner: "FORWARD",
        exchangeMode: "UNDEFINED",
        typeNumber: 0,
        sideOutputTag: null,
      },
    ]);
  });

  it("gives a node back its kind and its parameters whole", () => {
    const before = editsDocument();
    const changed = undoes(before, {
      kind: "set_operator",
      nodeId: 2,
      operator: "key_by",
      params: {},
    });
    expect(changed.nodes[1]).toEqual(before.nodes[1]);
  });

  it("names an edge by its new key after its typeNumber changed", () => {
    const before = editsDocument();
    const edit: Edit = {
      kind: "set_field",
      element: "edge",
      edgeKey: [1, 2, 0, 0],
      field: "typeNumber",
      value: 1,
    };
    const { document: after, applied } = applyEdit(before, edit);
    expect(inverseEdits(before, after, applied)).toEqual([
      { kind: "set_field", element: "edge", edgeKey: [1, 2, 1, 0], field: "typeNumber", value: 0 },
    ]);
  });

  it.each(fixtureNames().slice(0, 12))(
    "brings back every removed node with its edges in %s",
    (name) => {
      const before = loadFixture(name);
      for (const node of before.nodes) {
        const restored = undoes(before, { kind: "remove_node", nodeId: node.id });
        // The same nodes and edges, in any order and with keys in any order.
        const sorted = (document: StreamGraphDocument) => ({
          nodes: [...document.nodes].sort((a, b) => a.id - b.id),
          edges: documentEdges(document).map(canonical).sort(),
        });
        expect(sorted(restored)).toEqual(sorted(before));
      }
    },
  );
});

describe("renameNodes", () => {
  const renames = new Map([[4, 5]]);

  it.each<[Edit, JsonValue]>([
    [
      { kind: "remove_node", nodeId: 4 },
      { kind: "remove_node", nodeId: 5 },
    ],
    [
      { kind: "connect", edge: { source: 1, target: 4 } },
      { kind: "connect", edge: { source: 1, target: 5 } },
    ],
    [
      { kind: "disconnect", edgeKey: [4, 2, 0, 1] },
      { kind: "disconnect", edgeKey: [5, 2, 0, 1] },
    ],
    [
      { kind: "add_node", node: { id: 4, name: "a" } },
      { kind: "add_node", node: { id: 5, name: "a" } },
    ],
    [
      {
        kind: "move_nodes",
        moves: [
          { nodeId: 1, x: 0, y: 0 },
          { nodeId: 4, x: 1, y: 1 },
        ],
      },
      {
        kind: "move_nodes",
        moves: [
          { nodeId: 1, x: 0, y: 0 },
          { nodeId: 5, x: 1, y: 1 },
        ],
      },
    ],
    [
      { kind: "set_operator", nodeId: 4, operator: "map", params: {} },
      { kind: "set_operator", nodeId: 5, operator: "map", params: {} },
    ],
    [
      { kind: "add_node", node: { id: 4, name: "a" }, edge: { source: 1 } },
      { kind: "add_node", node: { id: 5, name: "a" }, edge: { source: 1 } },
    ],
    [
      { kind: "add_node", node: { name: "a" }, edge: { source: 4, typeNumber: 1 } },
      { kind: "add_node", node: { name: "a" }, edge: { source: 5, typeNumber: 1 } },
    ],
  ])("renames the node ids in %j", (edit, expected) => {
    expect(renameNodes(edit, renames)).toEqual(expected);
  });

  it("returns the same edit when no id is renamed", () => {
    const edit: Edit = { kind: "move_node", nodeId: 2, x: 0, y: 0 };
    expect(renameNodes(edit, renames)).toBe(edit);
  });
});
