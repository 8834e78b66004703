/**
 * Which of an operator's parameters apply, as the catalog says (`appliesWhen`): a
 * window's Size (ms) only for time windows, its Timestamp only for event time. The
 * inspector shows only those; the server's run check and run plan read the same
 * conditions, so a value left from another choice is never used.
 */

import type { OperatorSpec, ParamSpec } from "../api/resources";
import {
  deleteOwn,
  getOwn,
  setOwn,
  type JsonObject,
  type JsonValue,
  type MutableJsonObject,
} from "../graph/json";

/** Whether `param` applies to an operator holding `params`. */
export function paramApplies(param: ParamSpec, params: JsonObject): boolean {
  const condition = param.appliesWhen;
  if (condition === null) {
    return true;
  }
  const value = getOwn(params, condition.param);
  return typeof value === "string" && condition.values.includes(value);
}

/** The parameters the inspector shows for `params`, in catalog order. */
export function applyingParams(spec: OperatorSpec, params: JsonObject): ParamSpec[] {
  return spec.params.filter((param) => paramApplies(param, params));
}

/**
 * The parameters after `name` is set to `value`, as one edit: what stops applying is
 * removed (it would be kept unseen, yet show in diffs and versions), and what starts
 * applying gets the catalog's default where it has one and no value yet.
 */
export function withParam(
  spec: OperatorSpec,
  params: JsonObject,
  name: string,
  value: JsonValue,
): JsonObject {
  const next: MutableJsonObject = { ...params };
  setOwn(next, name, value);
  for (const param of spec.params) {
    if (param.appliesWhen?.param !== name) {
      continue;
    }
    if (!paramApplies(param, next)) {
      deleteOwn(next, param.name);
    } else if (
      (getOwn(next, param.name) ?? null) === null &&
      param.default !== null &&
      param.default !== undefined
    ) {
      setOwn(next, param.name, param.default as JsonValue);
    }
  }
  return next;
}
