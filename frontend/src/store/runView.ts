/**
 * The run page's own view state: which vertex is selected, which tab of the
 * side panel is open. A small store apart from the run's data, so choosing a
 * vertex never touches the run's store.
 */

import { createStore, type StoreApi } from "zustand/vanilla";

export type SideTab = "subtasks" | "output" | "exceptions";

export interface RunViewState {
  /** The JobVertexID shown in the side panel; null: the page picks one. */
  readonly vertex: string | null;
  readonly tab: SideTab;
  /** Bumped to bring a vertex into view on the canvas. */
  readonly focusSerial: number;
  readonly selectVertex: (vertex: string, options?: { readonly focus?: boolean }) => void;
  readonly setTab: (tab: SideTab) => void;
}

export function createRunViewStore(): StoreApi<RunViewState> {
  return createStore<RunViewState>()((set, get) => ({
    vertex: null,
    tab: "subtasks",
    focusSerial: 0,
    selectVertex: (vertex, options = {}) => {
      set({
        vertex,
        tab: "subtasks",
        focusSerial: get().focusSerial + (options.focus === true ? 1 : 0),
      });
    },
    setTab: (tab) => {
      set({ tab });
    },
  }));
}
