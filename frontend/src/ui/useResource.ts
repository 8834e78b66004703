import { useEffect, useEffectEvent, useState } from "react";

import { ApiError } from "../api/http";

export interface Resource<T> {
  /** The last answer; kept while a newer one is being fetched. */
  readonly data: T | null;
  readonly error: string | null;
  readonly loading: boolean;
}

/** An error as a page shows it. */
export function errorText(error: unknown): string {
  return error instanceof ApiError ? error.detail : String(error);
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

/**
 * Fetches with `load` whenever `key` changes. The first fetch starts at once;
 * later ones wait `delayMs` (a burst of changes costs one request), and a
 * fetch that a newer one overtakes is aborted.
 */
export function useResource<T>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
  delayMs = 0,
): Resource<T> {
  const [state, setState] = useState<Resource<T>>({ data: null, error: null, loading: true });
  const [loaded, setLoaded] = useState(false);
  const fetchNow = useEffectEvent((signal: AbortSignal) => {
    setState((current) => ({ ...current, loading: true }));
    load(signal).then(
      (data) => {
        if (!signal.aborted) {
          setState({ data, error: null, loading: false });
          setLoaded(true);
        }
      },
      (error: unknown) => {
        if (!signal.aborted && !isAbort(error)) {
          setState((current) => ({ ...current, error: errorText(error), loading: false }));
        }
      },
    );
  });
  const wait = useEffectEvent(() => (loaded ? delayMs : 0));

  useEffect(() => {
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      fetchNow(controller.signal);
    }, wait());
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [key]);

  return state;
}
