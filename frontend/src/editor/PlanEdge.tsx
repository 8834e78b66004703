import { EdgeLabelRenderer, type EdgeProps } from "@xyflow/react";
import { memo } from "react";

import { EdgeChrome, edgeCurve } from "../canvas/EdgeChrome";
import { useEdgeView } from "./canvasContext";
import { partitionerClass, partitionerLabel, type EdgeView, type FlowEdge } from "./canvasModel";
import { useEditor } from "./context";

/** The tooltip of an edge: whether it chains and, if not, every reason why. */
export function edgeTitle(view: EdgeView | undefined): string {
  if (view === undefined) {
    return "";
  }
  const { edge, chained, reasons, diagnostics } = view;
  const head = `${partitionerLabel(view)}${edge.sideOutputTag != null ? ` (side output ${edge.sideOutputTag})` : ""}`;
  const lines = [
    chained === null
      ? `${head}: no plan yet`
      : chained
        ? `${head}: chained (the records are handed over in the same task, no network)`
        : `${head}: not chained, because:`,
    ...reasons.map((reason) => `• ${reason}`),
    ...diagnostics.map((d) => `${d.severity}: ${d.message}`),
  ];
  return lines.join("\n");
}

/**
 * A stream edge, green when chained, amber when not; the label names the partitioner.
 * A self-loop is drawn as a loop above its operator and a back edge below, so both can
 * be seen, selected and deleted.
 */
export const PlanEdge = memo(function PlanEdge(props: EdgeProps<FlowEdge>) {
  const { selected } = props;
  const view = useEdgeView(props.id);
  const curve = edgeCurve(props);
  const { path, labelX, labelY } = curve;
  const chained = view?.chained ?? null;
  const hasError = (view?.diagnostics.length ?? 0) > 0;
  const state = hasError
    ? "error"
    : chained === null
      ? "unknown"
      : chained
        ? "chained"
        : "unchained";
  const title = edgeTitle(view);
  const presence = view?.presence[0]?.colour;
  const { selection } = useEditor();
  return (
    <EdgeChrome
      edge={props.id}
      curve={curve}
      id={props.id}
      className={`plan-edge plan-edge--${state}${partitionerClass(view)}${selected === true ? " is-selected" : ""}`}
      interactionWidth={14}
      markerEnd={props.markerEnd}
      style={presence === undefined ? undefined : { stroke: presence }}
    >
      {chained !== true && view !== undefined && (
        <EdgeLabelRenderer>
          <div
            className={`edge-label edge-label--${state}${partitionerClass(view)}${selected === true ? " is-selected" : ""}`}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
            title={title}
            data-testid={`edge-${props.id}`}
            data-chained={String(chained)}
            data-partitioner-chosen={String(view.partitionerChosen)}
            onClick={(event) => {
              // The label is part of the edge: a click selects it as a click on the line does.
              event.stopPropagation();
              selection.getState().select([], [props.id]);
            }}
          >
            {partitionerLabel(view)}
            {view.edge.sideOutputTag != null && ` · ${view.edge.sideOutputTag}`}
          </div>
        </EdgeLabelRenderer>
      )}
      {chained === true && (
        <path
          d={path}
          className="plan-edge__hit"
          data-testid={`edge-${props.id}`}
          data-chained="true"
          data-partitioner-chosen={String(view?.partitionerChosen ?? true)}
        >
          <title>{title}</title>
        </path>
      )}
    </EdgeChrome>
  );
});
