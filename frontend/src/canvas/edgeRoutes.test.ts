import { describe, expect, it } from "vitest";

import { edgeDetour } from "./edgeRoutes";
import { NODE_HEIGHT, NODE_WIDTH } from "./geometry";

describe("edge detours", () => {
  it("leave a forward edge to the usual curve", () => {
    expect(edgeDetour({ sourceX: 100, sourceY: 50, targetX: 300, targetY: 80 }, false)).toBeNull();
  });

  it("draw a self-loop as an arc above the operator, its label clear of it", () => {
    // The output on the right border, the input on the left, both halfway down.
    const y = 200 + NODE_HEIGHT / 2;
    const loop = edgeDetour(
      { sourceX: 100 + NODE_WIDTH, sourceY: y, targetX: 100, targetY: y },
      true,
    );
    expect(loop).not.toBeNull();
    expect(loop?.path.startsWith(`M ${100 + NODE_WIDTH},${y} C`)).toBe(true);
    expect(loop?.labelX).toBe(100 + NODE_WIDTH / 2);
    // Above the operator's top border (y = 200).
    expect(loop?.labelY).toBeLessThan(200);
  });

  it("draw a back edge below both operators, apart from the forward edge", () => {
    // 1 -> 2 runs left to right at y 31; 2 -> 1 goes back from 2's output to 1's input.
    const back = edgeDetour({ sourceX: 472, sourceY: 31, targetX: 0, targetY: 31 }, false);
    expect(back).not.toBeNull();
    expect(back?.labelX).toBe(236);
    // Below both operators (their bottom border is at y 62).
    expect(back?.labelY).toBeGreaterThan(NODE_HEIGHT);
  });
});
