/**
 * Reading what a user typed into a properties field as the value the
 * document holds, with a message when it is not one.
 */

import type { ParamSpec } from "../api/resources";
import type { JsonValue } from "../graph/json";
import { PARTITIONERS, type Partitioner, type StreamEdge } from "../graph/streamgraph";

export type Parsed =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly message: string };

/** Parallelism and max parallelism: a positive integer, or empty / "default" for -1. */
export function parseParallelism(text: string, field: string): Parsed {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "" || trimmed === "default" || trimmed === "-1") {
    return { ok: true, value: -1 };
  }
  // Digits only: "1e3", "0x10" and "2.0" are numbers to Number(), not what was meant.
  const number = /^\d+$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!Number.isSafeInteger(number) || number < 1) {
    return {
      ok: false,
      message: `${field} must be a whole number of at least 1, or empty for the default`,
    };
  }
  return { ok: true, value: number };
}

/** The pipeline's default parallelism: a positive integer, with no default of its own. */
export function parseDefaultParallelism(text: string): Parsed {
  const parsed = parseParallelism(text, "Default parallelism");
  return parsed.ok && parsed.value === -1
    ? { ok: false, message: "Default parallelism must be a whole number of at least 1" }
    : parsed;
}

/** What a field does with a text committed to it. */
export type DraftCheck =
  | { readonly ok: true; readonly value: JsonValue }
  /** Refused: the field shows its last valid text again, and the error beside it. */
  | { readonly ok: false; readonly draft: string; readonly error: string };

/**
 * Checks a field's committed text: a value to commit, or the last valid text to show
 * again with an error naming what was refused.
 */
export function checkDraft(
  parse: (text: string) => Parsed,
  draft: string,
  lastValid: string,
): DraftCheck {
  const parsed = parse(draft);
  if (parsed.ok) {
    return { ok: true, value: parsed.value };
  }
  return {
    ok: false,
    draft: lastValid,
    error: `${parsed.message} ("${draft.trim()}" was not kept)`,
  };
}

/** The partitioner choice that leaves the edge to Flink's default (stored as null). */
export const DEFAULT_PARTITIONER = "DEFAULT";
export type PartitionerChoice = Partitioner | typeof DEFAULT_PARTITIONER;
export const PARTITIONER_CHOICES: readonly PartitionerChoice[] = [
  DEFAULT_PARTITIONER,
  ...PARTITIONERS,
];

/** What a partitioner field shows for an edge: its partitioner, or the default choice. */
export function partitionerChoice(edge: StreamEdge): PartitionerChoice {
  return edge.partitioner ?? DEFAULT_PARTITIONER;
}

/** The value a partitioner choice stores: the partitioner, or null for the default. */
export function partitionerValue(choice: PartitionerChoice): Partitioner | null {
  return choice === DEFAULT_PARTITIONER ? null : choice;
}

/**
 * How a partitioner choice reads in the edge's select: a partitioner by its name, the
 * default as what Flink picks for this edge (`resolved`, from the plan), or both of its
 * picks while the plan is not known.
 */
export function partitionerChoiceLabel(
  choice: PartitionerChoice,
  resolved: Partitioner | null,
): string {
  if (choice !== DEFAULT_PARTITIONER) {
    return choice;
  }
  return `Default (Flink picks ${resolved ?? "FORWARD or REBALANCE"})`;
}

/** An optional text (slot sharing group, uid...): empty means null. */
export function parseOptionalText(text: string): Parsed {
  const trimmed = text.trim();
  return { ok: true, value: trimmed === "" ? null : trimmed };
}

export function parseUidHash(text: string): Parsed {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "") {
    return { ok: true, value: null };
  }
  if (!/^[0-9a-f]{32}$/.test(trimmed)) {
    return { ok: false, message: "uidHash must be 32 hexadecimal characters" };
  }
  return { ok: true, value: trimmed };
}

/** The text a parameter's value is edited as. */
export function paramText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) {
    return "";
  }
  if (typeof value === "string") {
    return value;
  }
  return JSON.stringify(value);
}

/** A parameter as its catalog type says. */
export function parseParam(spec: ParamSpec, text: string): Parsed {
  const trimmed = text.trim();
  if (trimmed === "") {
    return spec.required
      ? { ok: false, message: `${spec.label} is required` }
      : { ok: true, value: null };
  }
  switch (spec.type) {
    case "integer": {
      const number = Number(trimmed);
      return Number.isInteger(number)
        ? { ok: true, value: number }
        : { ok: false, message: `${spec.label} must be a whole number` };
    }
    case "number": {
      const number = Number(trimmed);
      return Number.isFinite(number)
        ? { ok: true, value: number }
        : { ok: false, message: `${spec.label} must be a number` };
    }
    case "values": {
      try {
        const value = JSON.parse(trimmed) as JsonValue;
        return Array.isArray(value)
          ? { ok: true, value }
          : { ok: false, message: `${spec.label} must be a JSON list, e.g. [1, 2, 3]` };
      } catch {
        return { ok: false, message: `${spec.label} must be a JSON list, e.g. [1, 2, 3]` };
      }
    }
    case "boolean":
      return { ok: true, value: trimmed === "true" };
    case "enum":
      return spec.choices === null || spec.choices.includes(trimmed)
        ? { ok: true, value: trimmed }
        : { ok: false, message: `${spec.label} must be one of ${spec.choices.join(", ")}` };
    default:
      return { ok: true, value: text };
  }
}

/** Parameters outside the catalog (imported pipelines): edited as one JSON object. */
export function parseParamsObject(text: string): Parsed {
  try {
    const value = JSON.parse(text === "" ? "{}" : text) as JsonValue;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { ok: false, message: "params must be a JSON object" };
    }
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: `params is not JSON: ${String(error)}` };
  }
}
