import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { editsDocument, planOf } from "../test-support/builders";
import { loadFixture } from "../test-support/fixtures";
import { applyEdit, parseEdit } from "./edits";
import { jsonEqual, type JsonObject, type JsonValue } from "./json";
import {
  applyPlanDelta,
  InvalidPlan,
  KEYED_SECTIONS,
  parseLivePlan,
  parsePlanDelta,
  runKeys,
  xorIds,
  type LivePlan,
  type PlanDelta,
} from "./liveplan";

/**
 * Plans and deltas the server computed (`compiler.liveplan.live_plan` and
 * `plan_delta`) for the word-count fixture and the edits listed in the file,
 * each step applied to the document of the step before.
 */
interface Recorded {
  readonly fixture: string;
  readonly plan: unknown;
  readonly steps: readonly { edit: unknown; planDelta: unknown; plan: unknown }[];
}

const recorded = JSON.parse(
  readFileSync(new URL("./testdata/word-count.liveplan.json", import.meta.url), "utf8"),
) as Recorded;

/** `compiler.liveplan.plan_delta`, to check that applying a delta gives the new plan. */
function planDelta(before: LivePlan, after: LivePlan): PlanDelta {
  const delta: Record<string, unknown> = {};
  const old = before as unknown as JsonObject;
  const now = after as unknown as JsonObject;
  for (const key of ["format", "ok", "summary", "diagnostics"]) {
    if (!jsonEqual(old[key], now[key])) {
      delta[key] = now[key] ?? null;
    }
  }
  for (const section of KEYED_SECTIONS) {
    const was = before[section] as unknown as JsonObject;
    const is = after[section] as unknown as JsonObject;
    const set = Object.fromEntries(
      Object.entries(is).filter(([key, value]) => !jsonEqual(was[key], value)),
    );
    const remove = Object.keys(was).filter((key) => !Object.hasOwn(is, key));
    if (Object.keys(set).length > 0 || remove.length > 0) {
      delta[section] = { set, remove };
    }
  }
  return delta;
}

function asJson(plan: LivePlan): JsonValue {
  return plan as unknown as JsonValue;
}

describe("applyPlanDelta", () => {
  it("follows the server's plans step by step", () => {
    let plan = parseLivePlan(recorded.plan);
    let document = loadFixture(recorded.fixture);
    for (const step of recorded.steps) {
      plan = applyPlanDelta(plan, parsePlanDelta(step.planDelta));
      expect(plan).toEqual(step.plan);
      document = applyEdit(document, parseEdit(step.edit)).document;
    }
    expect(plan.ok).toBe(false);
    expect(plan.summary).toBeNull();
    expect(document.nodes.map((node) => node.id)).toEqual([1, 2, 3, 4, 6]);
  });

  it("never modifies the plan it starts from, and shares what did not change", () => {
    const before = parseLivePlan(recorded.plan);
    const text = JSON.stringify(before);
    const first = recorded.steps[0];
    if (first === undefined) {
      throw new Error("the recording has steps");
    }
    const after = applyPlanDelta(before, parsePlanDelta(first.planDelta));
    expect(JSON.stringify(before)).toBe(text);
    expect(after.diagnostics).toBe(before.diagnostics);
    expect(after.nodes).not.toBe(before.nodes);
  });

  it("sets and removes entries, replaces other keys whole", () => {
    const document = editsDocument();
    const before = planOf(document);
    const { document: changed } = applyEdit(document, { kind: "remove_node", nodeId: 3 });
    const target: LivePlan = {
      ...planOf(changed),
      ok: false,
      diagnostics: [
        {
          code: "node.cycle",
          severity: "error",
          message: "a cycle",
          node: 2,
          edge: null,
          field: null,
        },
      ],
    };
    const delta = planDelta(before, target);
    expect(delta.nodes?.remove).toEqual(["3"]);
    expect(delta.edges?.remove).toEqual(["1"]);
    expect(jsonEqual(asJson(applyPlanDelta(before, delta)), asJson(target))).toBe(true);
    expect(applyPlanDelta(before, {})).toEqual(before);
  });

  it("adds a section the plan did not have", () => {
    const edgeFacts = {
      partitioner: "REBALANCE",
      partitionerChosen: false,
      chained: false,
      chainedSource: false,
      reasons: ["x"],
    } as const;
    const plan = { ...planOf(editsDocument()), edges: undefined } as unknown as LivePlan;
    const after = applyPlanDelta(plan, {
      edges: {
        set: { "0": edgeFacts },
        remove: ["9"],
      },
    });
    expect(after.edges).toEqual({ "0": edgeFacts });
  });
});

describe("field patches", () => {
  it("changes only the patched fields of an entry and shares the rest", () => {
    const before = planOf(editsDocument());
    const [key, entry] = Object.entries(before.nodes)[0] ?? [];
    if (key === undefined || entry === undefined) {
      throw new Error("the fixture has nodes");
    }
    const after = applyPlanDelta(before, { nodes: { patch: { [key]: { vertex: "ab" } } } });
    expect(after.nodes[key]).toEqual({ ...entry, vertex: "ab" });
    expect(before.nodes[key]).toBe(entry);
    const [other] = Object.keys(before.nodes).filter((k) => k !== key);
    if (other !== undefined) {
      expect(after.nodes[other]).toBe(before.nodes[other]);
    }
  });

  it("refuses a patch of an entry the plan lacks: the plan drifted from the server's", () => {
    const before = planOf(editsDocument());
    expect(() => applyPlanDelta(before, { nodes: { patch: { "999": { vertex: "ab" } } } })).toThrow(
      new InvalidPlan("nodes: patch of '999', which this plan lacks"),
    );
  });
});

describe("renamed entries and ids moved by XOR", () => {
  it("XORs two ids word by word", () => {
    const a = "0123456789abcdef0123456789abcdef";
    const b = "ffffffff00000000ffffffff00000000";
    expect(xorIds(a, b)).toBe("fedcba9889abcdeffedcba9889abcdef");
    expect(xorIds(xorIds(a, b), b)).toBe(a);
  });

  it("reads runs of keys", () => {
    expect(runKeys([3, [5, 7], "x"])).toEqual(["3", "5", "6", "7", "x"]);
  });

  it("refuses to rename or XOR an entry the plan lacks", () => {
    const before = planOf(editsDocument());
    expect(() => applyPlanDelta(before, { nodes: { rename: { "999": "1000" } } })).toThrow(
      new InvalidPlan("nodes: rename of '999', which this plan lacks"),
    );
    const by = "00000000000000000000000000000001";
    expect(() =>
      applyPlanDelta(before, { nodes: { xor: [{ field: "operatorId", by, keys: [[998, 999]] }] } }),
    ).toThrow(new InvalidPlan("nodes: xor of '998.operatorId', which this plan lacks"));
  });
});

describe("parsing plans and deltas", () => {
  it.each([
    [null, "a plan must be an object"],
    [{ format: "liveplan/v2" }, "'format' must be 'liveplan/v1'"],
    [{ format: "liveplan/v1", ok: 1 }, "'ok' must be true or false"],
    [{ format: "liveplan/v1", ok: true, summary: 3 }, "'summary' must be an object or null"],
    [
      { format: "liveplan/v1", ok: true, summary: null, diagnostics: [], nodes: {}, vertices: [] },
      "'vertices' must be an object",
    ],
  ])("refuses the plan %j", (raw, message) => {
    expect(() => parseLivePlan(raw)).toThrow(new InvalidPlan(message));
  });

  it.each([
    [[], "a plan delta must be an object"],
    [{ nodes: { set: {}, remove: "3" } }, "nodes: 'remove' must be a list of keys"],
    [{ nodes: { patch: { "3": 1 } } }, "nodes: patch '3' must be an object"],
    [{ edges: { set: [], remove: [] } }, "edges: 'set' must be an object"],
    [{ ok: "yes" }, "'ok' must be true or false"],
    [{ vertices: { rename: { a: 1 } } }, "vertices: 'rename' must map keys to keys"],
    [
      { nodes: { xor: [{ field: "operatorId", by: "12", keys: [1] }] } },
      "nodes: 'xor' must be a list of groups of a field, an id and keys",
    ],
    [
      { nodes: { xor: [{ field: "vertex", by: "0".repeat(32), keys: [[5, 1]] }] } },
      "nodes: 'xor' must be a list of groups of a field, an id and keys",
    ],
  ])("refuses the delta %j", (raw, message) => {
    expect(() => parsePlanDelta(raw)).toThrow(new InvalidPlan(message));
  });

  it("accepts an empty delta and a plan without a summary", () => {
    expect(parsePlanDelta({})).toEqual({});
    const failed = {
      format: "liveplan/v1",
      ok: false,
      summary: null,
      diagnostics: [],
      nodes: {},
      vertices: {},
      edges: {},
    };
    expect(parseLivePlan(failed)).toBe(failed);
  });
});
