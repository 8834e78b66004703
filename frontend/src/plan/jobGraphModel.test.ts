import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import type { LivePlan } from "../graph/liveplan";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { chainedPlan } from "../test-support/builders";
import { loadFixture } from "../test-support/fixtures";
import { arrowPath, jobGraphModel } from "./jobGraphModel";

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
