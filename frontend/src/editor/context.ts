import { createContext, useContext } from "react";

import type { Catalog } from "../api/resources";
import type { DocumentStore } from "../store/document";
import { useStore, type StoreApi } from "../store/hooks";
import type { SelectionStore } from "../store/selection";
import type { SessionState } from "../store/session";
import type { EditorSession } from "./session";

/** What every part of the open editor shares. */
export interface EditorContextValue {
  readonly session: EditorSession;
  readonly selection: StoreApi<SelectionStore>;
  readonly catalog: Catalog;
  /** False for viewers and while the connection is down. */
  readonly canEdit: boolean;
}

export const EditorContext = createContext<EditorContextValue | null>(null);

export function useEditor(): EditorContextValue {
  const value = useContext(EditorContext);
  if (value === null) {
    throw new Error("useEditor is used outside the editor");
  }
  return value;
}

export function useDocumentStore<T>(selector: (state: DocumentStore) => T): T {
  return useStore(useEditor().session.document, selector);
}

export function useSessionState<T>(selector: (state: SessionState) => T): T {
  return useStore(useEditor().session.state, selector);
}

export function useSelection<T>(selector: (state: SelectionStore) => T): T {
  return useStore(useEditor().selection, selector);
}
