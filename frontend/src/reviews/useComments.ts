import { useCallback, useState } from "react";

import { commentSummary, listThreads, type VersionAt } from "../api/reviews";
import { useStore, type StoreApi } from "../store/hooks";
import type { ReviewStore } from "../store/reviews";
import { errorText, useResource } from "../ui/useResource";

/** A burst of edits or messages costs one read. */
const SETTLE_MS = 400;

/**
 * Keeps the store's counts per element (the badges) read at `at`: again whenever `key`
 * changes (the document's revision) or the store says they may have changed.
 */
export function useCommentSummary(
  pipelineId: number,
  at: VersionAt,
  store: StoreApi<ReviewStore>,
  key = "",
): string | null {
  const changes = useStore(store, (state) => state.changes);
  const load = useCallback(
    async (signal: AbortSignal): Promise<true> => {
      const summary = await commentSummary(pipelineId, at, signal);
      if (!signal.aborted) {
        store.getState().counted(summary);
      }
      return true;
    },
    [pipelineId, at, store],
  );
  return useResource(load, `${pipelineId}:${at}:${changes}:${key}`, SETTLE_MS).error;
}

/** Keeps the store's threads read at `at`, as `useCommentSummary` keeps the counts. */
export function useThreadList(
  pipelineId: number,
  at: VersionAt,
  store: StoreApi<ReviewStore>,
  key = "",
): { readonly error: string | null; readonly loadMore: () => Promise<void> } {
  const changes = useStore(store, (state) => state.changes);
  const [moreError, setMoreError] = useState<string | null>(null);
  const load = useCallback(
    async (signal: AbortSignal): Promise<true> => {
      const page = await listThreads(pipelineId, { at }, signal);
      if (!signal.aborted) {
        store.getState().loaded(at, page);
      }
      return true;
    },
    [pipelineId, at, store],
  );
  const { error } = useResource(load, `${pipelineId}:${at}:${changes}:${key}`, SETTLE_MS);
  const loadMore = useCallback(async () => {
    const cursor = store.getState().next;
    if (cursor === null) {
      return;
    }
    try {
      store.getState().loaded(at, await listThreads(pipelineId, { at, cursor }), true);
      setMoreError(null);
    } catch (caught) {
      setMoreError(errorText(caught));
    }
  }, [pipelineId, at, store]);
  return { error: error ?? moreError, loadMore };
}
