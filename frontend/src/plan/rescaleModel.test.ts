import { describe, expect, it } from "vitest";

import type { RescaledVertex, RescaleProblem, RescaleSimulation } from "../api/resources";
import {
  afterRows,
  beforeRows,
  clampedOffset,
  countText,
  currentParallelism,
  firstRows,
  maxParallelismText,
  movesText,
  pageStart,
  pageText,
  parallelismText,
  parseParallelism,
  percent,
  problemsElsewhere,
  problemsOf,
  readsText,
  rescaleQuery,
  subtaskColour,
  unlistedProblemsText,
  verdictText,
  VERTICES_PER_PAGE,
} from "./rescaleModel";

const VERTEX = "90bea66de1c231edf33913ecd54406c1";

/** Reduce rescaled from 2 to 3 subtasks over 128 derived key groups, as the server says it
 * (`tests/backend/test_rescale_api.py`). */
function reduce(overrides: Partial<RescaledVertex> = {}): RescaledVertex {
  return {
    id: VERTEX,
    name: "Reduce -> Sink: Print",
    head: 3,
    nodes: [3, 4],
    keyed: true,
    followsDefault: false,
    changed: true,
    parallelism: { before: 2, after: 3 },
    maxParallelism: { keyGroups: 128, explicit: false, derivedAfter: 128, after: 128 },
    restores: true,
    movedKeyGroups: 63,
    keptFraction: { least: 0, most: 1 },
    subtasksShown: 64,
    before: [
      [0, 63],
      [64, 127],
    ],
    after: [
      {
        index: 0,
        keyGroups: [0, 42],
        reads: [{ subtask: 0, keyGroups: [0, 42] }],
        readsFrom: 1,
        kept: 43,
        keptFraction: 1,
      },
      {
        index: 1,
        keyGroups: [43, 85],
        reads: [
          { subtask: 0, keyGroups: [43, 63] },
          { subtask: 1, keyGroups: [64, 85] },
        ],
        readsFrom: 2,
        kept: 22,
        keptFraction: 22 / 43,
      },
      {
        index: 2,
        keyGroups: [86, 127],
        reads: [{ subtask: 1, keyGroups: [86, 127] }],
        readsFrom: 1,
        kept: 0,
        keptFraction: 0,
      },
    ],
    afterVertices: [{ id: VERTEX, name: "Reduce -> Sink: Print" }],
    ...overrides,
  };
}

function problem(overrides: Partial<RescaleProblem>): RescaleProblem {
  return {
    code: "derived-max-parallelism",
    severity: "warning",
    message: "This job never set a max parallelism",
    vertex: VERTEX,
    node: 3,
    ...overrides,
  };
}

function simulation(overrides: Partial<RescaleSimulation> = {}): RescaleSimulation {
  return {
    pipeline: 1,
    version: null,
    revision: 4,
    scope: "vertex",
    vertex: VERTEX,
    parallelism: 3,
    defaultParallelism: { before: 2, after: 2 },
    ok: true,
    restores: true,
    slots: { before: 2, after: 3 },
    subtasks: { before: 4, after: 5 },
    page: { offset: 0, limit: 20, total: 1 },
    vertices: [reduce()],
    problems: [problem({})],
    problemCounts: { error: 0, warning: 1, info: 0 },
    pin: null,
    choices: [
      {
        id: VERTEX,
        name: "Reduce -> Sink: Print",
        parallelism: 2,
        maxParallelism: 128,
        maxParallelismExplicit: false,
      },
    ],
    ...overrides,
  };
}

describe("parseParallelism", () => {
  it("takes whole numbers from 1 to 32768", () => {
    expect(parseParallelism(" 3 ")).toEqual({ ok: true, value: 3 });
    expect(parseParallelism("32768")).toEqual({ ok: true, value: 32768 });
  });

  it("refuses anything else, saying why", () => {
    for (const text of ["", "2.5", "-1", "three", "1e3"]) {
      expect(parseParallelism(text)).toEqual({
        ok: false,
        message: "Enter the number of subtasks, a whole number.",
      });
    }
    for (const text of ["0", "32769"]) {
      expect(parseParallelism(text)).toEqual({
        ok: false,
        message: "Parallelism must be between 1 and 32768.",
      });
    }
  });
});

describe("rescaleQuery and currentParallelism", () => {
  it("asks for a vertex, or the whole job, of a version or the working copy", () => {
    expect(rescaleQuery({ kind: "vertex", id: VERTEX }, 3, null)).toEqual({
      vertex: VERTEX,
      parallelism: 3,
      limit: VERTICES_PER_PAGE,
    });
    expect(rescaleQuery({ kind: "job" }, 6, 2, 40)).toEqual({
      parallelism: 6,
      version: 2,
      offset: 40,
      limit: VERTICES_PER_PAGE,
    });
  });

  it("starts from what the target has now", () => {
    const choices = simulation().choices;
    expect(currentParallelism({ kind: "vertex", id: VERTEX }, choices, 5)).toBe(2);
    expect(currentParallelism({ kind: "job" }, choices, 5)).toBe(5);
    expect(currentParallelism({ kind: "vertex", id: "f".repeat(32) }, choices, 5)).toBe(5);
  });
});

describe("bars", () => {
  it("draws each old subtask's key groups in its own colour, split where they go", () => {
    const rows = beforeRows(reduce());

    expect(rows.map((row) => row.segments)).toEqual([
      [
        { left: 0, width: (43 / 128) * 100, keyGroups: [0, 42], from: 0, kept: true },
        {
          left: (43 / 128) * 100,
          width: (21 / 128) * 100,
          keyGroups: [43, 63],
          from: 0,
          kept: false,
        },
      ],
      [
        { left: 50, width: (22 / 128) * 100, keyGroups: [64, 85], from: 1, kept: true },
        {
          left: (86 / 128) * 100,
          width: (42 / 128) * 100,
          keyGroups: [86, 127],
          from: 1,
          kept: false,
        },
      ],
    ]);
    expect(rows[0]?.title).toBe("Subtask 0 before: key groups 0–63");
    expect(rows.map((row) => row.note)).toEqual([
      "64 key groups, part moves",
      "64 key groups, part moves",
    ]);
  });

  it("draws an old subtask whole when the state cannot be restored", () => {
    const stuck = reduce({ restores: false, after: [], parallelism: { before: 2, after: 200 } });

    expect(beforeRows(stuck).map((row) => row.segments)).toEqual([
      [{ left: 0, width: 50, keyGroups: [0, 63], from: 0, kept: true }],
      [{ left: 50, width: 50, keyGroups: [64, 127], from: 1, kept: true }],
    ]);
    expect(beforeRows(stuck).map((row) => row.note)).toEqual(["64 key groups", "64 key groups"]);
  });

  it("marks the old subtasks a smaller job no longer has", () => {
    const shrunk = reduce({
      parallelism: { before: 2, after: 1 },
      after: [
        {
          index: 0,
          keyGroups: [0, 127],
          reads: [
            { subtask: 0, keyGroups: [0, 63] },
            { subtask: 1, keyGroups: [64, 127] },
          ],
          readsFrom: 2,
          kept: 64,
          keptFraction: 0.5,
        },
      ],
    });

    expect(beforeRows(shrunk).map((row) => row.note)).toEqual(["64 key groups", "gone after"]);
    expect(beforeRows(shrunk)[1]?.segments[0]?.kept).toBe(false);
  });

  it("draws each new subtask's key groups in the colour of the subtask they come from", () => {
    const rows = afterRows(reduce());

    expect(rows[1]?.segments).toEqual([
      {
        left: (43 / 128) * 100,
        width: (21 / 128) * 100,
        keyGroups: [43, 63],
        from: 0,
        kept: false,
      },
      { left: 50, width: (22 / 128) * 100, keyGroups: [64, 85], from: 1, kept: true },
    ]);
    expect(rows.map((row) => row.note)).toEqual(["keeps 100%", "keeps 51.2%", "keeps 0%"]);
    expect(rows[1]?.title).toBe(
      "Subtask 1 after: key groups 43–85, reads 43–63 from #0, 64–85 from #1; keeps 51.2% locally",
    );
  });

  it("covers every key group once, before and after", () => {
    for (const rows of [beforeRows(reduce()), afterRows(reduce())]) {
      const widths = rows.flatMap((row) => row.segments.map((s) => s.width));
      expect(widths.reduce((a, b) => a + b, 0)).toBeCloseTo(100);
    }
  });

  it("shows at most so many rows, and counts the subtasks the server did not describe", () => {
    expect(firstRows([1, 2, 3], 3, 2)).toEqual({ shown: [1, 2], hidden: 1 });
    expect(firstRows([1], 1, 2)).toEqual({ shown: [1], hidden: 0 });
    expect(firstRows([1, 2], 32768)).toEqual({ shown: [1, 2], hidden: 32766 });
  });

  it("splits an old subtask only where the new one of its index keeps its key groups", () => {
    // 1 -> 3 subtasks: old #0 is read by new #1 and #2 as well, one faded run.
    const grown = reduce({
      parallelism: { before: 1, after: 3 },
      before: [[0, 127]],
    });

    expect(beforeRows(grown)[0]?.segments).toEqual([
      { left: 0, width: (43 / 128) * 100, keyGroups: [0, 42], from: 0, kept: true },
      {
        left: (43 / 128) * 100,
        width: (85 / 128) * 100,
        keyGroups: [43, 127],
        from: 0,
        kept: false,
      },
    ]);
  });

  it("gives neighbours different colours", () => {
    expect(subtaskColour(0)).toBe("hsl(0 62% 52%)");
    expect(subtaskColour(1)).toBe("hsl(138 62% 52%)");
    expect(new Set([0, 1, 2, 3, 4].map(subtaskColour)).size).toBe(5);
  });
});

describe("words", () => {
  it("says what a vertex's reads are", () => {
    const subtask = reduce().after[1];
    expect(subtask === undefined ? "" : readsText(subtask)).toBe("43–63 from #0, 64–85 from #1");
    const wide = { index: 0, keyGroups: [0, 127] as const, kept: 1, keptFraction: 1 / 128 };
    expect(readsText({ ...wide, reads: [{ subtask: 0, keyGroups: [0, 0] }], readsFrom: 128 })).toBe(
      "0 from #0 and from 127 more",
    );
  });

  it("writes percentages with a decimal only where needed", () => {
    expect([percent(1), percent(0), percent(22 / 43), percent(0.5)]).toEqual([
      "100%",
      "0%",
      "51.2%",
      "50%",
    ]);
  });

  it("says whether the max parallelism was set and what Flink would derive", () => {
    expect(maxParallelismText(reduce().maxParallelism)).toBe(
      "128 key groups (max parallelism derived, never set)",
    );
    expect(
      maxParallelismText({ keyGroups: 128, explicit: false, derivedAfter: 256, after: 128 }),
    ).toBe(
      "128 key groups (max parallelism derived, never set; Flink would derive 256 at the new parallelism, but keeps the savepoint's)",
    );
    expect(
      maxParallelismText({ keyGroups: 16, explicit: true, derivedAfter: null, after: 16 }),
    ).toBe("16 key groups (max parallelism set)");
  });

  it("sums up what moves", () => {
    expect(movesText(reduce())).toBe(
      "63 of 128 key groups move · each subtask keeps 0%–100% of its state locally",
    );
    expect(
      movesText(reduce({ restores: false, movedKeyGroups: null, keptFraction: null, after: [] })),
    ).toBe("cannot restore at 3 subtasks");
    // The server's figures over every subtask, not the first ones it lists.
    expect(
      movesText(reduce({ movedKeyGroups: 100, keptFraction: { least: 0.25, most: 0.5 } })),
    ).toBe("100 of 128 key groups move · each subtask keeps 25%–50% of its state locally");
    expect(movesText(reduce({ changed: false }))).toBe(
      "unchanged: every key group stays where it is",
    );
  });

  it("writes parallelism and counts before and after", () => {
    expect(parallelismText(reduce())).toBe("2 → 3 subtasks");
    expect(parallelismText(reduce({ parallelism: { before: 2, after: 2 } }))).toBe(
      "2 subtasks (unchanged)",
    );
    expect(countText({ before: 2, after: 3 })).toBe("2 → 3");
    expect(countText({ before: 2, after: 2 })).toBe("2");
    expect(countText({ before: 2, after: null })).toBe("2 → ?");
  });

  it("lists a vertex's problems errors first, and the job's apart", () => {
    const job = problem({ code: "not-compiled", severity: "error", vertex: null, node: 1 });
    const info = problem({ code: "derived-max-parallelism-differs", severity: "info" });
    const error = problem({ code: "above-max-parallelism", severity: "error" });
    const result = simulation({ problems: [job, info, problem({}), error] });

    expect(problemsOf(result, VERTEX).map((p) => p.code)).toEqual([
      "above-max-parallelism",
      "derived-max-parallelism",
      "derived-max-parallelism-differs",
    ]);
    expect(problemsOf(result, null)).toEqual([job]);
  });

  it("gives the verdict in one sentence", () => {
    expect(verdictText(simulation())).toBe(
      "Restores from a savepoint of this version: every vertex keeps its state.",
    );
    expect(verdictText(simulation({ restores: false }))).toBe(
      "Does not restore from a savepoint of this version: see the problems below.",
    );
    expect(verdictText(simulation({ ok: false, restores: false }))).toBe(
      "At this parallelism the job does not compile, so Flink would not start it.",
    );
  });
});

describe("pages of a large job", () => {
  const page = (offset: number, total: number) => ({ offset, limit: 20, total });

  it("says which vertices a page describes, when there is more than one page", () => {
    expect(pageText(page(0, 1), 1)).toBeNull();
    expect(pageText(page(0, 45), 20)).toBe("Vertices 1–20 of 45");
    expect(pageText(page(40, 45), 5)).toBe("Vertices 41–45 of 45");
    expect(pageText(page(60, 45), 0)).toBe("No vertices from 61 on, of 45");
  });

  it("goes back to the last page when an edit left it past the end", () => {
    expect(clampedOffset(page(40, 45))).toBeNull();
    expect(clampedOffset(page(0, 0))).toBeNull();
    expect(clampedOffset(page(60, 45))).toBe(40);
    expect(clampedOffset(page(40, 40))).toBe(20);
    expect(pageStart(39)).toBe(20);
    expect(pageStart(40)).toBe(40);
  });

  it("lists other pages' errors with the page of their vertex", () => {
    const other = "a".repeat(32);
    const choices = Array.from({ length: 45 }, (_, at) => ({
      id: at === 0 ? VERTEX : at === 44 ? other : String(at).padStart(32, "0"),
      name: at === 44 ? "Sink: Last" : `Step ${at}`,
      parallelism: 2,
      maxParallelism: 128,
      maxParallelismExplicit: false,
    }));
    const error = problem({ severity: "error", code: "above-max-parallelism", vertex: other });
    const result = simulation({
      scope: "job",
      vertex: null,
      page: page(0, 45),
      choices,
      problems: [problem({}), problem({ vertex: null }), error],
      problemCounts: { error: 45, warning: 45, info: 0 },
    });

    expect(problemsElsewhere(result)).toEqual([
      { problem: error, vertexName: "Sink: Last", offset: 40 },
    ]);
    expect(unlistedProblemsText(result)).toBe(
      "Also 44 errors, 43 warnings not listed here: see the other pages.",
    );
    expect(unlistedProblemsText(simulation())).toBeNull();
  });
});
