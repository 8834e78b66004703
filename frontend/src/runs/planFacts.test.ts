import { describe, expect, it } from "vitest";

import type { JobEdgeJson, JobGraphJson, JobVertexJson } from "../api/resources";
import { nodeLabel, nodeNames, vertexFacts } from "./planFacts";

function edge(producer: string, shipStrategy: JobEdgeJson["shipStrategy"]): JobEdgeJson {
  return {
    producer,
    dataSet: `${producer}-out`,
    distributionPattern: shipStrategy === "FORWARD" ? "POINTWISE" : "ALL_TO_ALL",
    resultPartitionType: "PIPELINED_BOUNDED",
    shipStrategy,
    typeNumber: 0,
    isBroadcast: false,
    isForward: shipStrategy === "FORWARD",
  };
}

function vertex(id: string, nodes: number[], inputs: JobEdgeJson[]): JobVertexJson {
  return {
    id,
    name: id,
    parallelism: 2,
    maxParallelism: 128,
    headNode: nodes.at(-1) ?? 0,
    nodes,
    operatorIds: [],
    slotSharingGroup: 0,
    slotSharingGroupName: "default",
    coLocationGroup: null,
    isInputVertex: inputs.length === 0,
    isOutputVertex: false,
    inputs,
    outputs: [],
  };
}

const JOB_GRAPH: JobGraphJson = {
  format: "jobgraph/v1",
  name: "runs",
  flinkVersion: "2.3",
  jobType: "STREAMING",
  dynamic: false,
  maximumParallelism: 2,
  slotsRequired: 2,
  slotSharingGroups: [],
  hashes: {},
  vertices: [
    vertex("a", [2, 1], []),
    vertex("b", [4, 3], [edge("a", "HASH")]),
    vertex("c", [5], [edge("b", "REBALANCE")]),
  ],
};

describe("plan facts", () => {
  it("tells sources and keyed vertices from the JobGraph", () => {
    const facts = vertexFacts(JOB_GRAPH);
    expect([...facts.values()].map((f) => [f.id, f.head, f.isSource, f.keyed])).toEqual([
      ["a", 1, true, false],
      ["b", 3, false, true],
      ["c", 5, false, false],
    ]);
    expect(facts.get("b")?.inputs).toEqual([{ producer: "a", shipStrategy: "HASH" }]);
    expect(vertexFacts(null).size).toBe(0);
  });

  it("labels nodes by name and id", () => {
    const names = nodeNames({
      format: "streamgraph/v1",
      name: "n",
      nodes: [{ id: 3, name: "Map" }],
      edges: [],
    });
    expect(nodeLabel(names, 3)).toBe("Map (node 3)");
    expect(nodeLabel(names, 9)).toBe("node 9");
  });
});
