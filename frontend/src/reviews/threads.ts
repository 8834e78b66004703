/**
 * Threads as the comments panel lists them, and counts as the canvas badges show them:
 * the three filters (open and current, outdated, resolved, as the server's counts split
 * them), who may do what to a thread or comment, and the counts per canvas element.
 */

import type {
  CommentEntry,
  CommentSummary,
  CommentThread,
  TargetCounts,
  UserRef,
} from "../api/reviews";
import type { Role } from "../api/resources";
import type { CanvasElement } from "../canvas/badges";

export type ThreadFilter = "open" | "outdated" | "resolved";

export const THREAD_FILTERS: readonly (readonly [ThreadFilter, string])[] = [
  ["open", "Open"],
  ["outdated", "Outdated"],
  ["resolved", "Resolved"],
];

/** Which filter a thread falls under: resolved ones are resolved, outdated or not. */
export function filterOf(thread: CommentThread): ThreadFilter {
  if (thread.status === "resolved") {
    return "resolved";
  }
  return thread.outdated ? "outdated" : "open";
}

export function countByFilter(
  threads: readonly CommentThread[],
): Readonly<Record<ThreadFilter, number>> {
  const counts: Record<ThreadFilter, number> = { open: 0, outdated: 0, resolved: 0 };
  for (const thread of threads) {
    counts[filterOf(thread)] += 1;
  }
  return counts;
}

/** Who looks at the threads: their account and role in the workspace. */
export interface Viewer {
  readonly user: UserRef;
  readonly role: Role;
}

/** Editors, owners and the thread's author resolve and reopen it. */
export function mayResolve(thread: CommentThread, viewer: Viewer | null): boolean {
  if (viewer === null) {
    return false;
  }
  return viewer.role !== "viewer" || thread.createdBy?.id === viewer.user.id;
}

/** Only its author edits or deletes a comment, and not once it is deleted. */
export function mayChange(comment: CommentEntry, viewer: Viewer | null): boolean {
  return viewer !== null && !comment.deleted && comment.author?.id === viewer.user.id;
}

/** Open threads on an element: current and outdated. */
export interface OpenCounts {
  readonly open: number;
  readonly outdated: number;
}

function openOf(counts: TargetCounts): OpenCounts | null {
  return counts.open + counts.outdated === 0
    ? null
    : { open: counts.open, outdated: counts.outdated };
}

/** The open threads of each element of a canvas. */
export interface CountsOf {
  /** The element's open threads; null for none. */
  of(element: CanvasElement): OpenCounts | null;
}

/** The open threads of each canvas element, from the counts read where the canvas is. */
export class ElementCounts implements CountsOf {
  private readonly nodes: ReadonlyMap<number, OpenCounts>;
  private readonly edges: ReadonlyMap<string, OpenCounts>;
  private readonly vertices: ReadonlyMap<string, OpenCounts>;

  constructor(summary: CommentSummary | null) {
    const nodes = new Map<number, OpenCounts>();
    const edges = new Map<string, OpenCounts>();
    const vertices = new Map<string, OpenCounts>();
    for (const entry of summary?.nodes ?? []) {
      const counts = openOf(entry);
      if (counts !== null) {
        nodes.set(entry.node, counts);
      }
    }
    for (const entry of summary?.edges ?? []) {
      const counts = openOf(entry);
      if (counts !== null) {
        edges.set(entry.edge.join("-"), counts);
      }
    }
    for (const entry of summary?.vertices ?? []) {
      const counts = openOf(entry);
      // A chain whose head is gone or chained into another has no box to carry it.
      if (counts !== null && entry.vertex !== null) {
        vertices.set(entry.vertex, counts);
      }
    }
    this.nodes = nodes;
    this.edges = edges;
    this.vertices = vertices;
  }

  /** The element's open threads; null for none. */
  of(element: CanvasElement): OpenCounts | null {
    switch (element.kind) {
      case "node":
        return this.nodes.get(element.node) ?? null;
      case "edge":
        return this.edges.get(element.edge) ?? null;
      case "chain":
        return this.vertices.get(element.vertex) ?? null;
    }
  }
}

/**
 * The counts of a canvas that draws two versions (the diff): the newer version's for its
 * own elements, the older one's for the elements it removed (drawn ghosted).
 */
export class SidedCounts implements CountsOf {
  constructor(
    private readonly newer: CountsOf,
    private readonly older: CountsOf,
    private readonly removed: {
      readonly nodes: ReadonlySet<number>;
      readonly edges: ReadonlySet<string>;
    },
  ) {}

  of(element: CanvasElement): OpenCounts | null {
    const old =
      (element.kind === "node" && this.removed.nodes.has(element.node)) ||
      (element.kind === "edge" && this.removed.edges.has(element.edge));
    return (old ? this.older : this.newer).of(element);
  }
}

/** "2 open threads (1 outdated)". */
export function countText(counts: OpenCounts): string {
  const total = counts.open + counts.outdated;
  const threads = `${total} open thread${total === 1 ? "" : "s"}`;
  return counts.outdated === 0 ? threads : `${threads} (${counts.outdated} outdated)`;
}
