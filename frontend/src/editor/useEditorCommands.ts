import { useReactFlow } from "@xyflow/react";
import { useRef, useState } from "react";

import { FIT_VIEW } from "../canvas/flowSettings";
import type { StoreApi } from "../store/hooks";
import type { SelectionStore } from "../store/selection";
import { allEdgeIds, copySelection, deleteEdits, pasteEdits, type Clipboard } from "./commands";
import { layoutMoves } from "./layout";
import type { Notify } from "./notices";
import type { EditorSession } from "./session";
import type { ShortcutHandlers } from "./useShortcuts";

/** "Fit view" and a finished layout fit the pipeline as it opens, smoothly. */
const FIT = { ...FIT_VIEW, duration: 300 };

/** A paste lands this far from what was copied, so copies do not hide each other. */
const PASTE_OFFSET = 40;

function addedNodes(applied: readonly { kind: string; node?: { id: number } }[]): number[] {
  return applied.flatMap((edit) =>
    edit.kind === "add_node" && edit.node !== undefined ? [edit.node.id] : [],
  );
}

/** The editor's commands, for the toolbar and the keyboard alike. */
export function useEditorCommands(options: {
  readonly session: EditorSession;
  readonly selection: StoreApi<SelectionStore>;
  readonly canEdit: boolean;
  readonly notify: Notify;
  readonly toggleHelp: () => void;
  readonly closeHelp: () => void;
  readonly openFind: () => void;
}): { handlers: ShortcutHandlers; layingOut: boolean } {
  const { session, selection, canEdit, notify } = options;
  const [layingOut, setLayingOut] = useState(false);
  const clipboard = useRef<Clipboard | null>(null);
  const flow = useReactFlow();
  const store = session.document;

  const autoLayout = async (): Promise<void> => {
    const current = store.getState().document;
    if (current === null || !canEdit || layingOut) {
      return;
    }
    setLayingOut(true);
    try {
      store.getState().moveOperators(await layoutMoves(current));
      window.requestAnimationFrame(() => {
        void flow.fitView(FIT);
      });
    } catch (caught) {
      notify(`Auto-layout failed: ${String(caught)}`);
    } finally {
      setLayingOut(false);
    }
  };

  const handlers: ShortcutHandlers = {
    undo: () => {
      if (canEdit) {
        store.getState().undo();
      }
    },
    redo: () => {
      if (canEdit) {
        store.getState().redo();
      }
    },
    deleteSelection: () => {
      const current = store.getState().document;
      const { nodes, edges } = selection.getState();
      if (current === null || !canEdit || nodes.size + edges.size === 0) {
        return;
      }
      const result = store.getState().applyEdits(deleteEdits(current, nodes, edges));
      if (!result.ok) {
        notify(result.error.message);
      }
      selection.getState().clear();
    },
    copy: () => {
      const current = store.getState().document;
      const { nodes } = selection.getState();
      if (current !== null && nodes.size > 0) {
        clipboard.current = copySelection(current, nodes);
        notify(`Copied ${nodes.size} operators.`, "info");
      }
    },
    paste: () => {
      const current = store.getState().document;
      const copied = clipboard.current;
      if (current === null || copied === null || !canEdit) {
        return;
      }
      const { edits, nodeIds } = pasteEdits(current, copied);
      const result = store.getState().applyEdits(edits);
      if (!result.ok) {
        notify(result.error.message);
        return;
      }
      const added = addedNodes(result.applied);
      selection.getState().select(added.length > 0 ? added : nodeIds);
      // A second paste lands further along.
      clipboard.current = {
        nodes: copied.nodes.map((node) => ({
          ...node,
          ui: {
            ...(node.ui ?? {}),
            x: (typeof node.ui?.x === "number" ? node.ui.x : 0) + PASTE_OFFSET,
            y: (typeof node.ui?.y === "number" ? node.ui.y : 0) + PASTE_OFFSET,
          },
        })),
        edges: copied.edges,
      };
    },
    duplicate: () => {
      const current = store.getState().document;
      const { nodes } = selection.getState();
      if (current === null || nodes.size === 0 || !canEdit) {
        return;
      }
      const { edits } = pasteEdits(current, copySelection(current, nodes));
      const result = store.getState().applyEdits(edits);
      if (result.ok) {
        selection.getState().select(addedNodes(result.applied));
      }
    },
    selectAll: () => {
      const current = store.getState().document;
      if (current !== null) {
        selection.getState().select(
          current.nodes.map((n) => n.id),
          allEdgeIds(current),
        );
      }
    },
    clearSelection: () => {
      selection.getState().clear();
      options.closeHelp();
    },
    fitView: () => {
      void flow.fitView(FIT);
    },
    autoLayout: () => {
      void autoLayout();
    },
    find: options.openFind,
    toggleHelp: options.toggleHelp,
  };
  return { handlers, layingOut };
}
