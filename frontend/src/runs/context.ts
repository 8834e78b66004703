/**
 * What every part of the run page shares: the watched run's store, the plan's
 * facts, and the page's own view state (which vertex is selected, which tab
 * is open; `store/runView.ts`).
 */

import { createContext, useContext, useEffect, useState } from "react";

import { isActive } from "../api/runs";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { useStore, type StoreApi } from "../store/hooks";
import type { RunStore, RunWatchState } from "../store/run";
import type { RunViewState } from "../store/runView";
import type { VertexFacts } from "./planFacts";

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
