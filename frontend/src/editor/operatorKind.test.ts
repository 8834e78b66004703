import { describe, expect, it } from "vitest";

import type { Catalog, ImportChecklist, OperatorSpec, ParamSpec } from "../api/resources";
import {
  checklistLines,
  checklistSummary,
  defaultParams,
  importTodo,
  kindOptions,
  operatorChange,
} from "./operatorKind";

function param(name: string, value: unknown): ParamSpec {
  return {
    name,
    label: name,
    type: "string",
    required: false,
    default: value,
    choices: null,
    help: "",
    appliesWhen: null,
  };
}

function spec(kind: string, label: string, params: ParamSpec[] = []): OperatorSpec {
  return {
    kind,
    label,
    category: "transform",
    description: "",
    inputs: 1,
    keyed: false,
    defaults: { name: label, chainingStrategy: "ALWAYS", factory: "SIMPLE" },
    params,
    palette: true,
  };
}

const MAP = spec("map", "Map", [param("fn", "x"), param("note", null)]);

const catalog: Catalog = {
  format: "catalog/v1",
  operators: [MAP, spec("filter", "Filter", [param("fn", "True")]), spec("sink.print", "Print")],
};

describe("changing an operator's kind", () => {
  it("starts the new kind with the catalog's default parameters", () => {
    expect(defaultParams(MAP)).toEqual({ fn: "x" });
    expect(operatorChange(catalog, "filter")).toEqual({
      operator: "filter",
      params: { fn: "True" },
    });
    expect(operatorChange(catalog, "nope")).toBeNull();
  });

  it("offers every catalog kind by label, and a node's unknown kind first", () => {
    expect(kindOptions(catalog, "map").map((o) => o.kind)).toEqual(["filter", "map", "sink.print"]);
    expect(kindOptions(catalog, "map")[2]?.label).toBe("Print (sink.print)");
    const imported = kindOptions(catalog, "");
    expect(imported[0]).toEqual({ kind: "", label: "(no kind chosen)" });
    expect(kindOptions(catalog, "flink.Thing")[0]?.label).toBe("flink.Thing (not in the catalog)");
  });
});

describe("an imported node's checklist", () => {
  const checklist: ImportChecklist = {
    importedFrom: "flink-plan-json",
    remaining: 3,
    nodes: [
      {
        node: 2,
        name: "Map",
        operator: "",
        suggestedOperator: "map",
        items: [
          {
            code: "import.operator",
            message: "Choose the kind to run",
            field: "operator",
            edge: null,
          },
          { code: "run.param", message: "Give the function", field: null, edge: null },
        ],
      },
      { node: 3, name: "Sink", operator: "sink.print", suggestedOperator: "sink.print", items: [] },
    ],
  };

  it("suggests a kind to apply and lists what is left", () => {
    expect(importTodo(checklist, 2, "")).toEqual({
      suggested: "map",
      left: ["Choose the kind to run (operator)", "Give the function"],
    });
  });

  it("stops suggesting the kind once applied, and says nothing for done or other nodes", () => {
    expect(importTodo(checklist, 2, "map")?.suggested).toBeNull();
    expect(importTodo(checklist, 3, "sink.print")).toBeNull();
    expect(importTodo(checklist, 9, "map")).toBeNull();
    expect(importTodo(null, 2, "")).toBeNull();
  });
});

describe("an imported pipeline's checklist as one list", () => {
  const checklist: ImportChecklist = {
    importedFrom: "flink-execution-plan",
    remaining: 3,
    nodes: [
      {
        node: 1,
        name: "Source: Collection Source",
        operator: "source",
        suggestedOperator: "source.collection",
        items: [
          {
            code: "import.operator",
            message: "choose what it runs",
            field: "operator",
            edge: null,
          },
        ],
      },
      { node: 2, name: "Print", operator: "sink.print", suggestedOperator: null, items: [] },
      {
        node: 6,
        name: "Reduce",
        operator: "reduce",
        suggestedOperator: "reduce",
        items: [
          { code: "param.required", message: "Reduce is required", field: "params.fn", edge: null },
          { code: "run.keyed-input-needs-key", message: "needs a key", field: "key", edge: 3 },
        ],
      },
    ],
  };

  it("lists every item of every node in document order, edges kept", () => {
    expect(checklistLines(checklist)).toEqual([
      {
        node: 1,
        name: "Source: Collection Source",
        edge: null,
        text: "choose what it runs",
        field: "operator",
      },
      { node: 6, name: "Reduce", edge: null, text: "Reduce is required", field: "params.fn" },
      { node: 6, name: "Reduce", edge: 3, text: "needs a key", field: "key" },
    ]);
  });

  it("says how much is left, and when nothing is", () => {
    expect(checklistSummary(checklist)).toBe(
      "Imported from a Flink plan: 3 things left to fill in before it can run.",
    );
    expect(checklistSummary({ ...checklist, remaining: 1 })).toContain("1 thing left");
    expect(checklistSummary({ ...checklist, remaining: 0, nodes: [] })).toBe(
      "Imported from a Flink plan: nothing left to fill in, it can run.",
    );
  });
});
