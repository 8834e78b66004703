/**
 * A run's parameter overrides: the same version run on other inputs or into other
 * outputs (a sample file instead of the full one, a smaller sequence) without saving a
 * new version. The server takes `{"params": {"<node id>": {"<param>": value}}}` and
 * checks the values as the editor checks a node's own (`runs/services.py`).
 *
 * Offered for the version's sources and sinks, the parameters that name data; an
 * operator's logic belongs in a version, where reviews see it.
 */

import type { Catalog, OperatorSpec, ParamSpec } from "../api/resources";
import { parseParam, paramText } from "../editor/values";
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from "../graph/json";
import type { StreamGraphDocument, StreamNode } from "../graph/streamgraph";

/** One parameter of one node, with the value the version gives it. */
export interface ParameterField {
  readonly node: StreamNode;
  readonly spec: ParamSpec;
  /** The version's value as the field shows it ("" when it has none). */
  readonly current: string;
}

/** The field's key in a form's state: `"<node id>.<param>"`. */
export function fieldKey(field: ParameterField): string {
  return `${field.node.id}.${field.spec.name}`;
}

function specOf(catalog: Catalog, node: StreamNode): OperatorSpec | undefined {
  return catalog.operators.find((operator) => operator.kind === node.operator);
}

/** Every catalog parameter of the document's sources and sinks, in document order. */
export function overridableFields(
  document: StreamGraphDocument,
  catalog: Catalog,
): ParameterField[] {
  const fields: ParameterField[] = [];
  for (const node of document.nodes) {
    const spec = specOf(catalog, node);
    if (spec === undefined || (spec.category !== "source" && spec.category !== "sink")) {
      continue;
    }
    const params = isJsonObject(node.params) ? node.params : {};
    for (const param of spec.params) {
      if (param.type === "expression") {
        continue;
      }
      fields.push({ node, spec: param, current: paramText(getOwn(params, param.name)) });
    }
  }
  return fields;
}

export type OverridesResult =
  | { readonly ok: true; readonly parameters: JsonObject | null }
  | { readonly ok: false; readonly errors: ReadonlyMap<string, string> };

/**
 * The run's `parameters` from what the form holds (`texts` by `fieldKey`): the fields
 * whose text differs from the version's value, parsed as their catalog type says;
 * null when nothing differs. A field that does not parse is an error by its key.
 */
export function runOverrides(
  fields: readonly ParameterField[],
  texts: ReadonlyMap<string, string>,
): OverridesResult {
  const params: Record<string, Record<string, JsonValue>> = {};
  const errors = new Map<string, string>();
  for (const field of fields) {
    const key = fieldKey(field);
    const text = texts.get(key);
    if (text === undefined || text.trim() === field.current.trim()) {
      continue;
    }
    const parsed = parseParam(field.spec, text);
    if (!parsed.ok) {
      errors.set(key, parsed.message);
      continue;
    }
    (params[String(field.node.id)] ??= {})[field.spec.name] = parsed.value;
  }
  if (errors.size > 0) {
    return { ok: false, errors };
  }
  return { ok: true, parameters: Object.keys(params).length === 0 ? null : { params } };
}

/** A run's overrides in words, one a line: `node 1 path = "/data/sample.txt"`. */
export function describeOverrides(parameters: JsonObject): string[] {
  const params = getOwn(parameters, "params");
  if (!isJsonObject(params)) {
    return [];
  }
  const lines: string[] = [];
  for (const [node, values] of Object.entries(params)) {
    if (!isJsonObject(values)) {
      continue;
    }
    for (const [name, value] of Object.entries(values)) {
      lines.push(`node ${node} ${name} = ${JSON.stringify(value)}`);
    }
  }
  return lines;
}
