import { describe, expect, it } from "vitest";

import type { SinkOutput } from "../api/runs";
import { attempt, MAP_VERTEX, subtask, vertex } from "../test-support/runs";
import {
  endingLine,
  exceptionsTab,
  failedAttempts,
  runEnding,
  runError,
  sinksByNode,
} from "./outcomes";

function sink(node: number, subtaskIndex: number): SinkOutput {
  return {
    node,
    vertex: "v",
    subtask: subtaskIndex,
    records: 1,
    preview: ["x"],
    truncated: false,
    files: [],
  };
}

describe("what a run produced", () => {
  it("groups sink outputs by node, subtasks in order", () => {
    const grouped = sinksByNode([sink(4, 1), sink(6, 0), sink(4, 0)]);
    expect([...grouped.keys()]).toEqual([4, 6]);
    expect(grouped.get(4)?.map((s) => s.subtask)).toEqual([0, 1]);
  });

  it("lists failed attempts newest first, saying which were retried", () => {
    const retried = subtask({
      subtask: 0,
      attempt: 1,
      state: "FINISHED",
      attempts: [
        attempt({ state: "FAILED", endTime: 10, error: "Map (node 2): boom" }),
        attempt({ attempt: 1, state: "FINISHED", endTime: 12 }),
      ],
    });
    const failed = subtask({
      subtask: 1,
      state: "FAILED",
      attempts: [attempt({ state: "FAILED", endTime: 11, error: null })],
    });
    const list = failedAttempts([vertex()], new Map([[MAP_VERTEX, [retried, failed]]]));
    expect(list.map((item) => [item.subtask, item.attempt, item.retried, item.error])).toEqual([
      [1, 0, false, "(no error text)"],
      [0, 0, true, "Map (node 2): boom"],
    ]);
    expect(list[0]?.vertexName).toBe("Map");
  });
});

describe("how a run ended", () => {
  const eddie = { id: 2, username: "eddie" };

  it("says a canceled run was canceled and by whom, neutrally, with no run error", () => {
    const canceled = { status: "CANCELED", error: null, canceledBy: eddie } as const;
    expect(runEnding(canceled)).toEqual({
      tone: "neutral",
      title: "The run was canceled",
      detail: "by eddie",
    });
    expect(runError(canceled)).toBeNull();
    // Servers before this stored a text as a canceled run's error: still no exception.
    expect(runError({ ...canceled, error: "the run was canceled" })).toBeNull();
    expect(runEnding({ ...canceled, error: "the run was canceled" })?.tone).toBe("neutral");
    expect(runEnding({ ...canceled, canceledBy: null })?.detail).toBeNull();
    expect(runEnding({ ...canceled, status: "CANCELING" })).toEqual({
      tone: "neutral",
      title: "The run is being canceled",
      detail: "by eddie",
    });
  });

  it("says a failed run failed, with its error", () => {
    const failed = { status: "FAILED", error: "Map (node 2): boom", canceledBy: null } as const;
    expect(runEnding(failed)).toEqual({
      tone: "failed",
      title: "The run failed",
      detail: "Map (node 2): boom",
    });
    expect(runError(failed)).toBe("Map (node 2): boom");
  });

  it("says nothing while the run goes on or when it finished", () => {
    for (const status of ["QUEUED", "RUNNING", "FINISHED"] as const) {
      expect(runEnding({ status, error: null, canceledBy: null })).toBeNull();
    }
  });
});

describe("what the run page says about the ending", () => {
  const eddie = { id: 2, username: "eddie" };

  it("reads a canceled run as canceled by whom, never as failed", () => {
    const ending = runEnding({
      status: "CANCELED",
      error: "the run was canceled",
      canceledBy: eddie,
    });
    expect(ending).not.toBeNull();
    if (ending !== null) {
      expect(endingLine(ending)).toBe("The run was canceled by eddie");
      expect(endingLine(ending)).not.toContain("failed");
    }
    const unknown = runEnding({ status: "CANCELED", error: null, canceledBy: null });
    expect(unknown === null ? null : endingLine(unknown)).toBe("The run was canceled");
  });

  it("gives a failed run's error after a colon", () => {
    const ending = runEnding({ status: "FAILED", error: "boom", canceledBy: null });
    expect(ending === null ? null : endingLine(ending)).toBe("The run failed: boom");
  });

  it("flags the exceptions tab for failed attempts or a run error only", () => {
    expect(exceptionsTab(3, null)).toEqual({ label: "Exceptions (3)", alert: true });
    expect(exceptionsTab(0, "boom")).toEqual({ label: "Exceptions (!)", alert: true });
    expect(exceptionsTab(0, null)).toEqual({ label: "Exceptions", alert: false });
    // A canceled run's stored text is no run error, so the tab stays quiet.
    const canceled = runError({ status: "CANCELED", error: "the run was canceled" });
    expect(exceptionsTab(0, canceled).alert).toBe(false);
  });
});
