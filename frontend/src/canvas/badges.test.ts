import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import {
  CanvasBadges,
  combineBadges,
  ElementBadges,
  type BadgesOf,
  type CanvasElement,
} from "./badges";

function drawn(element: CanvasElement, badgesOf: BadgesOf | null): string {
  const badges = createElement(ElementBadges, { element });
  return renderToStaticMarkup(
    badgesOf === null ? badges : createElement(CanvasBadges, { badgesOf, children: badges }),
  );
}

describe("element badges", () => {
  it("draw nothing without a feature that gives badges", () => {
    expect(drawn({ kind: "node", node: 1 }, null)).toBe("");
  });

  it("draw what the feature gives, in the corner of the element's kind", () => {
    const badgesOf: BadgesOf = (element) =>
      element.kind === "chain" ? createElement("b", null, element.vertex) : null;
    expect(drawn({ kind: "chain", vertex: "ab12" }, badgesOf)).toBe(
      '<div class="canvas-badges canvas-badges--chain"><b>ab12</b></div>',
    );
    expect(drawn({ kind: "node", node: 1 }, badgesOf)).toBe("");
  });
});

describe("badges of several features", () => {
  const comments: BadgesOf = (element) =>
    element.kind === "node" ? createElement("i", null, "2") : null;
  const state: BadgesOf = (element) =>
    element.kind === "node" && element.node === 1 ? createElement("b", null, "restored") : null;

  it("are drawn side by side where several mark the element", () => {
    const both = combineBadges(comments, null, state);
    expect(drawn({ kind: "node", node: 1 }, both)).toBe(
      '<div class="canvas-badges canvas-badges--node"><i>2</i><b>restored</b></div>',
    );
    expect(drawn({ kind: "node", node: 2 }, both)).toBe(
      '<div class="canvas-badges canvas-badges--node"><i>2</i></div>',
    );
  });

  it("draw nothing, not even a wrapper, where none marks the element", () => {
    expect(drawn({ kind: "chain", vertex: "ab12" }, combineBadges(comments, state))).toBe("");
    expect(drawn({ kind: "node", node: 1 }, combineBadges(null))).toBe("");
  });
});
