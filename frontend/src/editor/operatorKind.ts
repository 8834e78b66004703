/**
 * Changing an operator's kind in the inspector, without React: the kinds to
 * choose from, the parameters a new kind starts with (the catalog's defaults),
 * and for an imported node what its import checklist suggests and leaves to do.
 * The change itself is `set_operator`: id, name, uids, parallelism and edges stay.
 */

import type { Catalog, ImportChecklist, OperatorSpec } from "../api/resources";
import type { JsonObject, JsonValue } from "../graph/json";
import { applyingParams } from "./params";

/**
 * The parameters a node of this kind starts with: the catalog's defaults, where it has
 * one and the parameter applies with the others' defaults.
 */
export function defaultParams(spec: OperatorSpec): JsonObject {
  const params: Record<string, JsonValue> = {};
  for (const param of spec.params) {
    if (param.default !== null && param.default !== undefined) {
      params[param.name] = param.default as JsonValue;
    }
  }
  const applying = new Set(applyingParams(spec, params).map((param) => param.name));
  return Object.fromEntries(Object.entries(params).filter(([name]) => applying.has(name)));
}

/** One option of the kind select. */
export interface KindOption {
  readonly kind: string;
  readonly label: string;
}

/** What the kind select shows when the node's kind is none or not in the catalog. */
export function unknownKindLabel(kind: string): string {
  return kind === "" ? "(no kind chosen)" : `${kind} (not in the catalog)`;
}

/**
 * The kinds an operator can be changed to: every catalog kind by label (with its kind
 * where the label hides it), the node's own first when the catalog lacks it.
 */
export function kindOptions(catalog: Catalog, current: string): KindOption[] {
  const options = catalog.operators
    .map((spec) => ({
      kind: spec.kind,
      label: spec.label === spec.kind ? spec.kind : `${spec.label} (${spec.kind})`,
    }))
    .sort((a, b) => a.label.localeCompare(b.label));
  if (!catalog.operators.some((spec) => spec.kind === current)) {
    options.unshift({ kind: current, label: unknownKindLabel(current) });
  }
  return options;
}

/** The `setOperator` arguments that change a node to `kind`; null for a kind not in the catalog. */
export function operatorChange(
  catalog: Catalog,
  kind: string,
): { readonly operator: string; readonly params: JsonObject } | null {
  const spec = catalog.operators.find((s) => s.kind === kind);
  return spec === undefined ? null : { operator: spec.kind, params: defaultParams(spec) };
}

/** What an imported node's checklist says: the kind to apply, and everything left as one list. */
export interface ImportTodo {
  /** The suggested catalog kind, unless the node already is it (or none is suggested). */
  readonly suggested: string | null;
  /** Each thing left, in the checklist's order, a field named where it has one. */
  readonly left: readonly string[];
}

/** The checklist of `node`; null when the pipeline was not imported or the node is done. */
export function importTodo(
  checklist: ImportChecklist | null,
  node: number,
  current: string,
): ImportTodo | null {
  const entry = checklist?.nodes.find((item) => item.node === node);
  if (entry === undefined) {
    return null;
  }
  const suggested =
    entry.suggestedOperator === null || entry.suggestedOperator === current
      ? null
      : entry.suggestedOperator;
  const left = entry.items.map((item) =>
    item.field === null ? item.message : `${item.message} (${item.field})`,
  );
  return suggested === null && left.length === 0 ? null : { suggested, left };
}

/** One line of an imported pipeline's checklist: a thing left on one node (or its input edge). */
export interface ChecklistLine {
  readonly node: number;
  readonly name: string;
  /** The input edge's index when the item is about an edge, else null. */
  readonly edge: number | null;
  readonly text: string;
  readonly field: string | null;
}

/** Everything an imported pipeline has left, node by node in document order, as one list. */
export function checklistLines(checklist: ImportChecklist): ChecklistLine[] {
  return checklist.nodes.flatMap((entry) =>
    entry.items.map((item) => ({
      node: entry.node,
      name: entry.name,
      edge: item.edge,
      text: item.message,
      field: item.field,
    })),
  );
}

/** The checklist's headline: how much is left before the imported pipeline can run. */
export function checklistSummary(checklist: ImportChecklist): string {
  const left = checklist.remaining;
  if (left === 0) {
    return "Imported from a Flink plan: nothing left to fill in, it can run.";
  }
  return `Imported from a Flink plan: ${left} ${left === 1 ? "thing" : "things"} left to fill in before it can run.`;
}
