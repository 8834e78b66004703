/**
 * What every canvas sets alike on React Flow: how far it zooms, how a
 * pipeline is fitted to it, and from what size only the nodes in view are
 * drawn.
 */

import {
  getViewportForBounds,
  type FitViewOptions,
  type ProOptions,
  type Viewport,
} from "@xyflow/react";

import type { Box } from "./geometry";

/** Far enough out that a thousand operators fit on a laptop screen. */
export const MIN_ZOOM = 0.05;
export const MAX_ZOOM = 2;
/** How a pipeline is fitted to its canvas when it opens. */
export const FIT_VIEW: FitViewOptions = { padding: 0.15, maxZoom: 1.1 };
/** Above this many nodes React Flow draws only those in view. */
export const MAX_NODES_ALL_DRAWN = 400;
export const PRO_OPTIONS: ProOptions = { hideAttribution: true };

/** The viewport that shows all of `bounds` in a `width` x `height` canvas, as fitView would. */
export function fittedViewport(bounds: Box | null, width: number, height: number): Viewport {
  if (bounds === null || width <= 0 || height <= 0) {
    return { x: 0, y: 0, zoom: 1 };
  }
  return getViewportForBounds(
    bounds,
    width,
    height,
    MIN_ZOOM,
    FIT_VIEW.maxZoom ?? 1,
    FIT_VIEW.padding ?? 0,
  );
}
