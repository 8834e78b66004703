import { describe, expect, it } from "vitest";

import type { Catalog, OperatorSpec, ParamSpec } from "../api/resources";
import type { StreamGraphDocument } from "../graph/streamgraph";
import {
  describeOverrides,
  fieldKey,
  overridableFields,
  runOverrides,
  type ParameterField,
} from "./runParameters";

function param(name: string, type: ParamSpec["type"], required = true): ParamSpec {
  return {
    name,
    label: name,
    type,
    required,
    default: null,
    choices: null,
    help: "",
    appliesWhen: null,
  };
}

function operator(
  kind: string,
  category: OperatorSpec["category"],
  params: ParamSpec[],
): OperatorSpec {
  return {
    kind,
    label: kind,
    category,
    description: "",
    inputs: category === "source" ? 0 : 1,
    keyed: false,
    defaults: { name: kind, chainingStrategy: "ALWAYS", factory: "simple" },
    params,
    palette: true,
  };
}

/** The shapes of the server's catalog entries for these kinds (`runtime/catalog.py`). */
const CATALOG: Catalog = {
  format: "catalog/v1",
  operators: [
    operator("source.generator", "source", [param("count", "integer"), param("fn", "expression")]),
    operator("source.csv", "source", [
      param("path", "path"),
      param("delimiter", "string", false),
      param("header", "boolean", false),
    ]),
    operator("map", "transform", [param("fn", "expression")]),
    operator("sink.text", "sink", [param("path", "path")]),
    operator("sink.collect", "sink", []),
  ],
};

const DOCUMENT: StreamGraphDocument = {
  format: "streamgraph/v1",
  name: "orders",
  nodes: [
    { id: 1, name: "Source: ids", operator: "source.generator", params: { count: 1000, fn: "i" } },
    { id: 2, name: "Source: orders", operator: "source.csv", params: { path: "data/orders.csv" } },
    { id: 3, name: "Map", operator: "map", params: { fn: "x" } },
    { id: 4, name: "Sink: out", operator: "sink.text", params: { path: "out/orders" } },
    { id: 5, name: "Sink: preview", operator: "sink.collect" },
    { id: 6, name: "Imported", operator: "com.example.Unknown" },
  ],
  edges: [],
};

function keys(fields: readonly ParameterField[]): string[] {
  return fields.map(fieldKey);
}

describe("which parameters a run can override", () => {
  it("offers the sources' and sinks' data parameters, not logic", () => {
    const fields = overridableFields(DOCUMENT, CATALOG);

    expect(keys(fields)).toEqual(["1.count", "2.path", "2.delimiter", "2.header", "4.path"]);
    expect(fields.map((field) => field.current)).toEqual([
      "1000",
      "data/orders.csv",
      "",
      "",
      "out/orders",
    ]);
  });
});

describe("a run's overrides", () => {
  const fields = overridableFields(DOCUMENT, CATALOG);

  it("are the fields whose text differs from the version, typed as the catalog says", () => {
    const texts = new Map([
      ["1.count", "50"],
      ["2.path", "data/orders.csv "],
      ["2.header", "true"],
      ["4.path", "out/sample"],
    ]);

    expect(runOverrides(fields, texts)).toEqual({
      ok: true,
      parameters: {
        params: { "1": { count: 50 }, "2": { header: true }, "4": { path: "out/sample" } },
      },
    });
  });

  it("are null when nothing differs", () => {
    expect(runOverrides(fields, new Map([["1.count", "1000"]]))).toEqual({
      ok: true,
      parameters: null,
    });
  });

  it("name each field that does not parse", () => {
    const result = runOverrides(
      fields,
      new Map([
        ["1.count", "many"],
        ["4.path", ""],
      ]),
    );

    expect(result.ok).toBe(false);
    expect(result.ok ? null : Object.fromEntries(result.errors)).toEqual({
      "1.count": "count must be a whole number",
      "4.path": "path is required",
    });
  });

  it("read back in words for the run's page", () => {
    expect(
      describeOverrides({ params: { "1": { count: 50 }, "4": { path: "out/sample" } } }),
    ).toEqual(["node 1 count = 50", 'node 4 path = "out/sample"']);
    expect(describeOverrides({})).toEqual([]);
  });
});
