import { describe, expect, it } from "vitest";

import { NODE_HEIGHT as OPERATOR_HEIGHT, NODE_WIDTH as OPERATOR_WIDTH } from "../canvas/geometry";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { attempt, subtask } from "../test-support/runs";
import {
  BOX_FOOTER,
  BOX_HEADER,
  boxAround,
  failuresByNode,
  overlap,
  runLayout,
  stretchFor,
  vertexTrouble,
} from "./runCanvasModel";

/** source -> map (chained) -> HASH -> reduce -> sink (chained), on the editor's grid rows. */
const DOCUMENT: StreamGraphDocument = {
  format: "streamgraph/v1",
  name: "runs",
  config: { defaultParallelism: 2 },
  nodes: [
    { id: 1, name: "Source: s", operator: "source.sequence", ui: { x: 40, y: 40 } },
    { id: 2, name: "Map", operator: "map", ui: { x: 240, y: 40 } },
    { id: 3, name: "Reduce", operator: "reduce", ui: { x: 440, y: 40 } },
    { id: 4, name: "Sink: out", operator: "sink.print", ui: { x: 440, y: 160 } },
  ],
  edges: [
    { source: 1, target: 2, partitioner: "FORWARD" },
    { source: 2, target: 3, partitioner: "HASH", key: { fn: "x % 2" } },
    { source: 3, target: 4, partitioner: "FORWARD" },
  ],
};

const VERTICES = [
  { id: "a", nodes: [2, 1] },
  { id: "b", nodes: [4, 3] },
];

describe("the run canvas", () => {
  it("boxes a vertex's operators with room for its name and figures", () => {
    expect(boxAround([])).toBe(null);
    expect(boxAround([{ x: 0, y: 100 }])).toEqual({
      x: -10,
      y: 100 - 10 - BOX_HEADER,
      width: OPERATOR_WIDTH + 20,
      height: OPERATOR_HEIGHT + 20 + BOX_HEADER + BOX_FOOTER,
    });
  });

  it("leaves positions alone when the boxes fit", () => {
    expect(stretchFor([[{ x: 0, y: 0 }], [{ x: 400, y: 0 }]])).toEqual({ x: 1, y: 1 });
    expect(stretchFor([[{ x: 0, y: 0 }]])).toEqual({ x: 1, y: 1 });
  });

  it("stretches rows apart when boxes one above the other would overlap", () => {
    const groups = [[{ x: 0, y: 0 }], [{ x: 0, y: 120 }]];
    const stretch = stretchFor(groups);
    expect(stretch.x).toBe(1);
    expect(stretch.y).toBeGreaterThan(1);
    const [a, b] = groups.map((group) =>
      boxAround(group.map((p) => ({ x: p.x, y: p.y * stretch.y }))),
    );
    expect(a && b && overlap(a, b)).toBe(false);
    // Only just: a little less would overlap.
    const tighter = boxAround([{ x: 0, y: 120 * (stretch.y - 0.02) }]);
    expect(a && tighter && overlap(a, tighter)).toBe(true);
  });

  it("stretches both ways when rows alone cannot separate the boxes", () => {
    // Side by side, 180 apart: no vertical stretch moves them apart.
    expect(stretchFor([[{ x: 0, y: 0 }], [{ x: 180, y: 0 }]]).x).toBeGreaterThan(1);
  });

  it("places operators, boxes every vertex and marks chained edges", () => {
    const layout = runLayout(DOCUMENT, VERTICES);
    expect(layout.operators.map((op) => [op.id, op.vertex])).toEqual([
      ["1", "a"],
      ["2", "a"],
      ["3", "b"],
      ["4", "b"],
    ]);
    expect(layout.boxes.map((box) => box.vertex)).toEqual(["a", "b"]);
    const [a, b] = layout.boxes;
    expect(a && b && overlap(a, b, 0)).toBe(false);
    // The box holds its operators.
    const map = layout.operators[1];
    expect(a && map && map.position.x + OPERATOR_WIDTH <= a.x + a.width).toBe(true);
    expect(layout.edges.map((edge) => [edge.id, edge.chained, edge.partitioner])).toEqual([
      ["1-2-0-0", true, "FORWARD"],
      ["2-3-0-0", false, "HASH"],
      ["3-4-0-0", true, "FORWARD"],
    ]);
    expect(layout.operators[0]?.position).toEqual({ x: 40, y: 40 });
  });

  it("gives a two-input operator one handle per input", () => {
    const connect: StreamGraphDocument = {
      format: "streamgraph/v1",
      name: "connect",
      nodes: [
        { id: 1, name: "Source: a", operator: "source.sequence", ui: { x: 40, y: 40 } },
        { id: 2, name: "Source: b", operator: "source.sequence", ui: { x: 40, y: 160 } },
        { id: 3, name: "Co-map", operator: "co_map", ui: { x: 240, y: 100 } },
      ],
      edges: [
        { source: 1, target: 3, partitioner: "FORWARD", typeNumber: 1 },
        { source: 2, target: 3, partitioner: "REBALANCE", typeNumber: 2 },
      ],
    };
    const layout = runLayout(connect, []);
    expect(layout.operators.map((op) => op.twoInputs)).toEqual([false, false, true]);
    expect(layout.edges.map((edge) => edge.targetHandle)).toEqual(["in1", "in2"]);
    expect(runLayout(DOCUMENT, VERTICES).edges.map((edge) => edge.targetHandle)).toEqual([
      "in",
      "in",
      "in",
    ]);
  });

  it("draws nodes the plan does not place without a box", () => {
    const layout = runLayout(DOCUMENT, []);
    expect(layout.boxes).toEqual([]);
    expect(layout.operators.every((op) => op.vertex === null)).toBe(true);
    expect(layout.edges.every((edge) => !edge.chained)).toBe(true);
  });
});

describe("failures on the canvas", () => {
  it("collects failed attempts by node, telling recovered ones from current ones", () => {
    const retried = subtask({
      subtask: 0,
      attempt: 1,
      state: "FINISHED",
      attempts: [
        attempt({ state: "FAILED", error: "Map (node 2): ValueError: x", failedNode: 2 }),
        attempt({ attempt: 1, state: "FINISHED" }),
      ],
    });
    const failed = subtask({
      subtask: 1,
      state: "FAILED",
      error: "Map (node 2): ValueError: y",
      failedNode: 2,
      attempts: [attempt({ state: "FAILED", error: "Map (node 2): ValueError: y", failedNode: 2 })],
    });
    const lost = subtask({
      subtask: 2,
      state: "FAILED",
      attempts: [attempt({ state: "FAILED", error: "lost worker: w1 stopped reporting" })],
    });
    const failures = failuresByNode([retried, failed, lost]);
    expect([...failures.keys()]).toEqual([2]);
    expect(failures.get(2)?.map((f) => [f.subtask, f.attempt, f.current])).toEqual([
      [0, 0, false],
      [1, 0, true],
    ]);
    expect(vertexTrouble([retried])).toBe("recovered");
    expect(vertexTrouble([retried, failed])).toBe("failed");
    expect(vertexTrouble([subtask()])).toBe(null);
  });
});
