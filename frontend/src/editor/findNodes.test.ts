import { describe, expect, it } from "vitest";

import type { OperatorSpec } from "../api/resources";
import type { LivePlan } from "../graph/liveplan";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { editsDocument, planOf } from "../test-support/builders";
import { findNodes, MIN_HASH_PREFIX } from "./findNodes";

function spec(kind: string, label: string): OperatorSpec {
  return {
    kind,
    label,
    category: "transform",
    description: "",
    inputs: 1,
    keyed: false,
    defaults: { name: label, chainingStrategy: "ALWAYS", factory: "OPERATOR" },
    params: [],
    palette: true,
  };
}

const SPECS = new Map(
  [
    spec("source.sequence", "Sequence"),
    spec("map", "Map"),
    spec("filter", "Filter"),
    spec("sink.print", "Print"),
  ].map((item) => [item.kind, item]),
);

/** Source: s (1) -> Map (2) -> Sink: out (3), plus 12 "Mapper" (filter, uid "mapper-uid"). */
function document(): StreamGraphDocument {
  const base = editsDocument();
  return {
    ...base,
    nodes: [
      ...base.nodes,
      { id: 12, name: "Mapper", operator: "filter", uid: "mapper-uid", uidHash: null },
    ],
  };
}

/** The plan of `document()`, with hashes told apart by their first digits. */
function plan(): LivePlan {
  const base = planOf(document());
  const ids: Record<string, [string, string, string | null]> = {
    "1": ["3f2a9c".padEnd(32, "0"), "b7e1".padEnd(32, "1"), null],
    "2": ["3f2b11".padEnd(32, "0"), "b7e1".padEnd(32, "1"), null],
    "3": ["c0ffee".padEnd(32, "0"), "d00d".padEnd(32, "1"), null],
    "12": ["99aa".padEnd(32, "0"), "d00d".padEnd(32, "1"), "e4e4".padEnd(32, "2")],
  };
  return {
    ...base,
    nodes: Object.fromEntries(
      Object.entries(ids).map(([id, [operatorId, vertex, userDefinedId]]) => [
        id,
        { operatorId, vertex, userDefinedId, hashBasis: "" },
      ]),
    ),
  };
}

function find(query: string, withPlan: LivePlan | null = plan()) {
  return findNodes(document(), withPlan, SPECS, query).map((found) => [found.nodeId, found.by]);
}

describe("finding nodes on the canvas", () => {
  it("finds nothing for an empty query", () => {
    expect(find("")).toEqual([]);
    expect(find("   ")).toEqual([]);
  });

  it("finds by name, whatever the case, exact names first", () => {
    expect(find("map")).toEqual([
      [2, "name"],
      [12, "name"],
    ]);
    expect(find("PER")).toEqual([[12, "name"]]);
    expect(find("sink:")).toEqual([[3, "name"]]);
  });

  it("finds by kind, the catalog's label or the kind itself", () => {
    expect(find("print")).toEqual([[3, "kind"]]);
    expect(find("sink.pr")).toEqual([[3, "kind"]]);
    expect(find("filter")).toEqual([[12, "kind"]]);
  });

  it("finds by node id, before names that hold the digits", () => {
    expect(find("12")).toEqual([[12, "id"]]);
    expect(find("#2")).toEqual([[2, "id"]]);
    expect(find("#9")).toEqual([]);
  });

  it("finds by uid", () => {
    expect(find("mapper-u")).toEqual([[12, "uid"]]);
  });

  it("finds by the start of an OperatorID, a JobVertexID or a uid hash", () => {
    expect(find("3F2A")).toEqual([[1, "operatorId"]]);
    expect(find("3f2")).toEqual([]);
    expect("3f2".length).toBeLessThan(MIN_HASH_PREFIX);
    expect(find("3f2b11")).toEqual([[2, "operatorId"]]);
    // A chain's nodes share their vertex: every one is found, in document order.
    expect(find("b7e1")).toEqual([
      [1, "vertex"],
      [2, "vertex"],
    ]);
    expect(find("e4e4")).toEqual([[12, "uidHash"]]);
    // Not the middle of a hash.
    expect(find("9c00")).toEqual([]);
  });

  it("finds no hashes without a plan, and everything else all the same", () => {
    expect(find("3f2a", null)).toEqual([]);
    expect(find("mapper", null)).toEqual([[12, "name"]]);
  });

  it("says how it found each node", () => {
    const [found] = findNodes(document(), plan(), SPECS, "c0ffee");
    expect(found).toEqual({
      nodeId: 3,
      name: "Sink: out",
      kind: "Print",
      by: "operatorId",
      text: "c0ffee".padEnd(32, "0"),
    });
  });

  it("lists at most as many as asked", () => {
    expect(find("p")).toHaveLength(3);
    expect(findNodes(document(), plan(), SPECS, "p", 2)).toHaveLength(2);
  });
});
