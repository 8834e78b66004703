import { describe, expect, it } from "vitest";

import { recordedCheck } from "../test-support/savepoints";
import { nodeMarkers } from "./markers";

const ALL = new Set([1, 2, 3, 5, 6, 7]);

function kinds(markers: ReadonlyMap<number, { kind: string }>): Record<number, string> {
  return Object.fromEntries([...markers].map(([node, marker]) => [node, marker.kind]));
}

describe("the canvas markers", () => {
  const check = recordedCheck("counting--sum-parallelism");

  it("mark what restores, what should take lost state, and what starts empty", () => {
    const markers = nodeMarkers(check, ALL);
    expect(kinds(markers)).toEqual({
      1: "restored",
      2: "restored",
      3: "restored",
      5: "lost",
      6: "new",
      7: "new",
    });
    expect(markers.get(1)?.title).toBe(
      "Restores the state of Source: Numbers (cbc357cc…): list 530 B, coordinator 16 B",
    );
    expect(markers.get(5)?.title).toMatch(/^Should take the lost state of Sum \(c27dcf7b…\)/);
  });

  it("follow the node chosen for lost state, or none", () => {
    const sum = "c27dcf7b54ef6bfd6cff02ca8870b681";
    expect(kinds(nodeMarkers(check, ALL, new Map([[sum, 6]])))[6]).toBe("lost");
    expect(kinds(nodeMarkers(check, ALL, new Map([[sum, 6]])))[5]).toBe("new");
    expect(kinds(nodeMarkers(check, ALL, new Map([[sum, null]])))[5]).toBe("new");
  });

  it("mark a refused state on its operator before anything else", () => {
    const refused = {
      ...check,
      operators: check.operators.map((row) =>
        row.name === "Source: Numbers"
          ? { ...row, outcome: "parallelism-above-max" as const, reasons: ["too wide"] }
          : row,
      ),
    };
    const marker = nodeMarkers(refused, ALL).get(1);
    expect(marker).toEqual({
      kind: "refused",
      title: "Cannot restore the state of Source: Numbers (cbc357cc…): too wide",
    });
  });

  it("leave out nodes the working copy no longer has", () => {
    expect([...nodeMarkers(check, new Set([1, 2])).keys()]).toEqual([1, 2]);
  });
});
