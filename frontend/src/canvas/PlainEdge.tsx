import type { EdgeProps } from "@xyflow/react";
import { memo } from "react";

import { bezierCurve, EdgeChrome } from "./EdgeChrome";

/**
 * An edge drawn as React Flow draws its default one (a bezier curve, an
 * optional SVG label, an end marker), with the chrome of every edge.
 */
export const PlainEdge = memo(function PlainEdge(props: EdgeProps) {
  return (
    <EdgeChrome
      edge={props.id}
      curve={bezierCurve(props)}
      label={props.label}
      style={props.style}
      markerEnd={props.markerEnd}
      interactionWidth={props.interactionWidth}
    />
  );
});
