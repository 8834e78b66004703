/**
 * Plan deltas: the shared cases (tests/contracts/plandeltas.json), plans before and
 * after real edits and the delta the server sends between them, which the server's
 * applier runs too (tests/compiler/test_contracts.py).
 */
import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { applyPlanDelta, parseLivePlan, parsePlanDelta } from "./liveplan";

interface DeltaCase {
  readonly name: string;
  readonly before: unknown;
  readonly delta: unknown;
  readonly after: unknown;
}

const cases = (
  JSON.parse(
    readFileSync(new URL("../../../tests/contracts/plandeltas.json", import.meta.url), "utf8"),
  ) as { readonly cases: readonly DeltaCase[] }
).cases;

describe("the plan deltas' shared cases", () => {
  it.each(cases.map((item) => [item.name, item] as const))("%s", (_, item) => {
    const after = applyPlanDelta(parseLivePlan(item.before), parsePlanDelta(item.delta));
    expect(after).toEqual(item.after);
  });
});
