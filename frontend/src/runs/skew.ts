/**
 * Records per subtask against what the plan predicts, so skew shows at a glance.
 *
 * Behind a HASH edge a record goes to the subtask owning its key's key group,
 * and subtask i owns a contiguous range of the vertex's max-parallelism key
 * groups: evenly spread keys would give each subtask its range's share of the
 * records. Behind any other edge the fair share is an even split. The chart
 * draws one bar per subtask (or per group of neighbouring subtasks when there
 * are more than fit) with that prediction as a reference mark.
 */

import type { Subtask } from "../api/runs";

export type Metric = "in" | "out";

/** How the prediction is made: by key-group range (keyed input) or an even split. */
export type Reference = "key-groups" | "even";

export interface SubtaskLoad {
  readonly subtask: number;
  readonly records: number;
  /** Key groups the subtask owns. */
  readonly keyGroups: number;
  /** Its predicted share of the vertex's records, 0..1. */
  readonly expectedShare: number;
  /** Its records if the vertex's total were split by prediction. */
  readonly expected: number;
  /** records / expected; null when nothing was expected. */
  readonly ratio: number | null;
}

export interface LoadSummary {
  readonly loads: readonly SubtaskLoad[];
  readonly total: number;
  readonly mean: number;
  readonly max: number;
  /** The subtask with the most records (the first of equals); null without subtasks. */
  readonly busiest: number | null;
  /** max / mean: 1 is perfectly even; null without records. */
  readonly imbalance: number | null;
  /** The largest records / expected of any subtask; null without records. */
  readonly worstRatio: number | null;
}

export function keyGroupCount(range: readonly [number, number]): number {
  return Math.max(0, range[1] - range[0] + 1);
}

/** Each subtask's records (in or out) with its predicted share. */
export function subtaskLoads(
  subtasks: readonly Subtask[],
  options: {
    readonly metric: Metric;
    readonly reference: Reference;
    readonly maxParallelism: number;
  },
): LoadSummary {
  const records = subtasks.map((s) => (options.metric === "in" ? s.recordsIn : s.recordsOut));
  const total = records.reduce((sum, n) => sum + n, 0);
  const groups = subtasks.map((s) => keyGroupCount(s.keyGroups));
  const groupTotal =
    options.maxParallelism > 0 ? options.maxParallelism : groups.reduce((a, b) => a + b, 0);
  const loads = subtasks.map((s, index): SubtaskLoad => {
    const n = records[index] ?? 0;
    const keyGroups = groups[index] ?? 0;
    const expectedShare =
      options.reference === "even" || groupTotal === 0
        ? 1 / subtasks.length
        : keyGroups / groupTotal;
    const expected = total * expectedShare;
    return {
      subtask: s.subtask,
      records: n,
      keyGroups,
      expectedShare,
      expected,
      ratio: expected > 0 ? n / expected : null,
    };
  });
  let busiest: SubtaskLoad | null = null;
  for (const load of loads) {
    if (busiest === null || load.records > busiest.records) {
      busiest = load;
    }
  }
  const mean = loads.length === 0 ? 0 : total / loads.length;
  const ratios = loads.map((load) => load.ratio).filter((r): r is number => r !== null);
  return {
    loads,
    total,
    mean,
    max: busiest?.records ?? 0,
    busiest: busiest?.subtask ?? null,
    imbalance: total === 0 || busiest === null ? null : busiest.records / mean,
    worstRatio: total === 0 || ratios.length === 0 ? null : Math.max(...ratios),
  };
}

/** How skewed a vertex is, in words a data engineer would use. */
export function skewVerdict(summary: LoadSummary): "none" | "even" | "mild" | "skewed" {
  const ratio = summary.worstRatio;
  if (ratio === null) {
    return "none";
  }
  if (ratio < 1.25) {
    return "even";
  }
  return ratio < 2 ? "mild" : "skewed";
}

/** Neighbouring subtasks drawn as one bar when there are more than fit. */
export interface Bar {
  readonly first: number;
  readonly last: number;
  /** Mean records per subtask of the group. */
  readonly records: number;
  /** The most records of one subtask in the group. */
  readonly max: number;
  /** Mean predicted records per subtask of the group. */
  readonly expected: number;
  /** The worst records / expected in the group. */
  readonly ratio: number | null;
}

/** At most `maxBars` bars: one per subtask, or per run of ceil(n / maxBars) subtasks. */
export function bars(loads: readonly SubtaskLoad[], maxBars: number): Bar[] {
  const size = Math.max(1, Math.ceil(loads.length / Math.max(1, maxBars)));
  const result: Bar[] = [];
  for (let start = 0; start < loads.length; start += size) {
    const group = loads.slice(start, start + size);
    const first = group[0];
    const last = group.at(-1);
    if (first === undefined || last === undefined) {
      continue;
    }
    const ratios = group.map((load) => load.ratio).filter((r): r is number => r !== null);
    result.push({
      first: first.subtask,
      last: last.subtask,
      records: group.reduce((sum, load) => sum + load.records, 0) / group.length,
      max: Math.max(...group.map((load) => load.records)),
      expected: group.reduce((sum, load) => sum + load.expected, 0) / group.length,
      ratio: ratios.length === 0 ? null : Math.max(...ratios),
    });
  }
  return result;
}

/** A round top for an axis from 0 to at least `max`, and `count` + 1 evenly spaced ticks. */
export function niceScale(max: number, count = 4): { top: number; ticks: number[] } {
  if (!(max > 0) || !Number.isFinite(max)) {
    return { top: 1, ticks: [0, 1] };
  }
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step =
    [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= raw) ??
    10 * magnitude;
  // Whole records: a step below one record would label fractions.
  const whole = Math.max(step, 1);
  const top = Math.ceil(max / whole) * whole;
  const ticks: number[] = [];
  for (let tick = 0; tick <= top + whole / 2; tick += whole) {
    ticks.push(Math.round(tick * 1e6) / 1e6);
  }
  return { top, ticks };
}
