/**
 * JSON values as the documents, edits and messages hold them, read-only.
 *
 * The editor never modifies a value in place: every change builds new objects
 * (copy on write), so these types are read-only throughout. Keys are read and
 * written as own properties only, so a key such as `__proto__` or `constructor`
 * in a document is data like any other.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;
export type JsonArray = readonly JsonValue[];
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** A JSON object under construction (it becomes read-only once returned). */
export type MutableJsonObject = Record<string, JsonValue>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An integer (a JSON number without a fraction; booleans are not integers). */
export function isInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

export function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** `object[key]` if `object` has that key itself, else undefined. */
export function getOwn(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Define `key` as an own property (plain assignment of `__proto__` would not). */
export function setOwn(object: MutableJsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(object, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

export function deleteOwn(object: MutableJsonObject, key: string): void {
  if (Object.hasOwn(object, key)) {
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- keys are data here
    delete object[key];
  }
}

/** A deep copy: what the caller passed in can no longer change what is stored. */
export function cloneJson<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}

/** Deep equality of JSON values (key order does not matter, array order does). */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) {
    return true;
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return false;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) {
      return false;
    }
    const other: JsonArray = b;
    return a.every((item: JsonValue, index) => jsonEqual(item, other[index]));
  }
  const objectA = a as JsonObject;
  const objectB = b as JsonObject;
  const keys = Object.keys(objectA);
  if (keys.length !== Object.keys(objectB).length) {
    return false;
  }
  return keys.every((key) => Object.hasOwn(objectB, key) && jsonEqual(objectA[key], objectB[key]));
}

function pythonString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = text
    .replaceAll("\\", "\\\\")
    .replaceAll("\n", "\\n")
    .replaceAll("\r", "\\r")
    .replaceAll("\t", "\\t");
  return quote + (quote === "'" ? escaped.replaceAll("'", "\\'") : escaped) + quote;
}

/** How Python's `repr` shows a JSON value, for messages worded as the server words them. */
export function pythonRepr(value: unknown): string {
  if (value === undefined || value === null) {
    return "None";
  }
  if (typeof value === "boolean") {
    return value ? "True" : "False";
  }
  if (typeof value === "string") {
    return pythonString(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(pythonRepr).join(", ")}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as JsonObject).map(
      ([key, item]) => `${pythonString(key)}: ${pythonRepr(item)}`,
    );
    return `{${entries.join(", ")}}`;
  }
  return typeof value === "number" ? String(value) : JSON.stringify(value);
}
