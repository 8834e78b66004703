/** Committing a properties field: a value that does not parse, or an edit refused, is a notice. */

import type { Edit } from "../graph/edits";
import type { JsonValue } from "../graph/json";
import { withForwardFixes } from "./commands";
import { useEditor } from "./context";
import type { Notify } from "./notices";
import type { Parsed } from "./values";

/** Applies a parallelism change, switching FORWARD edges it would break (one undo step). */
export function useParallelismCommit(onNotice: Notify) {
  const { session } = useEditor();
  return (parsed: Parsed, edit: (value: JsonValue) => Edit): void => {
    const store = session.document.getState();
    if (!parsed.ok) {
      onNotice(parsed.message);
      return;
    }
    if (store.document === null) {
      return;
    }
    const { edits, switched } = withForwardFixes(store.document, [edit(parsed.value)]);
    const result = store.applyEdits(edits);
    if (!result.ok) {
      onNotice(result.error.message);
    } else if (switched.length > 0) {
      const names = new Map(store.document.nodes.map((node) => [node.id, node.name]));
      const list = switched
        .map(
          ([source, target]) => `${names.get(source) ?? source} → ${names.get(target) ?? target}`,
        )
        .join(", ");
      onNotice(
        `FORWARD cannot cross a parallelism change, so ${list} now use${switched.length === 1 ? "s" : ""} REBALANCE (Undo reverts both).`,
        "info",
      );
    }
  };
}

/** Reports a refused edit or a value that does not parse. */
export function useCommit(onNotice: (message: string) => void) {
  return (parsed: Parsed, apply: (value: JsonValue) => { ok: boolean; error?: Error }): void => {
    if (!parsed.ok) {
      onNotice(parsed.message);
      return;
    }
    const result = apply(parsed.value);
    if (!result.ok && result.error !== undefined) {
      onNotice(result.error.message);
    }
  };
}
