import { describe, expect, it } from "vitest";

import { boundsOf, boxAroundNodes, NODE_HEIGHT, NODE_WIDTH } from "./geometry";

describe("canvas geometry", () => {
  it("boxes operators with room for a header and a footer", () => {
    const margins = { padding: 10, header: 20, footer: 30 };
    expect(boxAroundNodes([], margins)).toBeNull();
    expect(
      boxAroundNodes(
        [
          { x: 0, y: 0 },
          { x: 300, y: 100 },
        ],
        margins,
      ),
    ).toEqual({
      x: -10,
      y: -30,
      width: 300 + NODE_WIDTH + 20,
      height: 100 + NODE_HEIGHT + 20 + 20 + 30,
    });
  });

  it("bounds every element drawn", () => {
    expect(boundsOf([])).toBeNull();
    expect(
      boundsOf([
        { position: { x: 5, y: 10 }, width: 10, height: 10 },
        { position: { x: -5, y: 40 } },
      ]),
    ).toEqual({ x: -5, y: 10, width: 20, height: 30 });
  });
});
