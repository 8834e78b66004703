/**
 * Checked reading of what the server sends over a websocket: each reader takes a
 * value and the path it sits at (`run.subtasks.3.recordsIn`) and returns it typed,
 * or throws `InvalidData` saying where and what is wrong. The co-editing protocol
 * (`messages.ts`) and the run monitor's (`runMessages.ts`) are both read with these,
 * and share the user and error-shape readers.
 */

import { getOwn, isInteger, isJsonObject, type JsonObject } from "../graph/json";
import type { ServerDiagnostic } from "../graph/streamgraph";
import type * as Wire from "./generated/wire";

export type { ServerDiagnostic } from "../graph/streamgraph";

/** A value that is not what the protocol defines, and where. */
export class InvalidData extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path}: ${what}`);
    this.name = "InvalidData";
  }
}

export function fail(path: string, what: string): never {
  throw new InvalidData(path, what);
}

export function object(value: unknown, path: string): JsonObject {
  return isJsonObject(value) ? value : fail(path, "must be an object");
}

export function string(value: unknown, path: string): string {
  return typeof value === "string" ? value : fail(path, "must be a string");
}

export function nullableString(value: unknown, path: string): string | null {
  return value === null || value === undefined ? null : string(value, path);
}

export function integer(value: unknown, path: string): number {
  return isInteger(value) ? value : fail(path, "must be an integer");
}

/** A whole number of at least 0. */
export function count(value: unknown, path: string): number {
  const n = integer(value, path);
  return n >= 0 ? n : fail(path, "must not be negative");
}

export function boolean(value: unknown, path: string): boolean {
  return typeof value === "boolean" ? value : fail(path, "must be true or false");
}

export function list(value: unknown, path: string): readonly unknown[] {
  return Array.isArray(value) ? (value as readonly unknown[]) : fail(path, "must be a list");
}

/** A list read item by item, each at `path.index`. */
export function items<T>(
  value: unknown,
  path: string,
  read: (item: unknown, at: string) => T,
): T[] {
  return list(value, path).map((item, index) => read(item, `${path}.${index}`));
}

/** `{"id", "username"}`, as `UserRefSerializer` and the websocket models send a user. */
export type UserRef = Wire.UserRef;

export function readUser(value: unknown, path: string): UserRef {
  const raw = object(value, path);
  return {
    id: integer(getOwn(raw, "id"), `${path}.id`),
    username: string(getOwn(raw, "username"), `${path}.username`),
  };
}

export function readDiagnostic(value: unknown, path: string): ServerDiagnostic {
  const raw = object(value, path);
  const optional = <T>(key: string, check: (item: unknown, at: string) => T): T | null => {
    const item = getOwn(raw, key);
    return item === undefined || item === null ? null : check(item, `${path}.${key}`);
  };
  const severity = getOwn(raw, "severity") ?? "error";
  if (severity !== "error" && severity !== "warning") {
    fail(`${path}.severity`, "must be error or warning");
  }
  const stage = getOwn(raw, "stage");
  const nodes = optional("nodes", (item, at) => items(item, at, integer));
  const edges = optional("edges", (item, at) => items(item, at, integer));
  return {
    code: string(getOwn(raw, "code"), `${path}.code`),
    severity,
    message: string(getOwn(raw, "message"), `${path}.message`),
    node: optional("node", integer),
    edge: optional("edge", integer),
    field: optional("field", string),
    ...(nodes === null ? {} : { nodes }),
    ...(edges === null ? {} : { edges }),
    ...(typeof stage === "string" ? { stage } : {}),
  };
}

/** The project's one error shape (`config/errors.py`). */
export type ErrorBody = Wire.ErrorBody;

export function readErrorBody(value: unknown, path: string): ErrorBody {
  const raw = object(value, path);
  const diagnostics = getOwn(raw, "diagnostics");
  const fields = getOwn(raw, "fields");
  return {
    code: string(getOwn(raw, "code"), `${path}.code`),
    message: string(getOwn(raw, "message"), `${path}.message`),
    diagnostics:
      diagnostics === undefined ? [] : items(diagnostics, `${path}.diagnostics`, readDiagnostic),
    fields: fields === undefined ? {} : object(fields, `${path}.fields`),
  };
}
