import { describe, expect, it } from "vitest";

import type {
  ExecutionEdgeSummary,
  ExecutionSummary,
  ExecutionVertexSummary,
  JobGraphJson,
  JobVertexJson,
  PartitionGroup,
  Span,
} from "../api/resources";
import {
  chunks,
  executionVertices,
  groupOfConsumer,
  MAX_ROWS,
  partitionsReadBy,
  spanText,
  subtaskName,
  subtaskRange,
  wiringByVertex,
  wiringSummary,
  wiringText,
} from "./executionModel";

/** Flink's `KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex`, for test data. */
function keyGroupRanges(maxParallelism: number, parallelism: number): Span[] {
  return Array.from({ length: parallelism }, (_, index): Span => [
    Math.floor((index * maxParallelism + parallelism - 1) / parallelism),
    Math.floor(((index + 1) * maxParallelism - 1) / parallelism),
  ]);
}

function vertex(parallelism: number, maxParallelism = 128): ExecutionVertexSummary {
  return {
    id: "a".repeat(32),
    name: "Keyed Reduce",
    parallelism,
    maxParallelism,
    keyGroupRanges: keyGroupRanges(maxParallelism, parallelism),
  };
}

/** Pointwise groups where every partition feeds `fanOut` consecutive subtasks. */
function fanOutGroups(producers: number, fanOut: number): PartitionGroup[] {
  return Array.from({ length: producers }, (_, p) => ({
    partitions: [p, p],
    consumers: [p * fanOut, p * fanOut + fanOut - 1],
  }));
}

function edge(groups: PartitionGroup[], pattern: ExecutionEdgeSummary["pattern"] = "POINTWISE") {
  return { producer: "p", consumer: "c", pattern, groups } satisfies ExecutionEdgeSummary;
}

describe("ranges of subtasks", () => {
  it("lists a few subtasks one by one", () => {
    expect(chunks([0, 3])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it("cuts thousands into at most sixteen ranges of a power of two", () => {
    const ranges = chunks([0, 999]);
    expect(ranges).toHaveLength(MAX_ROWS);
    expect(ranges[0]).toEqual([0, 63]);
    expect(ranges.at(-1)).toEqual([960, 999]);
    expect(chunks([64, 127])).toHaveLength(16);
    expect(chunks([64, 127])[0]).toEqual([64, 67]);
  });

  it("opens every range down to single subtasks in a few levels", () => {
    let span: Span = [0, 4095];
    let levels = 0;
    while (span[0] !== span[1]) {
      span = chunks(span)[0] ?? [0, 0];
      levels += 1;
    }
    expect(levels).toBe(3);
  });

  it("says which key groups a range of subtasks holds", () => {
    const keyed = vertex(3);
    expect(keyed.keyGroupRanges).toEqual([
      [0, 42],
      [43, 85],
      [86, 127],
    ]);
    expect(subtaskRange(keyed, [0, 2])).toEqual({
      subtasks: [0, 2],
      keyGroups: [0, 127],
      perSubtask: [42, 43],
    });
    expect(subtaskRange(vertex(1000, 32768), [0, 63]).keyGroups).toEqual([0, 2097]);
  });

  it("names subtasks as Flink does, counting from one", () => {
    expect(subtaskName({ name: "Map", parallelism: 4 }, 0)).toBe("Map (1/4)");
    expect(spanText([3, 3])).toBe("3");
    expect(spanText([0, 127])).toBe("0–127");
  });
});

describe("wiring", () => {
  it("summarises all-to-all as a count, never as pairs", () => {
    const allToAll = edge([{ partitions: [0, 999], consumers: [0, 499] }], "ALL_TO_ALL");
    const summary = wiringSummary(allToAll.groups);
    expect(summary.connections).toBe(500_000);
    expect(wiringText(summary, "ALL_TO_ALL")).toBe(
      "partitions 0–999 → subtasks 0–499: every partition to every subtask (500,000 connections)",
    );
  });

  it("summarises one-to-one, fan-out and fan-in", () => {
    const oneToOne = fanOutGroups(256, 1);
    expect(wiringText(wiringSummary(oneToOne), "POINTWISE")).toBe(
      "partitions 0–255 → subtasks 0–255: partition i → subtask i",
    );
    expect(wiringText(wiringSummary(fanOutGroups(4, 2)), "POINTWISE")).toBe(
      "partitions 0–3 → subtasks 0–7: each partition feeds 2 subtasks",
    );
    const fanIn: PartitionGroup[] = [
      { partitions: [0, 1], consumers: [0, 0] },
      { partitions: [2, 4], consumers: [1, 1] },
    ];
    expect(wiringText(wiringSummary(fanIn), "POINTWISE")).toBe(
      "partitions 0–4 → subtasks 0–1: each subtask reads 2–3 partitions",
    );
  });

  it("summarises a slice of the groups", () => {
    const uneven: PartitionGroup[] = [
      { partitions: [0, 0], consumers: [0, 1] },
      { partitions: [1, 1], consumers: [2, 4] },
      { partitions: [2, 2], consumers: [5, 6] },
    ];
    expect(wiringSummary(uneven)).toEqual({
      partitions: [0, 2],
      consumers: [0, 6],
      fanOut: [2, 3],
      fanIn: [1, 1],
      connections: 7,
    });
    expect(wiringSummary(uneven, [1, 2]).consumers).toEqual([2, 6]);
  });

  it("finds what a consumer subtask reads", () => {
    const groups = fanOutGroups(100, 3);
    expect(groupOfConsumer(groups, 0)).toBe(0);
    expect(groupOfConsumer(groups, 299)).toBe(99);
    expect(groupOfConsumer(groups, 150)).toBe(50);
    expect(groupOfConsumer(groups, 300)).toBe(-1);
    expect(partitionsReadBy(edge(groups), [30, 59])).toEqual([10, 19]);
    const all = edge([{ partitions: [0, 7], consumers: [0, 3] }], "ALL_TO_ALL");
    expect(partitionsReadBy(all, [2, 2])).toEqual([0, 7]);
  });

  it("files every edge under both of its vertices", () => {
    const a = { ...edge(fanOutGroups(2, 1)), producer: "A", consumer: "B" };
    const b = { ...edge(fanOutGroups(2, 1)), producer: "B", consumer: "C" };
    const wiring = wiringByVertex([a, b]);
    expect(wiring.get("B")).toEqual({ inputs: [a], outputs: [b] });
    expect(wiring.get("A")?.inputs).toEqual([]);
  });
});

describe("vertices with their inputs and result partitions", () => {
  const SOURCE = "1".repeat(32);
  const SINK = "2".repeat(32);
  const DATA_SET = "3".repeat(32);

  function jobVertex(id: string, name: string, extra: Partial<JobVertexJson>): JobVertexJson {
    return {
      id,
      name,
      parallelism: -1,
      maxParallelism: -1,
      headNode: 1,
      nodes: [1],
      operatorIds: [{ generated: id, userDefined: null }],
      slotSharingGroup: 0,
      slotSharingGroupName: "default",
      coLocationGroup: null,
      isInputVertex: true,
      isOutputVertex: true,
      inputs: [],
      outputs: [],
      ...extra,
    };
  }

  const jobGraph: JobGraphJson = {
    format: "jobgraph/v1",
    name: "two",
    flinkVersion: "2.3.0",
    jobType: "STREAMING",
    dynamic: false,
    maximumParallelism: 4,
    slotsRequired: 4,
    slotSharingGroups: [{ index: 0, name: "default", slots: 4 }],
    hashes: {},
    vertices: [
      jobVertex(SOURCE, "Source", {
        outputs: [{ id: DATA_SET, resultPartitionType: "PIPELINED_BOUNDED", consumers: [SINK] }],
      }),
      jobVertex(SINK, "Sink", {
        inputs: [
          {
            producer: SOURCE,
            dataSet: DATA_SET,
            distributionPattern: "POINTWISE",
            resultPartitionType: "PIPELINED_BOUNDED",
            shipStrategy: "RESCALE",
            typeNumber: 0,
            isBroadcast: false,
            isForward: false,
          },
        ],
      }),
    ],
  };
  const execution: ExecutionSummary = {
    totalSubtasks: 6,
    slotsRequired: 4,
    vertices: [
      { ...vertex(2), id: SOURCE, name: "Source" },
      { ...vertex(4), id: SINK, name: "Sink" },
    ],
    edges: [{ producer: SOURCE, consumer: SINK, pattern: "POINTWISE", groups: fanOutGroups(2, 2) }],
  };

  it("joins each edge to its JobEdge and each data set to its consumers", () => {
    const [source, sink] = executionVertices(jobGraph, execution);
    expect(source?.inputs).toEqual([]);
    expect(source?.outputs).toEqual([
      {
        dataSet: DATA_SET,
        resultPartitionType: "PIPELINED_BOUNDED",
        consumers: [execution.vertices[1]],
      },
    ]);
    expect(
      sink?.inputs.map((input) => [input.jobEdge?.shipStrategy, input.producer?.name]),
    ).toEqual([["RESCALE", "Source"]]);
    expect(sink?.slotSharingGroupName).toBe("default");
  });

  it("leaves the JobEdge out when the two lists disagree", () => {
    const swapped = {
      ...execution,
      edges: [{ ...execution.edges[0], producer: SINK, consumer: SOURCE }],
    };
    const views = executionVertices(jobGraph, swapped as ExecutionSummary);
    expect(views[0]?.inputs[0]?.jobEdge).toBeNull();
  });
});

describe("wiring of a single group", () => {
  it("reads as one connection", () => {
    const summary = wiringSummary([{ partitions: [4, 4], consumers: [4, 4] }]);
    expect(wiringText(summary, "POINTWISE")).toBe("partition 4 → subtask 4");
    const fan = wiringSummary([{ partitions: [4, 4], consumers: [8, 9] }]);
    expect(wiringText(fan, "POINTWISE")).toBe(
      "partition 4 → subtasks 8–9: each partition feeds 2 subtasks",
    );
  });
});
