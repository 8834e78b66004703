/**
 * What the rescale view shows of a `RescaleSimulation` (`compiler.rescale` on the server):
 * one bar of key groups per subtask before and after, coloured by the old subtask the key
 * groups come from, and the figures and problems in words. The server assigns the key
 * groups as Flink does; nothing here computes them again.
 */

import type {
  RescaleChoice,
  RescaledSubtask,
  RescaledVertex,
  RescaleMaxParallelism,
  RescalePage,
  RescaleProblem,
  RescaleQuery,
  RescaleSimulation,
} from "../api/resources";

/** Flink's bounds of a parallelism (`Transformation.UPPER_BOUND_MAX_PARALLELISM`). */
export const MAX_PARALLELISM = 32768;

/** Bars drawn per side of a vertex (the server describes as many, `subtasksShown`); wider
 * ones are summed up below their first rows. */
export const MAX_BAR_ROWS = 64;

/** The whole job, or one JobVertex by id. */
export type RescaleTarget =
  { readonly kind: "job" } | { readonly kind: "vertex"; readonly id: string };

export type ParsedParallelism =
  { readonly ok: true; readonly value: number } | { readonly ok: false; readonly message: string };

/** A parallelism typed in the field: a whole number from 1 to 32768. */
export function parseParallelism(text: string): ParsedParallelism {
  const trimmed = text.trim();
  if (!/^[0-9]+$/.test(trimmed)) {
    return { ok: false, message: "Enter the number of subtasks, a whole number." };
  }
  const value = Number(trimmed);
  if (value < 1 || value > MAX_PARALLELISM) {
    return { ok: false, message: `Parallelism must be between 1 and ${MAX_PARALLELISM}.` };
  }
  return { ok: true, value };
}

/** Vertices the view asks the server to describe at a time (it judges all of them). */
export const VERTICES_PER_PAGE = 20;

/** The request for a target at a parallelism, of a version or (null) the working copy,
 * describing the vertices from `offset` on. */
export function rescaleQuery(
  target: RescaleTarget,
  parallelism: number,
  version: number | null,
  offset = 0,
): RescaleQuery {
  return {
    parallelism,
    ...(target.kind === "vertex" ? { vertex: target.id } : {}),
    ...(version === null ? {} : { version }),
    ...(offset === 0 ? {} : { offset }),
    limit: VERTICES_PER_PAGE,
  };
}

/** The page that starts with the `index`-th vertex (in topological order). */
export function pageStart(index: number, limit: number = VERTICES_PER_PAGE): number {
  return Math.floor(Math.max(0, index) / limit) * limit;
}

/** Where to go when the page asked for lies past the last vertex (an edit removed some):
 * the last page; null when the page is fine. */
export function clampedOffset(page: RescalePage): number | null {
  if (page.offset < page.total || page.offset === 0) {
    return null;
  }
  return pageStart(page.total - 1, page.limit);
}

/** "Vertices 21–40 of 45", or null when one page holds them all. */
export function pageText(page: RescalePage, shown: number): string | null {
  if (page.offset === 0 && shown >= page.total) {
    return null;
  }
  if (shown === 0) {
    return `No vertices from ${page.offset + 1} on, of ${page.total}`;
  }
  return `Vertices ${page.offset + 1}–${page.offset + shown} of ${page.total}`;
}

/** The parallelism a target has now: a vertex's own, or the job's default. */
export function currentParallelism(
  target: RescaleTarget,
  choices: readonly RescaleChoice[],
  defaultParallelism: number,
): number {
  if (target.kind === "job") {
    return defaultParallelism;
  }
  return choices.find((choice) => choice.id === target.id)?.parallelism ?? defaultParallelism;
}

/** A colour per subtask index, far apart for neighbours (the golden angle around the hue). */
export function subtaskColour(index: number): string {
  const hue = Math.round((index * 137.508) % 360);
  return `hsl(${hue} 62% 52%)`;
}

/** A fraction as a percentage, with one decimal only where it is needed. */
export function percent(fraction: number): string {
  const tenths = Math.round(fraction * 1000) / 10;
  return `${Number.isInteger(tenths) ? tenths.toFixed(0) : tenths.toFixed(1)}%`;
}

function span(range: readonly [number, number]): string {
  return range[0] === range[1] ? String(range[0]) : `${range[0]}–${range[1]}`;
}

/** One run of key groups in a bar, coloured by the (old) subtask that held it. */
export interface BarSegment {
  /** Left edge and width in percent of the key groups. */
  readonly left: number;
  readonly width: number;
  readonly keyGroups: readonly [number, number];
  readonly from: number;
  /** Held by the subtask of the same index before: state that stays local. */
  readonly kept: boolean;
}

export interface BarRow {
  readonly index: number;
  readonly segments: readonly BarSegment[];
  /** What the bar shows, in words (its title and accessible name). */
  readonly title: string;
  /** The short figure beside the bar. */
  readonly note: string;
}

function segment(
  keyGroups: readonly [number, number],
  from: number,
  kept: boolean,
  total: number,
): BarSegment {
  return {
    left: (keyGroups[0] / total) * 100,
    width: ((keyGroups[1] - keyGroups[0] + 1) / total) * 100,
    keyGroups,
    from,
    kept,
  };
}

/**
 * The bars of the old subtasks the server describes, each in its own colour: the part the
 * new subtask of the same index keeps, the rest faded as it moves (whole when it cannot
 * restore).
 */
export function beforeRows(vertex: RescaledVertex): BarRow[] {
  const total = vertex.maxParallelism.keyGroups;
  const after = new Map(vertex.after.map((subtask) => [subtask.index, subtask.keyGroups]));
  return vertex.before.map((range, index) => {
    const mine = after.get(index);
    const kept: readonly [number, number] | null =
      mine === undefined ? null : [Math.max(range[0], mine[0]), Math.min(range[1], mine[1])];
    const segments: BarSegment[] = [];
    if (!vertex.restores) {
      segments.push(segment(range, index, true, total));
    } else if (kept === null || kept[0] > kept[1]) {
      segments.push(segment(range, index, false, total));
    } else {
      if (range[0] < kept[0]) segments.push(segment([range[0], kept[0] - 1], index, false, total));
      segments.push(segment(kept, index, true, total));
      if (kept[1] < range[1]) segments.push(segment([kept[1] + 1, range[1]], index, false, total));
    }
    const moved = vertex.restores && segments.some((part) => !part.kept);
    return {
      index,
      segments,
      title: `Subtask ${index} before: key groups ${span(range)}`,
      note:
        index >= vertex.parallelism.after
          ? "gone after"
          : `${range[1] - range[0] + 1} key groups${moved ? ", part moves" : ""}`,
    };
  });
}

/** Where a new subtask's key groups come from, in words. */
export function readsText(subtask: RescaledSubtask): string {
  const listed = subtask.reads.map((read) => `${span(read.keyGroups)} from #${read.subtask}`);
  const more = subtask.readsFrom - subtask.reads.length;
  return more > 0 ? `${listed.join(", ")} and from ${more} more` : listed.join(", ");
}

/** The bars of the new subtasks: each run of key groups in the colour of its old subtask. */
export function afterRows(vertex: RescaledVertex): BarRow[] {
  const total = vertex.maxParallelism.keyGroups;
  return vertex.after.map((subtask) => ({
    index: subtask.index,
    segments: subtask.reads.map((read) =>
      segment(read.keyGroups, read.subtask, read.subtask === subtask.index, total),
    ),
    title: `Subtask ${subtask.index} after: key groups ${span(subtask.keyGroups)}, reads ${readsText(subtask)}; keeps ${percent(subtask.keptFraction)} locally`,
    note: `keeps ${percent(subtask.keptFraction)}`,
  }));
}

/** At most `limit` of the rows the server described, and how many of `total` are not drawn. */
export function firstRows<T>(
  rows: readonly T[],
  total: number,
  limit = MAX_BAR_ROWS,
): { shown: readonly T[]; hidden: number } {
  const shown = rows.slice(0, limit);
  return { shown, hidden: Math.max(0, total - shown.length) };
}

/** The vertex's max parallelism in words: its key groups, whether set, what Flink derives. */
export function maxParallelismText(max: RescaleMaxParallelism): string {
  if (max.explicit) {
    return `${max.keyGroups} key groups (max parallelism set)`;
  }
  const derived =
    max.derivedAfter !== null && max.derivedAfter !== max.keyGroups
      ? `; Flink would derive ${max.derivedAfter} at the new parallelism, but keeps the savepoint's`
      : "";
  return `${max.keyGroups} key groups (max parallelism derived, never set${derived})`;
}

/** What moves, and the least and most a new subtask keeps. */
export function movesText(vertex: RescaledVertex): string {
  if (!vertex.restores || vertex.movedKeyGroups === null || vertex.keptFraction === null) {
    return `cannot restore at ${vertex.parallelism.after} subtasks`;
  }
  if (!vertex.changed) {
    return "unchanged: every key group stays where it is";
  }
  const { least, most } = vertex.keptFraction;
  const range = least === most ? percent(least) : `${percent(least)}–${percent(most)}`;
  return `${vertex.movedKeyGroups} of ${vertex.maxParallelism.keyGroups} key groups move · each subtask keeps ${range} of its state locally`;
}

/** The parallelism change of a vertex, e.g. "2 → 3 subtasks". */
export function parallelismText(vertex: RescaledVertex): string {
  const { before, after } = vertex.parallelism;
  return before === after ? `${before} subtasks (unchanged)` : `${before} → ${after} subtasks`;
}

/** A before/after count, e.g. "4 → 6", or "4 → ?" when the rescaled job does not compile. */
export function countText(count: {
  readonly before: number;
  readonly after: number | null;
}): string {
  if (count.after === null) {
    return `${count.before} → ?`;
  }
  return count.before === count.after ? String(count.before) : `${count.before} → ${count.after}`;
}

const SEVERITY_ORDER: Readonly<Record<RescaleProblem["severity"], number>> = {
  error: 0,
  warning: 1,
  info: 2,
};

/** The problems about one vertex (or, with null, about none), errors first. */
export function problemsOf(simulation: RescaleSimulation, vertex: string | null): RescaleProblem[] {
  return simulation.problems
    .filter((problem) => problem.vertex === vertex)
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

/** A problem of a vertex on another page, with where that page starts. */
export interface ProblemElsewhere {
  readonly problem: RescaleProblem;
  readonly vertexName: string;
  readonly offset: number;
}

/** The problems the server listed for vertices this page does not describe (their errors:
 * what makes the job not restore), each with the page of its vertex. */
export function problemsElsewhere(simulation: RescaleSimulation): ProblemElsewhere[] {
  const shown = new Set(simulation.vertices.map((vertex) => vertex.id));
  const index = new Map(simulation.choices.map((choice, at) => [choice.id, at]));
  const found: ProblemElsewhere[] = [];
  for (const problem of simulation.problems) {
    if (problem.vertex === null || shown.has(problem.vertex)) {
      continue;
    }
    const at = index.get(problem.vertex);
    found.push({
      problem,
      vertexName: at === undefined ? problem.vertex : (simulation.choices[at]?.name ?? ""),
      offset: pageStart(at ?? 0, simulation.page.limit),
    });
  }
  return found;
}

/** How many problems the server counted but did not list ("and 12 more warnings"), or
 * null when it listed them all. */
export function unlistedProblemsText(simulation: RescaleSimulation): string | null {
  const parts: string[] = [];
  for (const severity of ["error", "warning", "info"] as const) {
    const listed = simulation.problems.filter((p) => p.severity === severity).length;
    const more = simulation.problemCounts[severity] - listed;
    if (more > 0) {
      const noun = severity === "info" ? "note" : severity;
      parts.push(`${more} ${noun}${more === 1 ? "" : "s"}`);
    }
  }
  if (parts.length === 0) {
    return null;
  }
  const more = simulation.page.total > simulation.vertices.length;
  return `Also ${parts.join(", ")} not listed here${more ? ": see the other pages" : ""}.`;
}

/** The simulation's verdict in one sentence. */
export function verdictText(simulation: RescaleSimulation): string {
  if (!simulation.ok) {
    return "At this parallelism the job does not compile, so Flink would not start it.";
  }
  if (simulation.restores) {
    return "Restores from a savepoint of this version: every vertex keeps its state.";
  }
  return "Does not restore from a savepoint of this version: see the problems below.";
}
