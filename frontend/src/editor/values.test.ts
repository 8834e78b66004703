import { describe, expect, it } from "vitest";

import type { ParamSpec } from "../api/resources";
import {
  checkDraft,
  parseDefaultParallelism,
  paramText,
  parseOptionalText,
  parseParallelism,
  parseParam,
  parseParamsObject,
  parseUidHash,
  PARTITIONER_CHOICES,
  partitionerChoice,
  partitionerChoiceLabel,
  partitionerValue,
} from "./values";

const param = (type: ParamSpec["type"], required = false): ParamSpec => ({
  name: "p",
  label: "P",
  type,
  required,
  default: null,
  choices: type === "enum" ? ["a", "b"] : null,
  help: "",
  appliesWhen: null,
});

describe("properties values", () => {
  it("reads parallelism, empty meaning the default", () => {
    expect(parseParallelism("4", "Parallelism")).toEqual({ ok: true, value: 4 });
    expect(parseParallelism("", "Parallelism")).toEqual({ ok: true, value: -1 });
    expect(parseParallelism("0", "Parallelism").ok).toBe(false);
    expect(parseParallelism("2.5", "Parallelism").ok).toBe(false);
  });

  it("reads optional texts and uid hashes", () => {
    expect(parseOptionalText("  ")).toEqual({ ok: true, value: null });
    expect(parseOptionalText(" g ")).toEqual({ ok: true, value: "g" });
    expect(parseUidHash("A".repeat(32))).toEqual({ ok: true, value: "a".repeat(32) });
    expect(parseUidHash("abc").ok).toBe(false);
  });

  it("reads parameters by their catalog type", () => {
    expect(parseParam(param("integer"), "12")).toEqual({ ok: true, value: 12 });
    expect(parseParam(param("integer"), "x").ok).toBe(false);
    expect(parseParam(param("values"), "[1, 2]")).toEqual({ ok: true, value: [1, 2] });
    expect(parseParam(param("values"), "{}").ok).toBe(false);
    expect(parseParam(param("enum"), "c").ok).toBe(false);
    expect(parseParam(param("expression", true), "").ok).toBe(false);
    expect(parseParam(param("expression"), "x + 1")).toEqual({ ok: true, value: "x + 1" });
    expect(paramText([1, 2])).toBe("[1,2]");
    expect(parseParamsObject('{"fn": "x"}')).toEqual({ ok: true, value: { fn: "x" } });
    expect(parseParamsObject("[]").ok).toBe(false);
  });
});

describe("partitioner choices", () => {
  it("offer Flink's default first, stored as null", () => {
    expect(PARTITIONER_CHOICES[0]).toBe("DEFAULT");
    expect(partitionerChoice({ source: 1, target: 2, partitioner: null })).toBe("DEFAULT");
    expect(partitionerChoice({ source: 1, target: 2 })).toBe("DEFAULT");
    expect(partitionerChoice({ source: 1, target: 2, partitioner: "SHUFFLE" })).toBe("SHUFFLE");
    expect(partitionerValue("DEFAULT")).toBeNull();
    expect(partitionerValue("REBALANCE")).toBe("REBALANCE");
  });
});

describe("partitioner choice labels", () => {
  it("name what Flink picks for the default, and chosen partitioners as they are", () => {
    expect(partitionerChoiceLabel("DEFAULT", "REBALANCE")).toBe("Default (Flink picks REBALANCE)");
    expect(partitionerChoiceLabel("DEFAULT", null)).toBe(
      "Default (Flink picks FORWARD or REBALANCE)",
    );
    expect(partitionerChoiceLabel("HASH", "FORWARD")).toBe("HASH");
  });
});

describe("parallelism fields", () => {
  const parallelism = (text: string) => parseParallelism(text, "Parallelism");
  const maxParallelism = (text: string) => parseParallelism(text, "Max parallelism");

  it("refuse 0, abc, -3 and 2.5, keeping the last valid value with an error", () => {
    for (const parse of [parallelism, maxParallelism, parseDefaultParallelism]) {
      for (const text of ["0", "abc", "-3", "2.5", "1e3", "2.0"]) {
        const check = checkDraft(parse, text, "4");
        expect(check.ok).toBe(false);
        if (!check.ok) {
          expect(check.draft).toBe("4");
          expect(check.error).toMatch(/must be a whole number of at least 1/);
          expect(check.error).toContain(`"${text}" was not kept`);
        }
      }
    }
  });

  it("take whole numbers, and empty or -1 as the default where there is one", () => {
    expect(checkDraft(parallelism, " 8 ", "4")).toEqual({ ok: true, value: 8 });
    expect(checkDraft(maxParallelism, "", "128")).toEqual({ ok: true, value: -1 });
    expect(checkDraft(parallelism, "-1", "4")).toEqual({ ok: true, value: -1 });
    expect(checkDraft(parseDefaultParallelism, "", "2").ok).toBe(false);
    expect(checkDraft(parseDefaultParallelism, "3", "2")).toEqual({ ok: true, value: 3 });
  });
});
