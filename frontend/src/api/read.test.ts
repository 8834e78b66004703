import { describe, expect, it } from "vitest";

import { InvalidData, readDiagnostic } from "./read";

describe("readDiagnostic", () => {
  const base = {
    code: "graph.cycle",
    severity: "error",
    message: "the graph has a cycle through nodes 2, 3",
    node: 2,
    edge: null,
    field: null,
  };

  it("reads every node and edge a problem is about", () => {
    expect(readDiagnostic({ ...base, nodes: [2, 3], edges: [1, 2] }, "d")).toEqual({
      ...base,
      nodes: [2, 3],
      edges: [1, 2],
    });
  });

  it("leaves the lists out when the server sends none", () => {
    expect(readDiagnostic(base, "d")).toEqual(base);
  });

  it("refuses a list that is not of indexes", () => {
    expect(() => readDiagnostic({ ...base, edges: ["1"] }, "d")).toThrow(
      new InvalidData("d.edges.0", "must be an integer"),
    );
  });
});
