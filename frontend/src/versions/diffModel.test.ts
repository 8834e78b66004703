import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import type { PlanDiff } from "../api/resources";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { diffGraph, fieldValueText, savepointVerdict, valueText } from "./diffModel";

/**
 * Two versions of a pipeline and the `plandiff/v1` the server computed for them
 * (`compiler.diff.diff_documents`): a node renamed and rescaled, one removed,
 * one added, an edge's partitioner changed, a keyed reduce losing its state.
 */
const recorded = JSON.parse(
  readFileSync(new URL("./testdata/clicks.plandiff.json", import.meta.url), "utf8"),
) as { old: StreamGraphDocument; new: StreamGraphDocument; diff: PlanDiff };

function changes(items: readonly { id: string; change: string }[]): Record<string, string> {
  return Object.fromEntries(items.map((item) => [item.id, item.change]));
}

describe("the diff graph", () => {
  it("classifies every node, drawing removed ones from the old version", () => {
    const graph = diffGraph(recorded.old, recorded.new, recorded.diff);
    expect(changes(graph.nodes)).toEqual({
      "1": "unchanged",
      "2": "changed",
      "3": "unchanged",
      "4": "unchanged",
      "6": "added",
      "5": "removed",
    });
    const removed = graph.nodes.find((node) => node.id === "5");
    expect(removed?.node.name).toBe("Filter");
    expect(removed?.position).toEqual({ x: 440, y: 100 });
    expect(graph.nodes.find((node) => node.id === "2")?.fields.map((f) => f.field)).toEqual([
      "name",
      "parallelism",
    ]);
  });

  it("classifies every edge by its key", () => {
    const graph = diffGraph(recorded.old, recorded.new, recorded.diff);
    expect(changes(graph.edges)).toEqual({
      "1-2-0-0": "changed",
      "2-3-0-0": "added",
      "3-4-0-0": "unchanged",
      "3-6-0-0": "added",
      "2-5-0-0": "removed",
      "5-3-0-0": "removed",
    });
    expect(graph.edges[0]?.fields).toEqual([
      { field: "partitioner", old: "FORWARD", new: "REBALANCE" },
    ]);
    expect(graph.counts).toEqual({ added: 3, removed: 3, changed: 2, unchanged: 4 });
  });

  it("draws a removed node clear of the new nodes, below where it stood", () => {
    const at = (x: number, y: number) => ({ ui: { x, y } });
    const before: StreamGraphDocument = {
      format: "streamgraph/v1",
      name: "replaced",
      nodes: [
        { id: 1, name: "Source", ...at(0, 0) },
        { id: 2, name: "Old map", ...at(300, 0) },
        { id: 3, name: "Old filter", ...at(300, 100) },
      ],
      edges: [],
    };
    const after: StreamGraphDocument = {
      ...before,
      // The new map takes the old map's spot, and the one under it.
      nodes: [
        { id: 1, name: "Source", ...at(0, 0) },
        { id: 4, name: "New map", ...at(300, 0) },
        { id: 5, name: "New sink", ...at(310, 90) },
      ],
    };
    const diff: PlanDiff = {
      ...recorded.diff,
      streamGraph: {
        config: [],
        nodes: { added: [4, 5], removed: [2, 3], changed: [] },
        edges: { added: [], removed: [], changed: [] },
      },
      savepoint: null,
    };

    const positions = Object.fromEntries(
      diffGraph(before, after, diff).nodes.map((node) => [node.id, node.position]),
    );

    expect(positions["1"]).toEqual({ x: 0, y: 0 });
    expect(positions["4"]).toEqual({ x: 300, y: 0 });
    // Below the new sink (90 + 62 + 16), then below the first removed node.
    expect(positions["2"]).toEqual({ x: 300, y: 168 });
    expect(positions["3"]).toEqual({ x: 300, y: 246 });
  });

  it("gives stateful operators their savepoint verdict", () => {
    const graph = diffGraph(recorded.old, recorded.new, recorded.diff);
    const verdicts = Object.fromEntries(
      graph.nodes.map((node) => [node.id, node.savepoint?.verdict ?? null]),
    );
    expect(verdicts).toEqual({
      "1": "kept",
      "2": null,
      "3": "lost",
      "4": null,
      "6": "new",
      "5": null,
    });
  });

  it("tells apart parallel edges with the same ends", () => {
    const edge = { source: 1, target: 2, partitioner: "REBALANCE" } as const;
    const before: StreamGraphDocument = {
      format: "streamgraph/v1",
      name: "twins",
      nodes: [
        { id: 1, name: "Source" },
        { id: 2, name: "Union" },
      ],
      edges: [edge, edge],
    };
    const after: StreamGraphDocument = {
      ...before,
      edges: [edge, { ...edge, partitioner: "SHUFFLE" }],
    };
    const diff: PlanDiff = {
      ...recorded.diff,
      streamGraph: {
        config: [],
        nodes: { added: [], removed: [], changed: [] },
        edges: {
          added: [],
          removed: [],
          changed: [
            {
              source: 1,
              target: 2,
              typeNumber: 0,
              partitioner: "SHUFFLE",
              fields: [{ field: "partitioner", old: "REBALANCE", new: "SHUFFLE" }],
            },
          ],
        },
      },
    };
    expect(changes(diffGraph(before, after, diff).edges)).toEqual({
      "1-2-0-0": "unchanged",
      "1-2-0-1": "changed",
    });
  });
});

describe("the savepoint verdict", () => {
  it("words the server's verdict: which state is lost, and whether Flink starts", () => {
    const verdict = savepointVerdict(recorded.diff, 1, 2);
    expect(verdict.tone).toBe("lost");
    expect(verdict.title).toBe(
      "A savepoint of version 1, started as version 2: fails if Count (7e1e69b7...) holds state, which no operator of this version takes",
    );
    expect(verdict.details.slice(0, 2)).toEqual([
      "Stateful operators: 1 keeps its state, 1 loses it, 1 is new.",
      "It starts only with --allowNonRestoredState, which drops the state no operator takes.",
    ]);
  });

  it("says a compatible savepoint restores, with the server's warnings", () => {
    const savepoint = recorded.diff.savepoint;
    if (savepoint === null) {
      throw new Error("the recorded diff has a savepoint verdict");
    }
    const restores: PlanDiff = {
      ...recorded.diff,
      savepoint: {
        ...savepoint,
        restores: true,
        verdict: "Restores",
        failure: null,
        summary: { kept: 2, lost: 0, refused: 0, new: 0 },
        operators: savepoint.operators.filter((op) => op.verdict === "kept"),
      },
    };
    expect(savepointVerdict(restores, 1, "working")).toEqual({
      tone: "ok",
      title: "A savepoint of version 1, started as the working copy: restores",
      details: ["Stateful operators: 2 keep their state."],
    });
    const warned: PlanDiff = {
      ...restores,
      savepoint: {
        ...savepoint,
        ...restores.savepoint,
        warnings: [
          { code: "key-changed", message: "Sum is keyed by 'y'", operatorId: null, node: 3 },
        ],
      },
    };
    const verdict = savepointVerdict(warned, 1, "working");
    expect(verdict.tone).toBe("warning");
    expect(verdict.details).toEqual([
      "Stateful operators: 2 keep their state.",
      "Sum is keyed by 'y'",
    ]);
  });

  it("says when Flink does not start at all", () => {
    const savepoint = recorded.diff.savepoint;
    if (savepoint === null) {
      throw new Error("the recorded diff has a savepoint verdict");
    }
    const diff: PlanDiff = {
      ...recorded.diff,
      savepoint: { ...savepoint, restoresAllowingNonRestoredState: false },
    };
    expect(savepointVerdict(diff, 2, 3).details[1]).toBe(
      "It does not start, not even with --allowNonRestoredState.",
    );
  });

  it("cannot judge a version with errors", () => {
    const diff: PlanDiff = {
      ...recorded.diff,
      jobGraph: null,
      executionGraph: null,
      savepoint: null,
      diagnostics: {
        old: [],
        new: [
          {
            code: "graph.cycle",
            severity: "error",
            message: "cycle",
            node: 2,
            edge: null,
            field: null,
          },
        ],
      },
    };
    expect(savepointVerdict(diff, 1, "working")).toEqual({
      tone: "unknown",
      title: "Savepoint compatibility cannot be worked out",
      details: ["The working copy has errors: both versions must compile."],
    });
  });
});

describe("values", () => {
  it.each([
    [null, "(not set)"],
    [4, "4"],
    ["Parse", "Parse"],
    [{ fn: "x" }, '{"fn":"x"}'],
    ["x".repeat(100), `${"x".repeat(59)}…`],
  ])("%j reads %s", (value, text) => {
    expect(valueText(value)).toBe(text);
  });

  it("says default for a parallelism left to the job, as the editor does", () => {
    expect(fieldValueText("parallelism", -1)).toBe("default");
    expect(fieldValueText("maxParallelism", -1)).toBe("default");
    expect(fieldValueText("parallelism", 2)).toBe("2");
    expect(fieldValueText("name", -1)).toBe("-1");
  });
});
