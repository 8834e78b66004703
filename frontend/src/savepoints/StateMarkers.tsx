import { useMemo } from "react";

import type { BadgesOf } from "../canvas/badges";
import { MARKER_LABELS, type NodeMarker } from "./markers";
import "./savepoints.css";

function StateMarker({ node, marker }: { readonly node: number; readonly marker: NodeMarker }) {
  return (
    <span
      className={`state-marker state-marker--${marker.kind}`}
      title={marker.title}
      data-testid={`state-marker-${node}`}
      data-kind={marker.kind}
    >
      {MARKER_LABELS[marker.kind]}
    </span>
  );
}

/**
 * The restore check's marks on the operators of a canvas (`canvas/badges.tsx`); null while
 * there are none to show, so the canvas draws the other features' badges alone.
 */
export function useStateMarkerBadges(
  markers: ReadonlyMap<number, NodeMarker> | null,
): BadgesOf | null {
  return useMemo(() => {
    if (markers === null) {
      return null;
    }
    return (element) => {
      if (element.kind !== "node") {
        return null;
      }
      const marker = markers.get(element.node);
      return marker === undefined ? null : <StateMarker node={element.node} marker={marker} />;
    };
  }, [markers]);
}
