import { describe, expect, it } from "vitest";

import type { OperatorSpec, ParamCondition, ParamSpec } from "../api/resources";
import type { JsonObject } from "../graph/json";
import { defaultParams } from "./operatorKind";
import { applyingParams, paramApplies, withParam } from "./params";

function param(
  name: string,
  appliesWhen: ParamCondition | null,
  fields: Partial<ParamSpec> = {},
): ParamSpec {
  return {
    name,
    label: name,
    type: "integer",
    required: true,
    default: null,
    choices: null,
    help: "",
    appliesWhen,
    ...fields,
  };
}

const when = (...values: string[]): ParamCondition => ({ param: "assigner", values });

/** A window operator as the catalog describes it, with fewer assigners. */
const WINDOW: OperatorSpec = {
  kind: "window.reduce",
  label: "Window Reduce",
  category: "window",
  description: "",
  inputs: 1,
  keyed: true,
  defaults: { name: "TumblingEventTimeWindows", chainingStrategy: "ALWAYS", factory: "OPERATOR" },
  params: [
    param("assigner", null, {
      type: "enum",
      default: "tumbling_event_time",
      choices: [
        "tumbling_event_time",
        "sliding_event_time",
        "event_time_session",
        "count_tumbling",
      ],
    }),
    param("sizeMs", when("tumbling_event_time", "sliding_event_time"), { default: 1000 }),
    param("slideMs", when("sliding_event_time")),
    param("gapMs", when("event_time_session"), { default: 5000 }),
    param("size", when("count_tumbling")),
    param("timestamp", when("tumbling_event_time", "sliding_event_time", "event_time_session"), {
      type: "expression",
      default: "x",
    }),
    param("fn", null, { type: "expression", default: "a + b" }),
  ],
  palette: true,
};

const shown = (params: JsonObject): string[] => applyingParams(WINDOW, params).map((p) => p.name);

describe("the parameters that apply", () => {
  it("are those of the chosen assigner, and the ones without a condition", () => {
    expect(shown({ assigner: "tumbling_event_time" })).toEqual([
      "assigner",
      "sizeMs",
      "timestamp",
      "fn",
    ]);
    expect(shown({ assigner: "sliding_event_time" })).toEqual([
      "assigner",
      "sizeMs",
      "slideMs",
      "timestamp",
      "fn",
    ]);
    expect(shown({ assigner: "event_time_session" })).toEqual([
      "assigner",
      "gapMs",
      "timestamp",
      "fn",
    ]);
    expect(shown({ assigner: "count_tumbling", sizeMs: 10, timestamp: "x" })).toEqual([
      "assigner",
      "size",
      "fn",
    ]);
  });

  it("leave out every conditional one while the assigner is missing or not a choice", () => {
    expect(shown({})).toEqual(["assigner", "fn"]);
    expect(shown({ assigner: "weekly" })).toEqual(["assigner", "fn"]);
    expect(shown({ assigner: ["count_tumbling"] })).toEqual(["assigner", "fn"]);
    // An own key only: an inherited name is not a value.
    expect(paramApplies(param("x", { param: "toString", values: ["a"] }), {})).toBe(false);
  });
});

describe("choosing an assigner", () => {
  it("drops what stops applying and keeps what still does, in one params object", () => {
    const params = {
      assigner: "sliding_event_time",
      sizeMs: 60,
      slideMs: 10,
      timestamp: "x[1]",
      fn: "a",
    };
    expect(withParam(WINDOW, params, "assigner", "tumbling_event_time")).toEqual({
      assigner: "tumbling_event_time",
      sizeMs: 60,
      timestamp: "x[1]",
      fn: "a",
    });
    expect(withParam(WINDOW, params, "assigner", "count_tumbling")).toEqual({
      assigner: "count_tumbling",
      fn: "a",
    });
    expect(params.slideMs).toBe(10); // the document's own object is not changed
  });

  it("gives what starts applying the catalog's default, where it has one", () => {
    const counting = { assigner: "count_tumbling", size: 3, fn: "a" };
    expect(withParam(WINDOW, counting, "assigner", "event_time_session")).toEqual({
      assigner: "event_time_session",
      gapMs: 5000,
      timestamp: "x",
      fn: "a",
    });
    // No default: left for the user, and the run check asks for it.
    expect(withParam(WINDOW, counting, "assigner", "sliding_event_time")).toEqual({
      assigner: "sliding_event_time",
      sizeMs: 1000,
      timestamp: "x",
      fn: "a",
    });
  });

  it("keeps parameters outside the catalog, and sets any other parameter alone", () => {
    const params = { assigner: "count_tumbling", size: 3, fn: "a", note: "imported" };
    expect(withParam(WINDOW, params, "assigner", "tumbling_event_time")).toEqual({
      assigner: "tumbling_event_time",
      sizeMs: 1000,
      timestamp: "x",
      fn: "a",
      note: "imported",
    });
    expect(withParam(WINDOW, params, "fn", "b")).toEqual({ ...params, fn: "b" });
  });
});

describe("a new window operator", () => {
  it("starts with the defaults that apply to its default assigner", () => {
    expect(defaultParams(WINDOW)).toEqual({
      assigner: "tumbling_event_time",
      sizeMs: 1000,
      timestamp: "x",
      fn: "a + b",
    });
  });
});
