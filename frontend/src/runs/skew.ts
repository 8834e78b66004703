/**
 * Records per subtask against what the plan predicts, so skew shows at a glance.
 *
 * Behind a HASH edge a record goes to the subtask owning its key's key group,
 * and subtask i owns a contiguous range of the vertex's max-parallelism key
 * groups: evenly spread keys would give each subtask its range's share of the
 * records. Behind any other edge the fair share is an even split. The chart
 * draws one bar per subtask (or per group of neighbouring subtasks when there
 * are more than fit) with that prediction as a reference mark.
 *
 * Skew is judged only where it means something: on a keyed input, and on the
 * subtasks that finished. A subtask still running has not its final count, and one
 * that was canceled or never ran has none; an input that is not keyed has no key
 * groups for records to pile up in (its split is the partitioner's, not the data's).
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
  /** True once it finished: only finished subtasks' counts are final and judged. */
  readonly settled: boolean;
  /** Its records if the settled subtasks' total were split by prediction; null if not settled. */
  readonly expected: number | null;
  /** records / expected; null when nothing was expected. */
  readonly ratio: number | null;
}

export interface LoadSummary {
  readonly loads: readonly SubtaskLoad[];
  /** The input is keyed (predicted by key groups): only then is skew judged. */
  readonly keyed: boolean;
  /** Records of every subtask. */
  readonly total: number;
  /** True when some subtasks are not judged (they have not finished). */
  readonly partial: boolean;
  /** How many subtasks are judged. */
  readonly settledCount: number;
  /** Records per judged subtask. */
  readonly mean: number;
  readonly max: number;
  /** The judged subtask with the most records (the first of equals); null without any. */
  readonly busiest: number | null;
  /** max / mean of the judged subtasks: 1 is perfectly even; null without records. */
  readonly imbalance: number | null;
  /** The largest records / expected of a judged subtask; null without records. */
  readonly worstRatio: number | null;
}

export function keyGroupCount(range: readonly [number, number]): number {
  return Math.max(0, range[1] - range[0] + 1);
}

/**
 * Whether a subtask's count is compared with the prediction: only once it finished.
 * A running subtask's count still grows; a canceled or failed one, or one that never
 * ran, stopped short of what it would have received.
 */
export function isSettled(subtask: Pick<Subtask, "state">): boolean {
  return subtask.state === "FINISHED";
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
  const groupTotal =
    options.maxParallelism > 0
      ? options.maxParallelism
      : subtasks.reduce((sum, s) => sum + keyGroupCount(s.keyGroups), 0);
  const base = subtasks.map((s) => {
    const keyGroups = keyGroupCount(s.keyGroups);
    return {
      subtask: s.subtask,
      records: options.metric === "in" ? s.recordsIn : s.recordsOut,
      keyGroups,
      expectedShare:
        options.reference === "even" || groupTotal === 0
          ? 1 / subtasks.length
          : keyGroups / groupTotal,
      settled: isSettled(s),
    };
  });
  const settled = base.filter((load) => load.settled);
  const settledTotal = settled.reduce((sum, load) => sum + load.records, 0);
  const settledShare = settled.reduce((sum, load) => sum + load.expectedShare, 0);
  const loads = base.map((load): SubtaskLoad => {
    const expected =
      load.settled && settledShare > 0 ? (settledTotal * load.expectedShare) / settledShare : null;
    return {
      ...load,
      expected,
      ratio: expected !== null && expected > 0 ? load.records / expected : null,
    };
  });
  let busiest: SubtaskLoad | null = null;
  for (const load of loads) {
    if (load.settled && (busiest === null || load.records > busiest.records)) {
      busiest = load;
    }
  }
  const mean = settled.length === 0 ? 0 : settledTotal / settled.length;
  const ratios = loads.map((load) => load.ratio).filter((r): r is number => r !== null);
  return {
    loads,
    keyed: options.reference === "key-groups",
    total: base.reduce((sum, load) => sum + load.records, 0),
    partial: settled.length < loads.length,
    settledCount: settled.length,
    mean,
    max: busiest?.records ?? 0,
    busiest: busiest?.subtask ?? null,
    imbalance: settledTotal === 0 || busiest === null ? null : busiest.records / mean,
    worstRatio: settledTotal === 0 || ratios.length === 0 ? null : Math.max(...ratios),
  };
}

export type Heat = "none" | "even" | "mild" | "skewed";

/** How far records / predicted is from 1, in words a data engineer would use. */
export function heatOf(ratio: number | null): Heat {
  if (ratio === null) {
    return "none";
  }
  if (ratio < 1.25) {
    return "even";
  }
  return ratio < 2 ? "mild" : "skewed";
}

/**
 * How skewed a vertex is: the heat of its worst finished subtask; "none" for an input
 * that is not keyed and before any subtask finished with records.
 */
export function skewVerdict(summary: LoadSummary): Heat {
  return summary.keyed ? heatOf(summary.worstRatio) : "none";
}

/** Why a vertex has no skew verdict, in words (for a summary whose verdict is "none"). */
export function noVerdictText(summary: LoadSummary): string {
  if (!summary.keyed) {
    return "Skew is judged on keyed inputs only: this input is not keyed.";
  }
  if (summary.settledCount === 0) {
    return summary.total === 0
      ? "No records yet."
      : "Skew is judged once subtasks finish; none has finished.";
  }
  return "No records in the finished subtasks.";
}

/** Neighbouring subtasks drawn as one bar when there are more than fit. */
export interface Bar {
  readonly first: number;
  readonly last: number;
  /** Mean records per subtask of the group. */
  readonly records: number;
  /** The most records of one subtask in the group. */
  readonly max: number;
  /** Mean predicted records per judged subtask of the group; null if none is judged. */
  readonly expected: number | null;
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
    const expected = group.map((load) => load.expected).filter((e): e is number => e !== null);
    result.push({
      first: first.subtask,
      last: last.subtask,
      records: group.reduce((sum, load) => sum + load.records, 0) / group.length,
      max: Math.max(...group.map((load) => load.records)),
      expected:
        expected.length === 0 ? null : expected.reduce((sum, e) => sum + e, 0) / expected.length,
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
