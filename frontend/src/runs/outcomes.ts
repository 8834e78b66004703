/**
 * What a run produced and where it went wrong: sink outputs by sink node, and
 * every failed attempt of every subtask, newest first, as the exceptions list
 * shows them.
 */

import type { RunVertex, SinkOutput, Subtask } from "../api/runs";

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
