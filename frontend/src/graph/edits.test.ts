import { describe, expect, it } from "vitest";

import { editsDocument } from "../test-support/builders";
import { fixtureNames, loadFixture } from "../test-support/fixtures";
import {
  affectsPlan,
  applyEdit,
  edgeKeys,
  EditRejected,
  inverseEdits,
  parseEdit,
  renameNodes,
  type Edit,
} from "./edits";
import type { JsonValue } from "./json";
import { documentEdges, type StreamGraphDocument } from "./streamgraph";

/** `Edit.from_json` then `apply_edit`, as the server runs an edit it receives. */
function apply(document: StreamGraphDocument, data: unknown) {
  return applyEdit(document, parseEdit(data));
}

function rejection(run: () => unknown): EditRejected {
  try {
    run();
  } catch (error) {
    if (error instanceof EditRejected) {
      return error;
    }
    throw error;
  }
  throw new Error("the edit was not rejected");
}

/** JSON text with the keys of every object sorted. */
function canonical(value: JsonValue): string {
  return JSON.stringify(value, (_, item: unknown) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe("applyEdit, as tests/compiler/test_edits.py checks apply_edit", () => {
  it.each([
    { kind: "remove_node", nodeId: 2 },
    { kind: "move_node", nodeId: 2, x: 5, y: 6 },
    { kind: "set_field", element: "node", nodeId: 2, field: "params.fn", value: 1 },
    { kind: "set_field", element: "config", field: "defaultParallelism", value: 3 },
    { kind: "set_field", element: "document", field: "meta.keep.me", value: false },
    { kind: "disconnect", edgeKey: [1, 2, 0, 0] },
    { kind: "add_node", node: { name: "Filter", params: { fn: "x" } } },
  ])("never modifies its input: %j", (data) => {
    const original = deepFreeze(editsDocument());
    const before = JSON.stringify(original);
    const { document } = apply(original, data);
    expect(JSON.stringify(original)).toBe(before);
    expect(JSON.stringify(document)).not.toBe(before);
  });

  it("assigns a free id to an added node and fills the defaults", () => {
    const { document, applied } = apply(editsDocument(), {
      kind: "add_node",
      node: { id: 2, name: "Filter" },
    });
    expect(applied.kind === "add_node" && applied.node.id).toBe(4);
    const added = document.nodes.at(-1);
    expect(added?.id).toBe(4);
    expect(added?.chainingStrategy).toBe("ALWAYS");
    expect(added?.parallelism).toBe(-1);
  });

  it("removes a node's edges with it", () => {
    const { document } = apply(editsDocument(), { kind: "remove_node", nodeId: 2 });
    expect(document.nodes.map((node) => node.id)).toEqual([1, 3]);
    expect(document.edges).toEqual([]);
  });

  it("sets dotted paths and keeps unknown keys", () => {
    let { document } = apply(editsDocument(), {
      kind: "set_field",
      element: "node",
      nodeId: 2,
      field: "params.fn",
      value: "x * 2",
    });
    expect(document.nodes[1]?.params).toEqual({ fn: "x * 2" });
    expect(document.meta).toEqual({ keep: { me: true } });
    ({ document } = apply(document, {
      kind: "set_field",
      element: "edge",
      edgeKey: [2, 3, 0, 0],
      field: "partitioner",
      value: "REBALANCE",
    }));
    expect(documentEdges(document)[1]?.partitioner).toBe("REBALANCE");
  });

  it("connects and disconnects by edge key", () => {
    let { document } = apply(editsDocument(), {
      kind: "connect",
      edge: { source: 1, target: 3 },
    });
    expect(edgeKeys(document).at(-1)).toEqual([1, 3, 0, 0]);
    ({ document } = apply(document, { kind: "disconnect", edgeKey: [1, 3, 0, 0] }));
    expect(edgeKeys(document)).toEqual([
      [1, 2, 0, 0],
      [2, 3, 0, 0],
    ]);
  });

  it.each([
    [{ kind: "explode" }, "edit.kind"],
    [{ kind: "remove_node", nodeId: 42 }, "edit.unknown-node"],
    [{ kind: "disconnect", edgeKey: [3, 1, 0, 0] }, "edit.unknown-edge"],
    [{ kind: "connect", edge: { source: 1, target: 99 } }, "edit.unknown-node"],
    [{ kind: "set_field", element: "node", nodeId: 1, field: "id", value: 5 }, "edit.field"],
    [
      { kind: "set_field", element: "node", nodeId: 2, field: "params.fn.x", value: 1 },
      "edit.field",
    ],
    [{ kind: "move_node", nodeId: 1, x: "left", y: 0 }, "edit.position"],
    [{ kind: "add_node", node: { name: "" } }, "edit.node-name"],
    [{ kind: "disconnect", edgeKey: [1, 2] }, "edit.edge-key"],
  ])("rejects %j with the code %s", (data, code) => {
    expect(rejection(() => apply(editsDocument(), data)).code).toBe(code);
  });

  it("round trips an edit through JSON", () => {
    const data = {
      kind: "set_field",
      element: "edge",
      edgeKey: [1, 2, 0, 0],
      field: "partitioner",
      value: "HASH",
    };
    const edit = parseEdit(data);
    expect(parseEdit(JSON.parse(JSON.stringify(edit)))).toEqual(edit);
    expect(edit).toEqual(data);
  });

  it.each([
    [{ kind: "move_node", nodeId: 2, x: 1, y: 1 }, false],
    [{ kind: "set_field", element: "node", nodeId: 2, field: "params.fn", value: "y" }, false],
    [{ kind: "set_field", element: "node", nodeId: 2, field: "operator", value: "filter" }, false],
    [{ kind: "set_field", element: "document", field: "meta.note", value: 1 }, false],
    [{ kind: "set_field", element: "node", nodeId: 2, field: "params", value: 3 }, true],
    [{ kind: "set_field", element: "node", nodeId: 2, field: "name", value: "M" }, true],
    [
      {
        kind: "set_field",
        element: "edge",
        edgeKey: [1, 2, 0, 0],
        field: "key",
        value: { fn: "x" },
      },
      true,
    ],
    [{ kind: "connect", edge: { source: 1, target: 3 } }, true],
  ])("knows whether %j can change the plan (%s)", (data, affects) => {
    expect(affectsPlan(parseEdit(data))).toBe(affects);
  });
});

describe("applyEdit gives what the Python gives, byte for byte", () => {
  // Each expected text is `json.dumps(..., separators=(",", ":"))` of what
  // `compiler.edits.apply_edit` returned for the same document and edit.
  const NODES =
    '{"id":1,"name":"Source: s","operator":"source.sequence","parallelism":2},' +
    '{"id":2,"name":"Map","operator":"map","params":{"fn":"x"},"parallelism":2},' +
    '{"id":3,"name":"Sink: out","operator":"sink.print","parallelism":2}';
  const EDGES =
    '{"source":1,"target":2,"partitioner":"FORWARD"},{"source":2,"target":3,"partitioner":"FORWARD"}';

  it("adds a node: defaults first, then the given keys, then the assigned id", () => {
    const { document, applied } = apply(editsDocument(), {
      kind: "add_node",
      node: { name: "Filter", params: { fn: "x" } },
    });
    const node =
      '{"operator":"map","params":{"fn":"x"},"parallelism":-1,"maxParallelism":-1,' +
      '"chainingStrategy":"ALWAYS","slotSharingGroup":null,"coLocationGroup":null,"uid":null,' +
      '"uidHash":null,"factory":"OPERATOR","ui":{},"name":"Filter","id":4}';
    expect(JSON.stringify(document)).toBe(
      '{"format":"streamgraph/v1","name":"edits","config":{"defaultParallelism":2},' +
        `"nodes":[${NODES},${node}],"edges":[${EDGES}],"meta":{"keep":{"me":true}}}`,
    );
    expect(JSON.stringify(applied)).toBe(`{"kind":"add_node","node":${node}}`);
  });

  it("connects with the edge defaults and keeps the edge's own keys", () => {
    const { document } = apply(editsDocument(), {
      kind: "connect",
      edge: { source: 1, target: 3, extra: { a: 1 } },
    });
    expect(JSON.stringify(documentEdges(document).at(-1))).toBe(
      '{"partitioner":"FORWARD","exchangeMode":"UNDEFINED","typeNumber":0,"sideOutputTag":null,' +
        '"source":1,"target":3,"extra":{"a":1}}',
    );
  });

  it("moves a node into a new ui object and removes a nested key set to null", () => {
    let { document } = apply(editsDocument(), { kind: "move_node", nodeId: 2, x: 5, y: 6.5 });
    expect(JSON.stringify(document.nodes[1])).toBe(
      '{"id":2,"name":"Map","operator":"map","params":{"fn":"x"},"parallelism":2,"ui":{"x":5,"y":6.5}}',
    );
    ({ document } = apply(document, {
      kind: "set_field",
      element: "document",
      field: "meta.keep.me",
      value: null,
    }));
    expect(JSON.stringify(document.meta)).toBe('{"keep":{}}');
  });

  it("rejects with the Python's message and location", () => {
    const cases: [unknown, string, string, number | null, number | null, string | null][] = [
      [
        { kind: "set_field", element: "node", field: "id", value: 5 },
        "edit.field",
        "'id' of a node cannot be set; use the dedicated edit",
        null,
        null,
        "id",
      ],
      [
        { kind: "connect", edge: { source: 99, target: "x" } },
        "edit.unknown-node",
        "there is no node 99",
        99,
        null,
        null,
      ],
      [
        {
          kind: "set_field",
          element: "edge",
          edgeKey: [1, 2, 0, 0],
          field: "partitioner.x",
          value: 1,
        },
        "edit.field",
        "'partitioner' is not an object, cannot set 'partitioner.x'",
        null,
        0,
        "partitioner.x",
      ],
      [
        { kind: "explode" },
        "edit.kind",
        "'kind' must be one of add_node, remove_node, move_node, connect, disconnect, set_field, got 'explode'",
        null,
        null,
        null,
      ],
    ];
    for (const [data, code, message, node, edge, field] of cases) {
      const error = rejection(() => apply(editsDocument(), data));
      expect([error.code, error.message, error.node, error.edge, error.field]).toEqual([
        code,
        message,
        node,
        edge,
        field,
      ]);
    }
  });
});

describe("applyEdit beyond the Python tests", () => {
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

  it("counts k among edges with the same source, target and typeNumber", () => {
    let document = editsDocument();
    for (const typeNumber of [0, 1, 0]) {
      ({ document } = apply(document, {
        kind: "connect",
        edge: { source: 1, target: 2, typeNumber },
      }));
    }
    expect(edgeKeys(document)).toEqual([
      [1, 2, 0, 0],
      [2, 3, 0, 0],
      [1, 2, 0, 1],
      [1, 2, 1, 0],
      [1, 2, 0, 2],
    ]);
    ({ document } = apply(document, { kind: "disconnect", edgeKey: [1, 2, 0, 1] }));
    expect(documentEdges(document).map((edge) => edge.typeNumber ?? 0)).toEqual([0, 0, 1, 0]);
  });

  it("sets a top-level null as a value, and refuses protected fields of every element", () => {
    const { document } = apply(editsDocument(), {
      kind: "set_field",
      element: "node",
      nodeId: 1,
      field: "uid",
      value: null,
    });
    expect(document.nodes[0]).toHaveProperty("uid", null);
    for (const [element, field] of [
      ["edge", "source"],
      ["edge", "target.x"],
      ["document", "format"],
      ["document", "nodes"],
      ["document", "edges"],
    ]) {
      const data = { kind: "set_field", element, edgeKey: [1, 2, 0, 0], field, value: 1 };
      expect(rejection(() => apply(editsDocument(), data)).code).toBe("edit.field");
    }
  });

  it("treats keys such as __proto__ as data", () => {
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

  it.each([
    [
      {},
      "edit.kind",
      "'kind' must be one of add_node, remove_node, move_node, connect, disconnect, set_field, got None",
    ],
    [[], "edit.malformed", "an edit must be an object"],
    [{ kind: "remove_node" }, "edit.malformed", "remove_node needs 'nodeId'"],
    [{ kind: "remove_node", nodeId: true }, "edit.node-id", "'nodeId' must be an integer"],
    [
      { kind: "set_field", field: "x", value: 1 },
      "edit.malformed",
      "set_field needs 'element' and 'field'",
    ],
    [
      { kind: "set_field", element: "node", field: "name" },
      "edit.malformed",
      "set_field needs 'nodeId'",
    ],
    [
      { kind: "set_field", element: "nope", field: "x" },
      "edit.element",
      "'element' must be node, edge, config or document",
    ],
    [{ kind: "move_node", nodeId: 1, x: 1 }, "edit.position", "move_node needs 'x' and 'y'"],
    [{ kind: "connect", edge: [1] }, "edit.malformed", "'edge' must be an object"],
  ])("parseEdit refuses %j", (data, code, message) => {
    const error = rejection(() => parseEdit(data));
    expect([error.code, error.message]).toEqual([code, message]);
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
    { kind: "move_node", nodeId: 2, x: 1, y: 2 },
    { kind: "connect", edge: { source: 1, target: 3, partitioner: "HASH" } },
    { kind: "set_field", element: "node", nodeId: 2, field: "params.fn", value: "y" },
    { kind: "set_field", element: "node", nodeId: 2, field: "params.new", value: "y" },
    { kind: "set_field", element: "node", nodeId: 2, field: "parallelism", value: 8 },
    { kind: "set_field", element: "edge", edgeKey: [10, 12, 0, 0], field: "key.fn", value: "k" },
    { kind: "set_field", element: "config", field: "defaultParallelism", value: 8 },
    { kind: "set_field", element: "document", field: "meta.description", value: null },
    { kind: "set_field", element: "document", field: "name", value: "renamed" },
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
  ])("renames the node ids in %j", (edit, expected) => {
    expect(renameNodes(edit, renames)).toEqual(expected);
  });

  it("returns the same edit when no id is renamed", () => {
    const edit: Edit = { kind: "move_node", nodeId: 2, x: 0, y: 0 };
    expect(renameNodes(edit, renames)).toBe(edit);
  });
});
