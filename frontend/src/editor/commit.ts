/** Committing a properties field: a value that does not parse, or an edit refused, is a notice. */

import type { Edit } from "../graph/edits";
import type { JsonValue } from "../graph/json";
import { useEditor } from "./context";
import type { Notify } from "./notices";
import type { Parsed } from "./values";

/**
 * Applies a parallelism change. Edges that chose no partitioner follow it as Flink's
 * default does (FORWARD between equal parallelism, REBALANCE otherwise); a chosen
 * FORWARD across the change stays as chosen and the plan reports it, as Flink does.
 */
export function useParallelismCommit(onNotice: Notify) {
  const { session } = useEditor();
  return (parsed: Parsed, edit: (value: JsonValue) => Edit): void => {
    if (!parsed.ok) {
      onNotice(parsed.message);
      return;
    }
    const result = session.document.getState().applyEdits([edit(parsed.value)]);
    if (!result.ok) {
      onNotice(result.error.message);
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
