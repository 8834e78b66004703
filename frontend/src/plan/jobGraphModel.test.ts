import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import type { LivePlan } from "../graph/liveplan";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { chainedPlan } from "../test-support/builders";
import { loadFixture } from "../test-support/fixtures";
import {
  arrowPath,
  columnOverflow,
  columnScrollTarget,
  columnSpans,
  jobGraphModel,
  type Box,
  type Span,
} from "./jobGraphModel";

/** Two sources joined, then a sink chained to the join. */
function joinDocument(): StreamGraphDocument {
  return {
    format: "streamgraph/v1",
    name: "join",
    nodes: [
      { id: 1, name: "Source: A", operator: "source.sequence" },
      { id: 2, name: "Map", operator: "map" },
      { id: 3, name: "Source: B", operator: "source.sequence" },
      { id: 4, name: "Join", operator: "co_map" },
      { id: 5, name: "Sink: out", operator: "sink.print" },
    ],
    edges: [
      { source: 1, target: 2, partitioner: "FORWARD" },
      { source: 2, target: 4, partitioner: "HASH" },
      { source: 3, target: 4, partitioner: "REBALANCE", typeNumber: 1 },
      { source: 4, target: 5, partitioner: "FORWARD" },
    ],
  };
}

describe("the JobGraph model", () => {
  it("lists vertices in topological order with their operators head first", () => {
    const document = joinDocument();
    const model = jobGraphModel(chainedPlan(document, [[1, 2], [3], [4, 5]]), document);
    expect(model.vertices.map((v) => [v.name, v.layer])).toEqual([
      ["Source: A -> Map", 0],
      ["Source: B", 0],
      ["Join -> Sink: out", 1],
    ]);
    const first = model.vertices[0];
    expect(first?.operators.map((op) => [op.nodeId, op.name, op.kind])).toEqual([
      [1, "Source: A", "source.sequence"],
      [2, "Map", "map"],
    ]);
    expect(first?.operators[0]?.operatorId).toMatch(/^[0-9a-f]{32}$/);
    expect(first?.nodeIds).toEqual([2, 1]);
    expect(model.columns).toEqual([
      [model.vertices[0]?.id, model.vertices[1]?.id],
      [model.vertices[2]?.id],
    ]);
  });

  it("names both ends of every JobEdge and files it under both vertices", () => {
    const document = joinDocument();
    const model = jobGraphModel(chainedPlan(document, [[1, 2], [3], [4, 5]]), document);
    expect(
      model.edges.map((e) => [
        e.key,
        e.producerName,
        e.consumerName,
        e.shipStrategy,
        e.distributionPattern,
      ]),
    ).toEqual([
      ["je-1", "Source: A -> Map", "Join -> Sink: out", "HASH", "ALL_TO_ALL"],
      ["je-2", "Source: B", "Join -> Sink: out", "REBALANCE", "ALL_TO_ALL"],
    ]);
    const [a, b, join] = model.vertices;
    expect(a?.outputs.map((e) => e.key)).toEqual(["je-1"]);
    expect(b?.outputs.map((e) => e.key)).toEqual(["je-2"]);
    expect(join?.inputs.map((e) => e.key)).toEqual(["je-1", "je-2"]);
  });

  it("moves a vertex towards the row of its producers", () => {
    const document: StreamGraphDocument = {
      format: "streamgraph/v1",
      name: "crossed",
      nodes: [
        { id: 1, name: "Source: A" },
        { id: 2, name: "Source: B" },
        { id: 3, name: "From B" },
        { id: 4, name: "From A" },
      ],
      edges: [
        { source: 2, target: 3, partitioner: "REBALANCE" },
        { source: 1, target: 4, partitioner: "REBALANCE" },
      ],
    };
    const model = jobGraphModel(chainedPlan(document, [[1], [2], [3], [4]]), document);
    const name = (id: string): string | undefined => model.vertices.find((v) => v.id === id)?.name;
    expect(model.columns.map((column) => column.map(name))).toEqual([
      ["Source: A", "Source: B"],
      ["From A", "From B"],
    ]);
  });

  it("reads the server's plan of the word-count fixture", () => {
    const recorded = JSON.parse(
      readFileSync(new URL("../graph/testdata/word-count.liveplan.json", import.meta.url), "utf8"),
    ) as { plan: LivePlan };
    const model = jobGraphModel(recorded.plan, loadFixture("word-count"));
    expect(model.vertices.map((v) => v.operators.map((op) => op.nodeId))).toEqual([
      [1, 2, 3, 4],
      [6, 7],
    ]);
    expect(model.edges).toHaveLength(1);
    expect(model.edges[0]).toMatchObject({
      shipStrategy: "HASH",
      distributionPattern: "ALL_TO_ALL",
      resultPartitionType: "BLOCKING",
      dataSet: "52fee8c4e1b71e27cbc357cc9c9da75d",
    });
    expect(model.columns.map((column) => column.length)).toEqual([1, 1]);
  });

  it("survives a plan whose order misses a vertex", () => {
    const document = joinDocument();
    const plan = chainedPlan(document, [[1, 2], [3], [4, 5]]);
    const summary = plan.summary;
    const partial: LivePlan = {
      ...plan,
      summary: summary === null ? null : { ...summary, vertexOrder: summary.vertexOrder.slice(1) },
    };
    expect(jobGraphModel(partial, document).vertices).toHaveLength(3);
  });
});

describe("arrows", () => {
  it("run from the right middle of one box to the left middle of the other", () => {
    const path = arrowPath(
      { left: 0, top: 0, width: 100, height: 40 },
      { left: 300, top: 100, width: 100, height: 60 },
    );
    expect(path).toBe("M 100 20 C 200 20, 200 130, 300 130");
  });
});

describe("columns out of view", () => {
  const box = (left: number, top: number, width = 208): Box => ({ left, top, width, height: 90 });
  // Five columns of 208px, 40px apart: the view shows 704px of the 1200px they take.
  const spans: Span[] = [0, 248, 496, 744, 992].map((left) => ({ left, right: left + 208 }));

  it("span the cards of each column, skipping columns not measured yet", () => {
    const boxes = new Map([
      ["a", box(0, 0)],
      ["b", box(0, 120, 230)],
      ["c", box(270, 0)],
    ]);
    expect(columnSpans([["a", "b"], ["c"], ["d"]], boxes)).toEqual([
      { left: 0, right: 230 },
      { left: 270, right: 478 },
    ]);
  });

  it("count the columns cut on either side, not those off by a rounded pixel", () => {
    expect(columnOverflow(spans, 0, 704)).toEqual({ before: 0, after: 2 });
    expect(columnOverflow(spans, 0, 1200)).toEqual({ before: 0, after: 0 });
    expect(columnOverflow(spans, 0, 703.5)).toEqual({ before: 0, after: 2 });
    expect(columnOverflow(spans, 1, 703)).toEqual({ before: 0, after: 2 });
    expect(columnOverflow(spans, 248, 704)).toEqual({ before: 1, after: 1 });
    expect(columnOverflow(spans, 250, 704)).toEqual({ before: 2, after: 1 });
    expect(columnOverflow(spans, 496, 704)).toEqual({ before: 2, after: 0 });
    expect(columnOverflow([], 0, 704)).toEqual({ before: 0, after: 0 });
  });

  it("scroll to show the next column out of view in full, a margin from the edge", () => {
    expect(columnScrollTarget(spans, 0, 704, "after", 24)).toBe(952 + 24 - 704);
    expect(columnScrollTarget(spans, 272, 704, "after", 24)).toBe(1200 + 24 - 704);
    expect(columnScrollTarget(spans, 496, 704, "after", 24)).toBeNull();
    expect(columnScrollTarget(spans, 496, 704, "before", 24)).toBe(248 - 24);
    expect(columnScrollTarget(spans, 224, 704, "before", 24)).toBe(0);
    expect(columnScrollTarget(spans, 0, 704, "before", 24)).toBeNull();
  });

  it("show a column wider than the view from its left, then up to its right", () => {
    expect(columnScrollTarget(spans, 200, 150, "after", 24)).toBe(248 - 24);
    // The first column's left is in view already: on to its right, then the next one.
    expect(columnScrollTarget(spans, 0, 150, "after", 24)).toBe(208 + 24 - 150);
    expect(columnScrollTarget(spans, 208 + 24 - 150, 150, "after", 24)).toBe(248 - 24);
    expect(columnScrollTarget(spans, 600, 150, "before", 24)).toBe(496 - 24);
  });
});
