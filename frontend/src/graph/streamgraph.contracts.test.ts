/**
 * How edges' partitioners resolve: the shared cases (tests/contracts/partitioners.json),
 * which the compiler runs too (tests/compiler/test_contracts.py).
 */
import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { edgePartitioners, type StreamGraphDocument } from "./streamgraph";

interface PartitionerCase {
  readonly name: string;
  readonly document: StreamGraphDocument;
  readonly edges: readonly (readonly [string, boolean])[];
}

const cases = (
  JSON.parse(
    readFileSync(new URL("../../../tests/contracts/partitioners.json", import.meta.url), "utf8"),
  ) as { readonly cases: readonly PartitionerCase[] }
).cases;

describe("the partitioners' shared cases", () => {
  it.each(cases.map((item) => [item.name, item] as const))("%s", (_, item) => {
    const resolved = edgePartitioners(item.document).map((edge) => [edge.partitioner, edge.chosen]);
    expect(resolved).toEqual(item.edges);
  });
});
