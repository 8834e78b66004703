import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useState,
  useSyncExternalStore,
} from "react";

import type { OperatorSpec } from "../api/resources";
import type { StoreApi } from "../store/hooks";
import type { SelectionStore } from "../store/selection";
import type { ChainView, EdgeView, OperatorView } from "./canvasModel";
import { CanvasStore, type CanvasSources } from "./canvasStore";
import type { EditorSession } from "./session";

export const CanvasContext = createContext<CanvasStore | null>(null);

function useCanvasStore(): CanvasStore {
  const store = useContext(CanvasContext);
  if (store === null) {
    throw new Error("a canvas element is drawn outside the canvas");
  }
  return store;
}

function useElement<T>(id: string, read: (store: CanvasStore) => T): T {
  const store = useCanvasStore();
  const subscribe = useCallback(
    (listener: () => void) => store.subscribeElement(id, listener),
    [store, id],
  );
  return useSyncExternalStore(subscribe, () => read(store));
}

/** What the operator with this canvas id shows; undefined once it is gone. */
export function useOperatorView(id: string): OperatorView | undefined {
  return useElement(id, (store) => store.operator(id));
}

export function useChainView(id: string): ChainView | undefined {
  return useElement(id, (store) => store.chain(id));
}

export function useEdgeView(id: string): EdgeView | undefined {
  return useElement(id, (store) => store.edge(id));
}

/**
 * The canvas store of the open pipeline, fed from the document, the selection
 * and the others' presence: it rebuilds in the same store update that changed
 * any of them.
 */
export function useCanvasSources(
  session: EditorSession,
  selection: StoreApi<SelectionStore>,
  specs: ReadonlyMap<string, OperatorSpec>,
): CanvasStore {
  const [read] = useState(() => (): CanvasSources | null => {
    const { document, plan } = session.document.getState();
    if (document === null) {
      return null;
    }
    const { nodes, edges } = selection.getState();
    return {
      document,
      plan,
      specs,
      selectedNodes: nodes,
      selectedEdges: edges,
      others: session.state.getState().others,
    };
  });
  const [store] = useState(() => new CanvasStore(read));

  useEffect(() => {
    const refresh = (): void => {
      store.refresh();
    };
    const unsubscribe = [
      session.document.subscribe((state, previous) => {
        if (state.document !== previous.document || state.plan !== previous.plan) {
          refresh();
        }
      }),
      selection.subscribe((state, previous) => {
        if (state.nodes !== previous.nodes || state.edges !== previous.edges) {
          refresh();
        }
      }),
      session.state.subscribe((state, previous) => {
        if (state.others !== previous.others) {
          refresh();
        }
      }),
    ];
    // Whatever changed between the first render and these subscriptions.
    refresh();
    return () => {
      for (const stop of unsubscribe) {
        stop();
      }
    };
  }, [store, session, selection]);

  return store;
}
