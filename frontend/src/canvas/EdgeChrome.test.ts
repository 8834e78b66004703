import { getBezierPath, Position } from "@xyflow/react";
import { describe, expect, it } from "vitest";

import { edgeCurve, type EdgeRoute } from "./EdgeChrome";
import { NODE_HEIGHT, NODE_WIDTH } from "./geometry";

/** An edge from the output of the operator at `from` to the input of the one at `to`. */
function route(source: string, target: string, from: number, to: number, y = 0): EdgeRoute {
  return {
    source,
    target,
    sourceX: from + NODE_WIDTH,
    sourceY: y + NODE_HEIGHT / 2,
    sourcePosition: Position.Right,
    targetX: to,
    targetY: y + NODE_HEIGHT / 2,
    targetPosition: Position.Left,
  };
}

// Every canvas draws its edges through this (the editor's, the diff's, the run page's).
describe("edgeCurve", () => {
  it("draws a forward edge as React Flow's bezier", () => {
    const forward = route("1", "2", 0, 300);
    const [path, labelX, labelY] = getBezierPath(forward);
    expect(edgeCurve(forward)).toEqual({ path, labelX, labelY });
  });

  it("draws a self-loop above its operator", () => {
    const loop = edgeCurve(route("3", "3", 100, 100, 200));
    expect(loop.labelX).toBe(100 + NODE_WIDTH / 2);
    expect(loop.labelY).toBeLessThan(200);
  });

  it("draws a back edge below both operators, apart from the forward one", () => {
    const back = edgeCurve(route("3", "2", 300, 0));
    expect(back.path).not.toBe(edgeCurve(route("2", "3", 0, 300)).path);
    expect(back.labelY).toBeGreaterThan(NODE_HEIGHT);
  });
});
