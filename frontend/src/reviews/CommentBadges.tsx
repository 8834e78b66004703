import { useMemo } from "react";

import type { BadgesOf, CanvasElement } from "../canvas/badges";
import { countText, type CountsOf, type OpenCounts } from "./threads";
import "./reviews.css";

function elementId(element: CanvasElement): string {
  switch (element.kind) {
    case "node":
      return `node-${element.node}`;
    case "edge":
      return `edge-${element.edge}`;
    case "chain":
      return `chain-${element.vertex}`;
  }
}

/** A speech bubble: the badges' mark (no emoji font is needed to draw it). */
function Bubble() {
  return (
    <svg
      className="comment-badge__icon"
      width="10"
      height="10"
      viewBox="0 0 16 16"
      aria-hidden="true"
    >
      <path d="M2 2h12v9H7l-4 3v-3H2z" fill="currentColor" />
    </svg>
  );
}

function CommentBadge(props: {
  readonly element: CanvasElement;
  readonly counts: OpenCounts;
  readonly onOpen: ((element: CanvasElement) => void) | undefined;
}) {
  const { counts, element } = props;
  const total = counts.open + counts.outdated;
  const text = countText(counts);
  const className = `comment-badge${counts.open === 0 ? " comment-badge--outdated" : ""}`;
  const testId = `comment-badge-${elementId(element)}`;
  if (props.onOpen === undefined) {
    return (
      <span className={className} title={text} data-testid={testId}>
        <Bubble />
        {total}
      </span>
    );
  }
  return (
    <button
      type="button"
      className={`${className} nodrag`}
      title={`${text}: show them`}
      aria-label={text}
      onClick={() => {
        props.onOpen?.(element);
      }}
      data-testid={testId}
    >
      <Bubble />
      {total}
    </button>
  );
}

/**
 * The badges of open comment threads on every element of a canvas, from the counts read
 * where the canvas is (`CanvasBadges badgesOf={...}`); `onOpen` opens an element's threads.
 * Give `counts` anew only when they change: every badge is drawn again.
 */
export function useCommentBadges(
  counts: CountsOf,
  onOpen?: (element: CanvasElement) => void,
): BadgesOf {
  return useMemo(
    () => (element: CanvasElement) => {
      const found = counts.of(element);
      return found === null ? null : (
        <CommentBadge element={element} counts={found} onOpen={onOpen} />
      );
    },
    [counts, onOpen],
  );
}
