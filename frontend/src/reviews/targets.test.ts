import { describe, expect, it } from "vitest";

import { chainedPlan, editsDocument, planOf } from "../test-support/builders";
import { thread } from "../test-support/reviews";
import { anchorKey, anchorText, revealTarget, targetChoices, WHOLE_PIPELINE } from "./targets";

const document = editsDocument();
const plan = planOf(document);
const VERTEX = "0".repeat(31) + "1";

function selected(nodes: number[], edges: string[] = []) {
  return { nodes: new Set(nodes), edges: new Set(edges) };
}

describe("target choices", () => {
  it("offer the selected operator, its chain, then the whole pipeline", () => {
    expect(targetChoices(selected([2]), document, plan)).toEqual([
      { key: "node:2", label: "Operator Map (node 2)", target: { kind: "node", node: 2 } },
      {
        key: `vertex:${VERTEX}`,
        label: "Its chain Source: s -> Map -> Sink: out",
        target: { kind: "vertex", vertex: VERTEX },
      },
      WHOLE_PIPELINE,
    ]);
  });

  it("offer the selected edge by its two ends", () => {
    expect(targetChoices(selected([], ["2-3-0-0"]), document, plan)).toEqual([
      {
        key: "edge:2-3-0-0",
        label: "Edge Map → Sink: out",
        target: { kind: "edge", edge: [2, 3, 0, 0] },
      },
      WHOLE_PIPELINE,
    ]);
  });

  it("offer only the whole pipeline for no, several or unknown elements", () => {
    expect(targetChoices(selected([]), document, plan)).toEqual([WHOLE_PIPELINE]);
    expect(targetChoices(selected([1, 2]), document, plan)).toEqual([WHOLE_PIPELINE]);
    expect(targetChoices(selected([9]), document, plan)).toEqual([WHOLE_PIPELINE]);
    expect(targetChoices(selected([], ["2-9-0-0"]), document, plan)).toEqual([WHOLE_PIPELINE]);
    expect(targetChoices(selected([2]), null, null)).toEqual([WHOLE_PIPELINE]);
  });

  it("leave the chain out without a plan", () => {
    expect(targetChoices(selected([2]), document, null).map((c) => c.key)).toEqual([
      "node:2",
      "pipeline",
    ]);
  });
});

describe("a thread's target", () => {
  const node = thread(1).target;
  const edge = {
    ...node,
    kind: "edge",
    node: null,
    edge: [2, 3, 0, 0],
    label: "Map → Sink: out",
  } as const;
  const vertex = {
    ...node,
    kind: "vertex",
    node: 2,
    vertex: VERTEX,
    label: "Map -> Sink",
  } as const;
  const pipeline = { ...node, kind: "pipeline", node: null, label: "edits" } as const;

  it("is named as it was when the thread was opened", () => {
    expect(anchorText(node)).toBe("Total (node 3)");
    expect(anchorText(edge)).toBe("Map → Sink: out");
    expect(anchorText(vertex)).toBe("Map -> Sink (chain)");
    expect(anchorText(pipeline)).toBe("The whole pipeline");
  });

  it("is keyed as the choice that would open it", () => {
    const choices = targetChoices(selected([2]), document, plan);
    expect(anchorKey({ ...node, node: 2 })).toBe(choices[0]?.key);
    expect(anchorKey(vertex)).toBe(choices[1]?.key);
    expect(anchorKey(pipeline)).toBe(WHOLE_PIPELINE.key);
    expect(anchorKey(edge)).toBe(targetChoices(selected([], ["2-3-0-0"]), document, plan)[0]?.key);
  });

  it("is selected on the canvas while it is in the document", () => {
    expect(revealTarget(node, document, plan)).toEqual({ nodes: [3], edge: null });
    expect(revealTarget(edge, document, plan)).toEqual({ nodes: [], edge: "2-3-0-0" });
    expect(revealTarget(vertex, document, plan)).toEqual({ nodes: [1, 2, 3], edge: null });
    expect(revealTarget(vertex, document, null)).toEqual({ nodes: [2], edge: null });
  });

  it("is nowhere once removed, and the whole pipeline is no element", () => {
    const smaller = {
      ...document,
      nodes: document.nodes.slice(0, 2),
      edges: (document.edges ?? []).slice(0, 1),
    };
    expect(revealTarget(node, smaller, plan)).toBeNull();
    expect(revealTarget(edge, smaller, plan)).toBeNull();
    expect(revealTarget(pipeline, document, plan)).toBeNull();
  });

  it("follows the chain its head runs in now", () => {
    const chained = chainedPlan(document, [[1, 2], [3]]);
    const head = Object.values(chained.vertices).find((v) => v.head === 1);
    expect(revealTarget({ ...vertex, node: 1 }, document, chained)).toEqual({
      nodes: head?.nodes,
      edge: null,
    });
  });
});
