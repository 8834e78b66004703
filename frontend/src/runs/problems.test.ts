import { describe, expect, it } from "vitest";

import type { RunDiagnostic } from "../api/runs";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { describeProblems } from "./problems";

const DOCUMENT: StreamGraphDocument = {
  format: "streamgraph/v1",
  name: "p",
  nodes: [
    { id: 1, name: "Source: s" },
    { id: 2, name: "Reduce" },
  ],
  edges: [{ source: 1, target: 2, partitioner: "HASH" }],
};

function diagnostic(overrides: Partial<RunDiagnostic>): RunDiagnostic {
  return {
    code: "param.required",
    severity: "error",
    message: "m",
    node: null,
    edge: null,
    field: null,
    ...overrides,
  };
}

describe("why a version cannot run", () => {
  it("names the node or edge a problem concerns, errors first", () => {
    const problems = describeProblems(
      [
        diagnostic({ code: "param.unknown", severity: "warning", node: 1 }),
        diagnostic({ node: 2, field: "params.fn" }),
        diagnostic({ code: "run.hash-needs-key", edge: 0, field: "key.fn" }),
        diagnostic({ code: "run.x" }),
        diagnostic({ node: 9 }),
      ],
      DOCUMENT,
    );
    expect(problems.map((p) => [p.diagnostic.code, p.where, p.node])).toEqual([
      ["param.required", "Reduce (node 2)", 2],
      ["run.hash-needs-key", "edge 0: Source: s → Reduce", 2],
      ["run.x", "the pipeline", null],
      ["param.required", "node 9", 9],
      ["param.unknown", "Source: s (node 1)", 1],
    ]);
  });

  it("falls back to numbers without the document", () => {
    const [edge] = describeProblems([diagnostic({ edge: 3 })], null);
    expect(edge?.where).toBe("edge 3");
  });
});
