import type { EdgeProps } from "@xyflow/react";
import { memo } from "react";

import { EdgeChrome, edgeCurve } from "./EdgeChrome";

/**
 * An edge drawn as React Flow draws its default one (a bezier curve, an
 * optional SVG label, an end marker), with the chrome of every edge; a
 * self-loop or a back edge takes its detour, as on the editor's canvas.
 */
export const PlainEdge = memo(function PlainEdge(props: EdgeProps) {
  return (
    <EdgeChrome
      edge={props.id}
      curve={edgeCurve(props)}
      label={props.label}
      style={props.style}
      markerEnd={props.markerEnd}
      interactionWidth={props.interactionWidth}
    />
  );
});
