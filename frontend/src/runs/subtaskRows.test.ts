import { describe, expect, it } from "vitest";

import { attempt, subtask } from "../test-support/runs";
import { filterByState, nextOrder, pageOf, sortSubtasks, withFailures } from "./subtaskRows";

const subtasks = [
  subtask({ subtask: 0, state: "FINISHED", recordsIn: 5, startTime: 10, endTime: 11 }),
  subtask({ subtask: 1, state: "RUNNING", recordsIn: 9, startTime: 10, endTime: null }),
  subtask({ subtask: 2, state: "FINISHED", recordsIn: 9, startTime: 10, endTime: 20 }),
  subtask({ subtask: 3, state: "CREATED" }),
];

describe("the subtask table's rows", () => {
  it("filters by state, all when none is picked", () => {
    expect(filterByState(subtasks, new Set())).toBe(subtasks);
    expect(filterByState(subtasks, new Set(["FINISHED"])).map((s) => s.subtask)).toEqual([0, 2]);
  });

  it("sorts by a column with ties by index, leaving the natural order as it is", () => {
    expect(sortSubtasks(subtasks, { key: "subtask", descending: false }, 0)).toBe(subtasks);
    const byRecords = sortSubtasks(subtasks, { key: "recordsIn", descending: true }, 0);
    expect(byRecords.map((s) => s.subtask)).toEqual([1, 2, 0, 3]);
    // Subtask 1 has run for 15 s at 25 s; subtask 2 ran for 10 s; 3 has not started.
    const byDuration = sortSubtasks(subtasks, { key: "duration", descending: true }, 25_000);
    expect(byDuration.map((s) => s.subtask)).toEqual([1, 2, 0, 3]);
    const byState = sortSubtasks(subtasks, { key: "state", descending: false }, 0);
    expect(byState.map((s) => s.state)).toEqual(["FINISHED", "FINISHED", "RUNNING", "CREATED"]);
  });

  it("flips a column's direction, and starts figures largest first", () => {
    expect(nextOrder({ key: "subtask", descending: false }, "subtask")).toEqual({
      key: "subtask",
      descending: true,
    });
    expect(nextOrder({ key: "subtask", descending: false }, "recordsIn")).toEqual({
      key: "recordsIn",
      descending: true,
    });
    expect(nextOrder({ key: "recordsIn", descending: true }, "state")).toEqual({
      key: "state",
      descending: false,
    });
  });

  it("cuts long lists into pages, clamping the page asked for", () => {
    const items = Array.from({ length: 120 }, (_, i) => i);
    expect(pageOf(items, 0)).toMatchObject({ page: 0, pages: 3, offset: 0 });
    expect(pageOf(items, 2).items).toEqual(items.slice(100));
    expect(pageOf(items, 9)).toMatchObject({ page: 2, offset: 100 });
    expect(pageOf([], 3)).toMatchObject({ page: 0, pages: 1, items: [] });
  });

  it("finds subtasks that failed now or in an earlier attempt", () => {
    const retried = subtask({
      subtask: 4,
      attempt: 1,
      state: "FINISHED",
      attempts: [
        attempt({ state: "FAILED", error: "boom" }),
        attempt({ attempt: 1, state: "FINISHED" }),
      ],
    });
    const failed = subtask({ subtask: 5, state: "FAILED" });
    expect(withFailures([...subtasks, retried, failed]).map((s) => s.subtask)).toEqual([4, 5]);
  });
});
