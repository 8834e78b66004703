import { describe, expect, it } from "vitest";

import { editsDocument } from "../test-support/builders";
import { fixtureJson, fixtureNames } from "../test-support/fixtures";
import { checkDocument, parseDocument } from "./streamgraph";

function codes(raw: unknown): string[] {
  return checkDocument(raw).map((problem) => problem.code);
}

describe("parseDocument", () => {
  it.each(fixtureNames())("reads the fixture %s unchanged", (name) => {
    const raw = fixtureJson(name);
    const text = JSON.stringify(raw);
    const parsed = parseDocument(raw);
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && parsed.document).toBe(raw);
    expect(JSON.stringify(raw)).toBe(text);
  });

  it("keeps keys it does not know, at every level", () => {
    const raw = {
      ...editsDocument(),
      extension: { anything: [1, { deep: null }] },
      nodes: [
        { id: 1, name: "Source", future: true, params: { a: { b: 1 } }, ui: { color: "red" } },
      ],
      edges: [],
    };
    const parsed = parseDocument(raw);
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && JSON.stringify(parsed.document)).toBe(JSON.stringify(raw));
  });

  it("accepts a document without edges and without config", () => {
    expect(codes({ format: "streamgraph/v1", nodes: [{ id: 1, name: "a" }] })).toEqual([]);
  });

  it.each([
    [5, ["document.type"]],
    [{ nodes: [] }, ["document.format"]],
    [{ format: "streamgraph/v1" }, ["field.type"]],
    [{ format: "streamgraph/v1", nodes: [], edges: null }, ["field.type"]],
    [{ format: "streamgraph/v1", nodes: [], config: [] }, ["field.type"]],
    [{ format: "streamgraph/v1", nodes: [5] }, ["node.type"]],
    [{ format: "streamgraph/v1", nodes: [{ id: true, name: "a" }] }, ["node.id"]],
    [{ format: "streamgraph/v1", nodes: [{ id: 0, name: "a" }] }, ["node.id"]],
    [{ format: "streamgraph/v1", nodes: [{ id: 2 ** 31, name: "a" }] }, ["node.id"]],
    [
      {
        format: "streamgraph/v1",
        nodes: [
          { id: 1, name: "a" },
          { id: 1, name: "" },
        ],
      },
      ["node.duplicate-id"],
    ],
    [{ format: "streamgraph/v1", nodes: [{ id: 1, name: "" }] }, ["node.name"]],
    [
      { format: "streamgraph/v1", nodes: [{ id: 1, name: "a", chainingStrategy: "SOMETIMES" }] },
      ["field.enum"],
    ],
    [{ format: "streamgraph/v1", nodes: [{ id: 1, name: "a", parallelism: "2" }] }, ["field.type"]],
    [
      {
        format: "streamgraph/v1",
        nodes: [{ id: 1, name: "a" }],
        edges: [{ source: 1, target: 1, partitioner: "SIDEWAYS" }],
      },
      ["field.enum"],
    ],
    [
      {
        format: "streamgraph/v1",
        nodes: [{ id: 1, name: "a" }],
        edges: [{ source: 1, target: 9, partitioner: "FORWARD" }],
      },
      ["edge.unknown-node"],
    ],
  ])("refuses what the server refuses: %j", (raw, expected) => {
    expect(codes(raw)).toEqual(expected);
  });

  it("locates each problem as the compiler does", () => {
    const [problem] = checkDocument({
      format: "streamgraph/v1",
      nodes: [{ id: 4, name: "a", factory: "FACTORY" }],
    });
    expect(problem).toEqual({
      code: "field.enum",
      severity: "error",
      message: "'factory' must be one of OPERATOR, SOURCE, LEGACY_SOURCE, YIELDING, got 'FACTORY'",
      node: 4,
      edge: null,
      field: "factory",
    });
  });

  it("reads an edge without a partitioner, or with null, as one that chose none", () => {
    const edges = [
      { source: 1, target: 2 },
      { source: 1, target: 2, partitioner: null },
    ];
    expect(
      codes({
        format: "streamgraph/v1",
        nodes: [
          { id: 1, name: "a" },
          { id: 2, name: "b" },
        ],
        edges,
      }),
    ).toEqual([]);
  });

  it("leaves what is not structural to the plan's diagnostics", () => {
    const cycle = {
      format: "streamgraph/v1",
      nodes: [
        { id: 1, name: "a", parallelism: 100000 },
        { id: 2, name: "b" },
      ],
      edges: [
        { source: 1, target: 2, partitioner: "FORWARD" },
        { source: 2, target: 1, partitioner: "FORWARD" },
      ],
    };
    expect(codes(cycle)).toEqual([]);
  });
});
