/**
 * Flink's ExecutionState names as the run monitor shows them: the order of a
 * vertex's segmented progress bar, which states have ended, and the counts of
 * a set of subtasks by state.
 */

import type { ExecutionState, RunStatus, Subtask } from "../api/runs";

/** Left to right in a progress bar: done, then going, then waiting, then what went wrong. */
export const BAR_ORDER: readonly ExecutionState[] = [
  "FINISHED",
  "RUNNING",
  "INITIALIZING",
  "DEPLOYING",
  "SCHEDULED",
  "CREATED",
  "CANCELING",
  "CANCELED",
  "FAILED",
];

export const TERMINAL_STATES: readonly ExecutionState[] = ["FINISHED", "CANCELED", "FAILED"];

export function isTerminalState(state: ExecutionState): boolean {
  return TERMINAL_STATES.includes(state);
}

export interface Segment {
  readonly state: ExecutionState;
  readonly count: number;
  /** Of the total, 0..1. */
  readonly fraction: number;
}

/** The non-empty states of `counts`, in bar order, with their share of the total. */
export function stateSegments(counts: Readonly<Record<ExecutionState, number>>): Segment[] {
  const total = BAR_ORDER.reduce((sum, state) => sum + counts[state], 0);
  if (total === 0) {
    return [];
  }
  return BAR_ORDER.filter((state) => counts[state] > 0).map((state) => ({
    state,
    count: counts[state],
    fraction: counts[state] / total,
  }));
}

/** Subtasks that have ended, of all (0..1); 0 when there are none. */
export function doneFraction(counts: Readonly<Record<ExecutionState, number>>): number {
  const total = BAR_ORDER.reduce((sum, state) => sum + counts[state], 0);
  const done = TERMINAL_STATES.reduce((sum, state) => sum + counts[state], 0);
  return total === 0 ? 0 : done / total;
}

/** "2 FINISHED · 1 RUNNING", the non-empty states in bar order. */
export function countsText(counts: Readonly<Record<ExecutionState, number>>): string {
  return stateSegments(counts)
    .map((segment) => `${segment.count} ${segment.state}`)
    .join(" · ");
}

/** Subtasks by their current state. */
export function countStates(subtasks: readonly Subtask[]): Record<ExecutionState, number> {
  const counts = Object.fromEntries(BAR_ORDER.map((state) => [state, 0])) as Record<
    ExecutionState,
    number
  >;
  for (const subtask of subtasks) {
    counts[subtask.state] += 1;
  }
  return counts;
}

/**
 * A run status's tone: the colour family its badge takes. Canceled is neutral: someone
 * stopped the run (or Flink stopped a subtask because of it), nothing went wrong.
 */
export function statusTone(
  status: RunStatus | ExecutionState,
): "waiting" | "running" | "done" | "failed" | "stopping" | "neutral" {
  switch (status) {
    case "RUNNING":
    case "INITIALIZING":
    case "DEPLOYING":
      return "running";
    case "FINISHED":
      return "done";
    case "FAILED":
      return "failed";
    case "CANCELING":
      return "stopping";
    case "CANCELED":
      return "neutral";
    default:
      return "waiting";
  }
}

/** The retries of a subtask: attempts before its current one. */
export function retries(subtask: Pick<Subtask, "attempts" | "attempt">): number {
  return Math.max(subtask.attempts.length - 1, subtask.attempt, 0);
}
