import { describe, expect, it } from "vitest";

import { createSelectionStore } from "./selection";

describe("the selection", () => {
  it("reveals one edge, or all of a cycle's edges focusing the first", () => {
    const store = createSelectionStore();
    store.getState().reveal([], "1-2-0-0");
    expect([...store.getState().edges]).toEqual(["1-2-0-0"]);
    expect(store.getState().focus?.edge).toBe("1-2-0-0");

    store.getState().reveal([2, 3], ["2-3-0-0", "3-2-0-0"]);
    const state = store.getState();
    expect([...state.nodes]).toEqual([2, 3]);
    expect([...state.edges]).toEqual(["2-3-0-0", "3-2-0-0"]);
    expect(state.focus).toMatchObject({ nodes: [2, 3], edge: "2-3-0-0", serial: 2 });

    store.getState().reveal([4]);
    expect(store.getState().edges.size).toBe(0);
    expect(store.getState().focus?.edge).toBeNull();
  });
});
