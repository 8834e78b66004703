import { describe, expect, it } from "vitest";

import { attempt, stateCounts, subtask } from "../test-support/runs";
import {
  countStates,
  countsText,
  doneFraction,
  isTerminalState,
  retries,
  stateSegments,
  statusTone,
} from "./states";

describe("states", () => {
  it("splits a vertex's subtasks into bar segments in bar order", () => {
    const counts = stateCounts({ RUNNING: 1, FINISHED: 2, FAILED: 1 });
    expect(stateSegments(counts)).toEqual([
      { state: "FINISHED", count: 2, fraction: 0.5 },
      { state: "RUNNING", count: 1, fraction: 0.25 },
      { state: "FAILED", count: 1, fraction: 0.25 },
    ]);
    expect(stateSegments(stateCounts({}))).toEqual([]);
    expect(countsText(counts)).toBe("2 FINISHED · 1 RUNNING · 1 FAILED");
  });

  it("counts how much of a vertex has ended", () => {
    expect(doneFraction(stateCounts({ FINISHED: 3, RUNNING: 1 }))).toBe(0.75);
    expect(doneFraction(stateCounts({ CANCELED: 1, FAILED: 1 }))).toBe(1);
    expect(doneFraction(stateCounts({}))).toBe(0);
    expect(isTerminalState("CANCELING")).toBe(false);
    expect(isTerminalState("CANCELED")).toBe(true);
  });

  it("counts subtasks by their current state", () => {
    const counts = countStates([
      subtask({ state: "RUNNING" }),
      subtask({ subtask: 1, state: "RUNNING" }),
      subtask({ subtask: 2, state: "SCHEDULED" }),
    ]);
    expect(counts).toEqual(stateCounts({ RUNNING: 2, SCHEDULED: 1 }));
  });

  it("gives run statuses and states a tone", () => {
    expect(statusTone("QUEUED")).toBe("waiting");
    expect(statusTone("DEPLOYING")).toBe("running");
    expect(statusTone("FINISHED")).toBe("done");
    expect(statusTone("FAILED")).toBe("failed");
    expect(statusTone("CANCELING")).toBe("stopping");
    // A canceled run or subtask is neutral, not a failure.
    expect(statusTone("CANCELED")).toBe("neutral");
  });

  it("counts a subtask's retries", () => {
    expect(retries(subtask())).toBe(0);
    expect(
      retries(
        subtask({
          attempt: 2,
          attempts: [
            attempt({ state: "FAILED" }),
            attempt({ attempt: 1, state: "FAILED" }),
            attempt({ attempt: 2 }),
          ],
        }),
      ),
    ).toBe(2);
  });
});
