/**
 * What the user has selected on the canvas, and requests to bring an element
 * into view (a click in the problems list, the JobGraph view, a diff).
 * One small store per open pipeline, apart from the document: selecting is
 * not an edit and never goes through the server (only presence does).
 */

import { createStore, type StoreApi } from "zustand/vanilla";

export interface SelectionState {
  /** Selected node ids. */
  readonly nodes: ReadonlySet<number>;
  /** Selected edges by canvas edge id (`source-target-typeNumber-k`). */
  readonly edges: ReadonlySet<string>;
  /** The last focus request; the canvas centres on it once per `serial`. */
  readonly focus: {
    readonly nodes: readonly number[];
    readonly edge: string | null;
    readonly serial: number;
  } | null;
}

export interface SelectionActions {
  select(nodes: Iterable<number>, edges?: Iterable<string>): void;
  clear(): void;
  /**
   * Select these elements and bring them into view: one edge, or several (a cycle's
   * edges, from a problem), the first of which is the one focused.
   */
  reveal(nodes: readonly number[], edges?: string | readonly string[] | null): void;
}

export type SelectionStore = SelectionState & SelectionActions;

function sameSet<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  if (a.size !== b.size) {
    return false;
  }
  for (const item of a) {
    if (!b.has(item)) {
      return false;
    }
  }
  return true;
}

export function createSelectionStore(): StoreApi<SelectionStore> {
  return createStore<SelectionStore>()((set, get) => ({
    nodes: new Set(),
    edges: new Set(),
    focus: null,
    select: (nodes, edges = []) => {
      const next = { nodes: new Set(nodes), edges: new Set(edges) };
      const current = get();
      if (!sameSet(current.nodes, next.nodes) || !sameSet(current.edges, next.edges)) {
        set(next);
      }
    },
    clear: () => {
      if (get().nodes.size > 0 || get().edges.size > 0) {
        set({ nodes: new Set(), edges: new Set() });
      }
    },
    reveal: (nodes, edges = null) => {
      const list: readonly string[] =
        edges === null ? [] : typeof edges === "string" ? [edges] : edges;
      set({
        nodes: new Set(nodes),
        edges: new Set(list),
        focus: { nodes, edge: list[0] ?? null, serial: (get().focus?.serial ?? 0) + 1 },
      });
    },
  }));
}
