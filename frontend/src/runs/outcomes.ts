/**
 * What a run produced and where it went wrong: how it ended, sink outputs by sink
 * node, and every failed attempt of every subtask, newest first, as the exceptions
 * list shows them. A canceled run did not go wrong: it ends neutral, saying who
 * canceled it, with no run error.
 */

import type { RunInfo, RunVertex, SinkOutput, Subtask } from "../api/runs";

/** How a run ended (or is ending), for the banner above it; null while it goes on. */
export interface RunEnding {
  readonly tone: "failed" | "neutral";
  /** "The run failed", "The run was canceled", ... */
  readonly title: string;
  /** The error, or who canceled it; null when there is nothing to add. */
  readonly detail: string | null;
}

type EndingFacts = Pick<RunInfo, "status" | "error" | "canceledBy">;

export function runEnding(run: EndingFacts): RunEnding | null {
  const by = run.canceledBy === null ? null : `by ${run.canceledBy.username}`;
  switch (run.status) {
    case "FAILED":
      return { tone: "failed", title: "The run failed", detail: run.error };
    case "CANCELING":
      return { tone: "neutral", title: "The run is being canceled", detail: by };
    case "CANCELED":
      return { tone: "neutral", title: "The run was canceled", detail: by };
    default:
      return null;
  }
}

/**
 * The run's own error, for the exceptions list: only a failed run has one (a canceled
 * run's text, from servers that stored one, is not an exception).
 */
export function runError(run: Pick<RunInfo, "status" | "error">): string | null {
  return run.status === "FAILED" ? run.error : null;
}

/** The banner's one line: "The run failed: <error>", "The run was canceled by eddie". */
export function endingLine(ending: RunEnding): string {
  if (ending.detail === null) {
    return ending.title;
  }
  return ending.tone === "failed"
    ? `${ending.title}: ${ending.detail}`
    : `${ending.title} ${ending.detail}`;
}

/** The exceptions tab's label and whether it asks for attention. */
export interface ExceptionsTab {
  readonly label: string;
  readonly alert: boolean;
}

/**
 * "Exceptions (3)" with that many failed attempts, "Exceptions (!)" for a run error
 * alone (from `runError`: a canceled run has none), plain "Exceptions" otherwise.
 */
export function exceptionsTab(failures: number, error: string | null): ExceptionsTab {
  if (failures > 0) {
    return { label: `Exceptions (${failures})`, alert: true };
  }
  if (error !== null) {
    return { label: "Exceptions (!)", alert: true };
  }
  return { label: "Exceptions", alert: false };
}

/** A run's sink outputs grouped by sink node (in order of first appearance), subtasks in order. */
export function sinksByNode(sinks: readonly SinkOutput[]): Map<number, SinkOutput[]> {
  const grouped = new Map<number, SinkOutput[]>();
  for (const sink of sinks) {
    grouped.set(sink.node, [...(grouped.get(sink.node) ?? []), sink]);
  }
  for (const list of grouped.values()) {
    list.sort((a, b) => a.subtask - b.subtask);
  }
  return grouped;
}

export interface FailedAttempt {
  readonly vertex: string;
  readonly vertexName: string;
  readonly subtask: number;
  readonly attempt: number;
  /** When it failed (seconds since the epoch), if known. */
  readonly time: number | null;
  readonly error: string;
  /** The operator the error is about, if it names one. */
  readonly node: number | null;
  /** A later attempt of the same subtask followed. */
  readonly retried: boolean;
}

/** Every failed attempt, newest first (unknown times last), ties in plan order. */
export function failedAttempts(
  vertices: readonly RunVertex[],
  subtasks: ReadonlyMap<string, readonly Subtask[]>,
): FailedAttempt[] {
  const failed: FailedAttempt[] = [];
  for (const vertex of vertices) {
    for (const subtask of subtasks.get(vertex.id) ?? []) {
      for (const attempt of subtask.attempts) {
        if (attempt.state === "FAILED") {
          failed.push({
            vertex: vertex.id,
            vertexName: vertex.name,
            subtask: subtask.subtask,
            attempt: attempt.attempt,
            time: attempt.endTime,
            error: attempt.error ?? "(no error text)",
            node: attempt.failedNode,
            retried: attempt.attempt < subtask.attempt,
          });
        }
      }
    }
  }
  // A stable sort keeps plan order among equal times.
  return failed.sort((a, b) => {
    if (a.time === b.time) {
      return 0;
    }
    if (a.time === null || b.time === null) {
      return a.time === null ? 1 : -1;
    }
    return b.time - a.time;
  });
}
