/**
 * Durations, counts and times as the run monitor writes them: short, and the
 * same width for the same magnitude, so columns of them read at a glance.
 */

import { DEFAULT_CLUSTER, type Attempt, type RunInfo, type SparkApplication } from "../api/runs";

/** "850 ms", "4.2 s", "42 s", "3m 05s", "2h 03m"; "–" for an unknown duration. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) {
    return "–";
  }
  const s = Math.max(0, seconds);
  if (s < 1) {
    return `${Math.round(s * 1000)} ms`;
  }
  if (s < 10) {
    return `${(Math.floor(s * 10) / 10).toFixed(1)} s`;
  }
  if (s < 60) {
    return `${Math.floor(s)} s`;
  }
  const whole = Math.floor(s);
  if (whole < 3600) {
    return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, "0")}s`;
  }
  const minutes = Math.floor(whole / 60);
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

const GROUPED = new Intl.NumberFormat("en-US");

/** "1,234,567": exact, for tables. */
export function formatCount(n: number): string {
  return GROUPED.format(n);
}

/** "999", "12.3k", "4.5M", "1.2G": for tight places (canvas boxes, chart axes). */
export function formatCompact(n: number): string {
  const units: readonly [number, string][] = [
    [1e9, "G"],
    [1e6, "M"],
    [1e3, "k"],
  ];
  for (const [size, unit] of units) {
    if (Math.abs(n) >= size) {
      const value = n / size;
      const text = Math.abs(value) < 100 ? value.toFixed(1).replace(/\.0$/, "") : value.toFixed(0);
      return `${text}${unit}`;
    }
  }
  return String(Math.round(n));
}

/** A share as "12.5%" ("<0.1%" for a sliver, "0%" for none). */
export function formatShare(share: number): string {
  if (share === 0) {
    return "0%";
  }
  if (share < 0.001) {
    return "<0.1%";
  }
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}

function epoch(iso: string | null): number | null {
  if (iso === null) {
    return null;
  }
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms / 1000;
}

/**
 * How long the run has been going (or went), in seconds: from its start to its
 * end, or to `now` (ms since the epoch) while it runs. Null before it started.
 */
export function runDuration(
  run: Pick<RunInfo, "startedAt" | "finishedAt">,
  now: number,
): number | null {
  const start = epoch(run.startedAt);
  if (start === null) {
    return null;
  }
  const end = epoch(run.finishedAt) ?? now / 1000;
  return Math.max(0, end - start);
}

/** How long the run waited for a worker, in seconds (null if it never started). */
export function queueTime(run: Pick<RunInfo, "createdAt" | "startedAt">): number | null {
  const created = epoch(run.createdAt);
  const started = epoch(run.startedAt);
  return created === null || started === null ? null : Math.max(0, started - created);
}

/**
 * An attempt's (or vertex's) duration in seconds: start to end, or to `now`
 * (ms since the epoch) while it has not ended. Null before it started.
 */
export function spanDuration(
  span: Pick<Attempt, "startTime" | "endTime">,
  now: number,
): number | null {
  if (span.startTime === null) {
    return null;
  }
  return Math.max(0, (span.endTime ?? now / 1000) - span.startTime);
}

/** "18:13:28.253" in local time, for subtask times (seconds since the epoch). */
export function formatClock(seconds: number | null): string {
  if (seconds === null) {
    return "–";
  }
  const date = new Date(seconds * 1000);
  const pad = (n: number, width = 2): string => String(n).padStart(width, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(
    date.getMilliseconds(),
    3,
  )}`;
}

/** "2026-11-23 18:13" in local time, for a run's start (an ISO string). */
export function formatDateTime(iso: string | null): string {
  if (iso === null) {
    return "–";
  }
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) {
    return iso;
  }
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(
    date.getHours(),
  )}:${pad(date.getMinutes())}`;
}

/** "1 subtask", "3 subtasks". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** A run's cluster as the run header and lists name it. */
export function clusterText(cluster: string): string {
  return cluster === DEFAULT_CLUSTER ? "default cluster" : `cluster ${cluster}`;
}

/** A link the run header shows to where Spark shows the run's application. */
export interface SparkLink {
  readonly label: string;
  readonly href: string;
  readonly title: string;
}

/** The links the run's cluster profile gives to its Spark application, in header order:
 * the live Spark UI, then the History Server; none without an application. */
export function sparkLinks(spark: SparkApplication | null): readonly SparkLink[] {
  if (spark === null) {
    return [];
  }
  const links: SparkLink[] = [];
  if (spark.uiUrl !== null) {
    links.push({
      label: "Spark UI",
      href: spark.uiUrl,
      title: `Application ${spark.id} in the Spark UI`,
    });
  }
  if (spark.historyUrl !== null) {
    links.push({
      label: "History",
      href: spark.historyUrl,
      title: `Application ${spark.id} in the Spark History Server`,
    });
  }
  return links;
}
