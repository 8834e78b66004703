import { describe, expect, it } from "vitest";

import { keyGroupsOf, subtask } from "../test-support/runs";
import { barShapes, labelEvery, yOf, type Frame } from "./chart";
import {
  bars,
  heatOf,
  keyGroupCount,
  niceScale,
  noVerdictText,
  skewVerdict,
  subtaskLoads,
} from "./skew";

/** Finished subtasks with these records in (and twice as many out). */
function subtasksWith(records: readonly number[], maxParallelism = 128) {
  return records.map((n, index) =>
    subtask({
      subtask: index,
      state: "FINISHED",
      recordsIn: n,
      recordsOut: n * 2,
      keyGroups: keyGroupsOf(index, records.length, maxParallelism),
    }),
  );
}

describe("records per subtask against the prediction", () => {
  it("predicts each subtask's share from its key-group range", () => {
    // 128 key groups over 3 subtasks: 43, 43 and 42 of them.
    const summary = subtaskLoads(subtasksWith([430, 430, 420]), {
      metric: "in",
      reference: "key-groups",
      maxParallelism: 128,
    });
    expect(summary.loads.map((load) => load.keyGroups)).toEqual([43, 43, 42]);
    expect(summary.loads.map((load) => load.expected)).toEqual([
      1280 * (43 / 128),
      1280 * (43 / 128),
      1280 * (42 / 128),
    ]);
    expect(summary.total).toBe(1280);
    expect(summary.worstRatio).toBeCloseTo(1, 1);
    expect(skewVerdict(summary)).toBe("even");
  });

  it("finds the busiest subtask and how far it is from the mean and its share", () => {
    const summary = subtaskLoads(subtasksWith([10, 70, 10, 10]), {
      metric: "in",
      reference: "key-groups",
      maxParallelism: 128,
    });
    expect(summary.busiest).toBe(1);
    expect(summary.max).toBe(70);
    expect(summary.mean).toBe(25);
    expect(summary.imbalance).toBe(2.8);
    expect(summary.worstRatio).toBe(2.8);
    expect(skewVerdict(summary)).toBe("skewed");
  });

  it("counts records out when asked, and splits evenly for a non-keyed input", () => {
    const summary = subtaskLoads(subtasksWith([1, 3]), {
      metric: "out",
      reference: "even",
      maxParallelism: 128,
    });
    expect(summary.loads.map((load) => load.records)).toEqual([2, 6]);
    expect(summary.loads.map((load) => load.expectedShare)).toEqual([0.5, 0.5]);
    expect(summary.worstRatio).toBe(1.5);
  });

  it("judges no skew on an input that is not keyed", () => {
    // Uneven, but a REBALANCE or FORWARD split is the partitioner's, not the keys'.
    const summary = subtaskLoads(subtasksWith([1, 30]), {
      metric: "in",
      reference: "even",
      maxParallelism: 128,
    });
    expect(summary.keyed).toBe(false);
    expect(skewVerdict(summary)).toBe("none");
    expect(noVerdictText(summary)).toBe(
      "Skew is judged on keyed inputs only: this input is not keyed.",
    );
  });

  it("judges no skew in a canceled run, whose subtasks never finished", () => {
    const canceled = subtasksWith([5, 90, 0]).map((s) => ({ ...s, state: "CANCELED" as const }));
    const summary = subtaskLoads(canceled, {
      metric: "in",
      reference: "key-groups",
      maxParallelism: 128,
    });
    expect(summary.settledCount).toBe(0);
    expect(summary.loads.map((load) => load.expected)).toEqual([null, null, null]);
    expect(skewVerdict(summary)).toBe("none");
    expect(noVerdictText(summary)).toBe("Skew is judged once subtasks finish; none has finished.");
  });

  it("leaves subtasks that never ran or did not finish out of the judgement", () => {
    const subtasks = subtasksWith([40, 40, 0, 7]).map((s, index) =>
      index < 2 ? s : { ...s, state: index === 2 ? ("CANCELED" as const) : ("FAILED" as const) },
    );
    const summary = subtaskLoads(subtasks, {
      metric: "in",
      reference: "key-groups",
      maxParallelism: 128,
    });
    expect(summary.settledCount).toBe(2);
    expect(summary.partial).toBe(true);
    expect(summary.worstRatio).toBe(1);
    expect(skewVerdict(summary)).toBe("even");
  });

  it("waits for a subtask to finish before judging a running vertex", () => {
    const running = subtasksWith([10, 70]).map((s) => ({ ...s, state: "RUNNING" as const }));
    const summary = subtaskLoads(running, {
      metric: "in",
      reference: "key-groups",
      maxParallelism: 128,
    });
    expect(skewVerdict(summary)).toBe("none");
  });

  it("judges only finished subtasks while others still count", () => {
    const subtasks = subtasksWith([30, 10, 2, 0]).map((s, index) => ({
      ...s,
      state: index < 2 ? ("FINISHED" as const) : ("RUNNING" as const),
    }));
    const summary = subtaskLoads(subtasks, {
      metric: "in",
      reference: "key-groups",
      maxParallelism: 128,
    });
    expect(summary.partial).toBe(true);
    expect(summary.settledCount).toBe(2);
    expect(summary.total).toBe(42);
    expect(summary.loads.map((load) => load.expected)).toEqual([20, 20, null, null]);
    expect(summary.worstRatio).toBe(1.5);
    expect(summary.mean).toBe(20);
    expect(skewVerdict(summary)).toBe("mild");
    const grouped = bars(summary.loads, 2);
    expect(grouped.map((bar) => bar.expected)).toEqual([20, null]);
  });

  it("has no verdict before any record", () => {
    const summary = subtaskLoads(subtasksWith([0, 0]), {
      metric: "in",
      reference: "key-groups",
      maxParallelism: 128,
    });
    expect(summary.imbalance).toBe(null);
    expect(skewVerdict(summary)).toBe("none");
    expect(noVerdictText(summary)).toBe("No records in the finished subtasks.");
    expect(subtaskLoads([], { metric: "in", reference: "even", maxParallelism: 128 }).busiest).toBe(
      null,
    );
  });

  it("words how far a subtask is from its prediction", () => {
    expect([null, 0, 1.24, 1.25, 1.99, 2].map(heatOf)).toEqual([
      "none",
      "even",
      "even",
      "mild",
      "mild",
      "skewed",
    ]);
  });

  it("counts the key groups of a range, inclusive", () => {
    expect(keyGroupCount([0, 63])).toBe(64);
    expect(keyGroupCount([5, 4])).toBe(0);
  });

  it("groups neighbouring subtasks into bars when there are more than fit", () => {
    const loads = subtaskLoads(subtasksWith([4, 8, 1, 1, 2]), {
      metric: "in",
      reference: "even",
      maxParallelism: 128,
    }).loads;
    expect(bars(loads, 10)).toHaveLength(5);
    const grouped = bars(loads, 2);
    expect(grouped.map((bar) => [bar.first, bar.last])).toEqual([
      [0, 2],
      [3, 4],
    ]);
    expect(grouped[0]?.records).toBeCloseTo(13 / 3);
    expect(grouped[0]?.max).toBe(8);
    expect(grouped[0]?.ratio).toBeCloseTo(8 / (16 / 5));
  });
});

describe("the chart's scale", () => {
  it.each<[number, number, number[]]>([
    [0, 1, [0, 1]],
    [3, 3, [0, 1, 2, 3]],
    [95, 100, [0, 25, 50, 75, 100]],
    [1234, 1500, [0, 500, 1000, 1500]],
    [70, 80, [0, 20, 40, 60, 80]],
  ])("an axis for %d tops at %d", (max, top, ticks) => {
    expect(niceScale(max)).toEqual({ top, ticks });
  });

  const frame: Frame = { width: 220, height: 120, left: 20, right: 0, top: 10, bottom: 10 };

  it("maps values onto the plot, clamped to it", () => {
    expect(yOf(0, 100, frame)).toBe(110);
    expect(yOf(100, 100, frame)).toBe(10);
    expect(yOf(50, 100, frame)).toBe(60);
    expect(yOf(500, 100, frame)).toBe(10);
  });

  it("places bars side by side with their reference marks", () => {
    const shapes = barShapes(
      [
        { first: 0, last: 0, records: 50, max: 50, expected: 25, ratio: 2 },
        { first: 1, last: 1, records: 0, max: 0, expected: 25, ratio: 0 },
      ],
      100,
      frame,
    );
    expect(shapes.map((s) => [s.x, s.width, s.y, s.height, s.expectedY])).toEqual([
      [24, 92, 60, 50, 85],
      [124, 92, 110, 0, 85],
    ]);
  });

  it("labels every bar that fits, else evenly spaced ones", () => {
    expect(labelEvery(8, 400)).toBe(1);
    expect(labelEvery(200, 560)).toBe(10);
    expect(labelEvery(0, 400)).toBe(1);
  });
});
