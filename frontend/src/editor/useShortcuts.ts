import { useEffect } from "react";

export interface ShortcutHandlers {
  readonly undo: () => void;
  readonly redo: () => void;
  readonly deleteSelection: () => void;
  readonly copy: () => void;
  readonly paste: () => void;
  readonly duplicate: () => void;
  readonly selectAll: () => void;
  readonly clearSelection: () => void;
  readonly fitView: () => void;
  readonly autoLayout: () => void;
  readonly find: () => void;
  readonly toggleHelp: () => void;
}

/** The shortcuts, as the help overlay lists them. */
export const SHORTCUTS: readonly (readonly [keys: string, what: string])[] = [
  ["Ctrl+Z", "Undo"],
  ["Ctrl+Shift+Z or Ctrl+Y", "Redo"],
  ["Delete or Backspace", "Delete the selection"],
  ["Ctrl+C / Ctrl+V", "Copy / paste operators and the edges between them"],
  ["Ctrl+D", "Duplicate the selection"],
  ["Ctrl+A", "Select everything"],
  ["Escape", "Clear the selection"],
  ["Shift+drag", "Select with a box"],
  ["Ctrl+click", "Add to the selection"],
  ["F", "Zoom to fit"],
  ["L", "Auto-layout"],
  ["Ctrl+F or /", "Find a node by name, kind, id, uid or hash"],
  ["?", "Show or hide this list"],
];

function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) {
    return false;
  }
  return (
    target.isContentEditable ||
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement
  );
}

/** Keyboard shortcuts of the editor, off while the user types into a field. */
export function useShortcuts(handlers: ShortcutHandlers): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (typingIn(event.target)) {
        return;
      }
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      let handler: (() => void) | null = null;
      if (mod && key === "z") {
        handler = event.shiftKey ? handlers.redo : handlers.undo;
      } else if (mod && key === "y") {
        handler = handlers.redo;
      } else if (mod && key === "c") {
        handler = handlers.copy;
      } else if (mod && key === "v") {
        handler = handlers.paste;
      } else if (mod && key === "d") {
        handler = handlers.duplicate;
      } else if (mod && key === "a") {
        handler = handlers.selectAll;
      } else if ((mod && key === "f") || (!mod && event.key === "/")) {
        handler = handlers.find;
      } else if (!mod && (key === "delete" || key === "backspace")) {
        handler = handlers.deleteSelection;
      } else if (!mod && key === "escape") {
        handler = handlers.clearSelection;
      } else if (!mod && !event.altKey && key === "f") {
        handler = handlers.fitView;
      } else if (!mod && !event.altKey && key === "l") {
        handler = handlers.autoLayout;
      } else if (event.key === "?") {
        handler = handlers.toggleHelp;
      }
      if (handler !== null) {
        event.preventDefault();
        handler();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
    };
  }, [handlers]);
}
