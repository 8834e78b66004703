/**
 * What every part of the run page shares: the watched run's store, the plan's
 * facts, and the page's own view state (which vertex is selected, which tab
 * is open) in a small store of its own so choosing a vertex never touches the
 * run's data.
 */

import { createContext, useContext, useEffect, useState } from "react";
import { useStore } from "zustand";
import { createStore, type StoreApi } from "zustand/vanilla";

import { isActive } from "../api/runs";
import type { StreamGraphDocument } from "../graph/streamgraph";
import type { RunStore, RunWatchState } from "../store/run";
import type { VertexFacts } from "./planFacts";

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

export interface RunPageContextValue {
  readonly run: RunStore;
  readonly view: StoreApi<RunViewState>;
  readonly pipelineId: number;
  /** Editors may cancel and start runs. */
  readonly canEdit: boolean;
  /** The version's document; null if it could not be read. */
  readonly document: StreamGraphDocument | null;
  /** By JobVertexID, from the version's plan. */
  readonly facts: ReadonlyMap<string, VertexFacts>;
  readonly nodeNames: ReadonlyMap<number, string>;
}

export const RunPageContext = createContext<RunPageContextValue | null>(null);

export function useRunPage(): RunPageContextValue {
  const value = useContext(RunPageContext);
  if (value === null) {
    throw new Error("useRunPage is used outside the run page");
  }
  return value;
}

export function useRun<T>(selector: (state: RunWatchState) => T): T {
  return useStore(useRunPage().run, selector);
}

export function useRunView<T>(selector: (state: RunViewState) => T): T {
  return useStore(useRunPage().view, selector);
}

/** True while the watched run may still change. */
export function useRunActive(): boolean {
  return useRun((state) => state.info !== null && isActive(state.info.status));
}

/** The time now (ms), renewed every `intervalMs` while `ticking`. */
export function useNow(ticking: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (!ticking) {
      return;
    }
    const timer = window.setInterval(() => {
      setNow(Date.now());
    }, intervalMs);
    return () => {
      window.clearInterval(timer);
    };
  }, [ticking, intervalMs]);
  return now;
}
