import { useMemo } from "react";

import type { LivePlan } from "../graph/liveplan";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { plural } from "./executionModel";
import { JobGraphColumns } from "./JobGraphColumns";
import { jobGraphModel } from "./jobGraphModel";
import "./plan.css";

/**
 * The JobGraph of the live plan: every JobVertex (an operator chain) and every
 * JobEdge, laid out left to right. Clicking a vertex selects its operators on
 * the canvas.
 */
export function JobGraphView(props: {
  readonly plan: LivePlan;
  readonly document: StreamGraphDocument;
  readonly onSelectNodes: (nodes: number[]) => void;
}) {
  const { plan, document, onSelectNodes } = props;
  const model = useMemo(() => jobGraphModel(plan, document), [plan, document]);
  const summary = plan.summary;
  if (summary === null || model.vertices.length === 0) {
    return (
      <div className="plan-view plan-view--empty" data-testid="jobgraph">
        <p className="muted">
          {document.nodes.length === 0
            ? "Add operators to see the JobGraph."
            : "The pipeline has errors (see Problems below the canvas): there is no JobGraph until they are fixed."}
        </p>
      </div>
    );
  }
  return (
    <div className="plan-view" data-testid="jobgraph">
      <header className="plan-view__header">
        <h2>JobGraph</h2>
        <span className="muted">
          {summary.jobType} · {plural(summary.vertexCount, "vertex", "vertices")} ·{" "}
          {plural(model.edges.length, "JobEdge")} · {plural(summary.slotsRequired, "slot")}
        </span>
        <span className="plan-legend">
          <span className="plan-legend__item plan-legend__item--pointwise">POINTWISE</span>
          <span className="plan-legend__item plan-legend__item--all-to-all">ALL_TO_ALL</span>
        </span>
      </header>
      <p className="plan-view__groups muted">
        Slot sharing groups:{" "}
        {summary.slotSharingGroups
          .map(
            (group) =>
              `${group.name ?? "(unnamed)"} #${group.index}: ${plural(group.slots, "slot")}`,
          )
          .join(" · ")}
        . Click a vertex to select its operators on the canvas.
      </p>
      <JobGraphColumns model={model} onSelectNodes={onSelectNodes} />
    </div>
  );
}
