/**
 * Marks that a feature puts on elements of every canvas (a count of comments,
 * say) without touching the pages: it provides how to draw an element's
 * badges around the canvases (`CanvasBadges`), and the chrome of every
 * operator, chain box and edge asks for its element's badges and places them
 * where that kind of element keeps them (canvas.css). Without a provider
 * nothing is drawn, not even a wrapper.
 */

import { createContext, Fragment, useContext, type ReactNode } from "react";

/** An element of a pipeline, named as every canvas names it. */
export type CanvasElement =
  | { readonly kind: "node"; readonly node: number }
  /** An operator chain, that is a JobVertex, by its JobVertexID. */
  | { readonly kind: "chain"; readonly vertex: string }
  /** A stream edge by its canvas id (`source-target-typeNumber-k`). */
  | { readonly kind: "edge"; readonly edge: string };

/**
 * The badges of one element, null for none. It is called while the element
 * renders, so it calls no hooks itself: it returns the feature's components,
 * which may.
 */
export type BadgesOf = (element: CanvasElement) => ReactNode;

const BadgeContext = createContext<BadgesOf | null>(null);

/**
 * The badges of several features on the same elements, in the order given; an element
 * none of them marks has none. A feature without badges now is null.
 */
export function combineBadges(...features: readonly (BadgesOf | null)[]): BadgesOf {
  const present = features.filter((feature): feature is BadgesOf => feature !== null);
  return (element) => {
    const drawn = present
      .map((badgesOf) => badgesOf(element))
      .filter((badges) => badges !== null && badges !== undefined && badges !== false);
    if (drawn.length <= 1) {
      return drawn[0] ?? null;
    }
    return drawn.map((badges, index) => <Fragment key={index}>{badges}</Fragment>);
  };
}

/** Gives every canvas inside it the badges of `badgesOf`. */
export function CanvasBadges(props: { readonly badgesOf: BadgesOf; readonly children: ReactNode }) {
  return <BadgeContext.Provider value={props.badgesOf}>{props.children}</BadgeContext.Provider>;
}

/** The badges of `element` on this canvas; null when there are none. */
export function useBadges(element: CanvasElement): ReactNode {
  const badgesOf = useContext(BadgeContext);
  const badges = badgesOf === null ? null : badgesOf(element);
  return badges === undefined || badges === false ? null : badges;
}

/** The badges of a node or chain box, in the corner its kind keeps them. */
export function ElementBadges({ element }: { readonly element: CanvasElement }) {
  const badges = useBadges(element);
  if (badges === null) {
    return null;
  }
  return <div className={`canvas-badges canvas-badges--${element.kind}`}>{badges}</div>;
}
