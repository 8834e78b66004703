import { describe, expect, it } from "vitest";

import type { OperatorSpec } from "../api/resources";
import { applyEdit } from "../graph/edits";
import { edgePartitioners, type StreamGraphDocument } from "../graph/streamgraph";
import { editsDocument } from "../test-support/builders";
import {
  allEdgeIds,
  copySelection,
  deleteEdits,
  freeNodeIds,
  newEdge,
  newOperator,
  pasteEdits,
  uniqueName,
} from "./commands";

function spec(overrides: Partial<OperatorSpec> = {}): OperatorSpec {
  return {
    kind: "map",
    label: "Map",
    category: "transform",
    description: "",
    inputs: 1,
    keyed: false,
    defaults: { name: "Map", chainingStrategy: "ALWAYS", factory: "OPERATOR" },
    params: [
      {
        name: "fn",
        label: "Function",
        type: "expression",
        required: true,
        default: "x",
        choices: null,
        help: "",
        appliesWhen: null,
      },
    ],
    palette: true,
    ...overrides,
  };
}

function applyAll(document: StreamGraphDocument, edits: ReturnType<typeof deleteEdits>) {
  return edits.reduce((doc, edit) => applyEdit(doc, edit).document, document);
}

describe("new operators", () => {
  it("take the next id, a free name and the catalog's defaults", () => {
    const document = editsDocument();
    const node = newOperator(document, spec(), { x: 10.4, y: 20.6 });
    expect(node).toMatchObject({
      id: 4,
      name: "Map 2",
      operator: "map",
      params: { fn: "x" },
      parallelism: -1,
      chainingStrategy: "ALWAYS",
      ui: { x: 10, y: 21 },
    });
  });

  it("numbers names until one is free", () => {
    const document = editsDocument();
    expect(uniqueName(document, "Filter")).toBe("Filter");
    expect(uniqueName(document, "Map")).toBe("Map 2");
    expect(freeNodeIds(document, 2)).toEqual([4, 5]);
  });
});

describe("new edges", () => {
  it("choose no partitioner, so Flink's default follows the parallelism", () => {
    const document = editsDocument();
    const edge = newEdge(1, 3, 0, spec());
    expect(edge.partitioner).toBeNull();
    const connected = applyEdit(document, { kind: "connect", edge }).document;
    expect(edgePartitioners(connected).at(-1)).toEqual({ partitioner: "FORWARD", chosen: false });
    const wider = applyEdit(connected, {
      kind: "set_field",
      element: "node",
      nodeId: 3,
      field: "parallelism",
      value: 4,
    }).document;
    expect(edgePartitioners(wider).at(-1)).toEqual({ partitioner: "REBALANCE", chosen: false });
  });

  it("key by the whole record into keyed operators", () => {
    expect(newEdge(1, 3, 0, spec({ keyed: true }))).toMatchObject({
      partitioner: "HASH",
      key: { fn: "x" },
    });
  });
});

describe("delete", () => {
  it("removes nodes with their edges and selected edges between others", () => {
    const document = editsDocument();
    const after = applyAll(document, deleteEdits(document, new Set([3]), new Set(["1-2-0-0"])));
    expect(after.nodes.map((n) => n.id)).toEqual([1, 2]);
    expect(after.edges).toEqual([]);
  });

  it("takes duplicate edges from the last one back", () => {
    let document = editsDocument();
    document = applyEdit(document, {
      kind: "connect",
      edge: { source: 1, target: 2, partitioner: "REBALANCE" },
    }).document;
    const edits = deleteEdits(document, new Set(), new Set(["1-2-0-0", "1-2-0-1"]));
    expect(edits.map((e) => (e.kind === "disconnect" ? e.edgeKey[3] : -1))).toEqual([1, 0]);
    expect(allEdgeIds(applyAll(document, edits))).toEqual(["2-3-0-0"]);
  });
});

describe("copy and paste", () => {
  it("copies the inner edges and pastes with new ids, names and no uids", () => {
    const document: StreamGraphDocument = {
      ...editsDocument(),
      nodes: editsDocument().nodes.map((n) =>
        n.id === 2 ? { ...n, uid: "the-map", ui: { x: 100, y: 50, note: "kept" } } : n,
      ),
    };
    const clipboard = copySelection(document, new Set([2, 3]));
    expect(clipboard.edges).toHaveLength(1);
    const { edits, nodeIds } = pasteEdits(document, clipboard);
    expect(nodeIds).toEqual([4, 5]);
    const after = applyAll(document, edits);
    const pasted = after.nodes.find((n) => n.id === 4);
    expect(pasted).toMatchObject({ name: "Map 2", uid: null, ui: { x: 140, y: 90, note: "kept" } });
    expect(after.nodes.find((n) => n.id === 5)?.name).toBe("Sink: out 2");
    expect(allEdgeIds(after)).toContain("4-5-0-0");
  });
});
