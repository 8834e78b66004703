/**
 * Which subtasks a vertex's table shows and in what order: filtered by state,
 * sorted by a column, and cut into pages so a parallelism in the hundreds
 * stays a short, readable table.
 */

import type { ExecutionState, Subtask } from "../api/runs";
import { spanDuration } from "./format";
import { BAR_ORDER } from "./states";

export type SortKey = "subtask" | "state" | "attempt" | "recordsIn" | "recordsOut" | "duration";

export interface SortOrder {
  readonly key: SortKey;
  readonly descending: boolean;
}

export const PAGE_SIZE = 50;

/** The subtasks in one of `states` (all when the set is empty). */
export function filterByState(
  subtasks: readonly Subtask[],
  states: ReadonlySet<ExecutionState>,
): readonly Subtask[] {
  return states.size === 0 ? subtasks : subtasks.filter((s) => states.has(s.state));
}

function sortValue(subtask: Subtask, key: SortKey, now: number): number {
  switch (key) {
    case "subtask":
      return subtask.subtask;
    case "state":
      return BAR_ORDER.indexOf(subtask.state);
    case "attempt":
      return subtask.attempt;
    case "recordsIn":
      return subtask.recordsIn;
    case "recordsOut":
      return subtask.recordsOut;
    case "duration":
      return spanDuration(subtask, now) ?? -1;
  }
}

/** Sorted by `order`, ties by subtask index; `now` (ms) times subtasks still running. */
export function sortSubtasks(
  subtasks: readonly Subtask[],
  order: SortOrder,
  now: number,
): readonly Subtask[] {
  if (order.key === "subtask" && !order.descending) {
    return subtasks;
  }
  const sign = order.descending ? -1 : 1;
  return [...subtasks].sort(
    (a, b) =>
      sign * (sortValue(a, order.key, now) - sortValue(b, order.key, now)) || a.subtask - b.subtask,
  );
}

/** Clicking a column: the same one flips its direction, another starts at its natural one. */
export function nextOrder(current: SortOrder, key: SortKey): SortOrder {
  if (current.key === key) {
    return { key, descending: !current.descending };
  }
  // Figures read best largest first; the index and the state in their own order.
  return { key, descending: key !== "subtask" && key !== "state" };
}

export interface Page<T> {
  readonly items: readonly T[];
  /** 0-based, clamped to the pages there are. */
  readonly page: number;
  readonly pages: number;
  /** Index of the first item shown, in the whole list. */
  readonly offset: number;
}

export function pageOf<T>(items: readonly T[], page: number, size = PAGE_SIZE): Page<T> {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(Math.max(0, page), pages - 1);
  const offset = current * size;
  return { items: items.slice(offset, offset + size), page: current, pages, offset };
}

/** The subtasks that failed at least once (now or in an earlier attempt), by index. */
export function withFailures(subtasks: readonly Subtask[]): readonly Subtask[] {
  return subtasks.filter(
    (s) => s.state === "FAILED" || s.attempts.some((attempt) => attempt.state === "FAILED"),
  );
}
