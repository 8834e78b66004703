import type { NodeProps } from "@xyflow/react";
import { memo } from "react";

import { NodeChrome } from "../canvas/NodeChrome";
import { shortId } from "../ui/CopyId";
import { useOperatorView } from "./canvasContext";
import type { OperatorFlowNode } from "./canvasModel";

/**
 * One StreamNode: its name, kind, parallelism, OperatorID and problems.
 * Its handles are drawn by `NodeChrome`, where `OPERATOR_HANDLES` tells React
 * Flow they are.
 */
export const OperatorNode = memo(function OperatorNode({
  id,
  selected,
}: NodeProps<OperatorFlowNode>) {
  const view = useOperatorView(id);
  if (view === undefined) {
    return null;
  }
  const { node, spec, diagnostics, presence } = view;
  const errors = diagnostics.filter((d) => d.severity === "error");
  const className = [
    "op-node",
    `op-node--${spec?.category ?? "other"}`,
    selected ? "is-selected" : "",
    errors.length > 0 ? "has-error" : diagnostics.length > 0 ? "has-warning" : "",
  ].join(" ");
  const ring = presence[0]?.colour;
  return (
    <NodeChrome node={node.id} inputs={view.inputHandles} connectable>
      <div
        className={className}
        data-testid={`node-${node.id}`}
        style={ring === undefined ? undefined : { boxShadow: `0 0 0 3px ${ring}` }}
        title={diagnostics.map((d) => `${d.severity}: ${d.message}`).join("\n") || undefined}
      >
        <div className="op-node__title">
          <span className="op-node__name">{node.name}</span>
          <span
            className="op-node__parallelism"
            data-testid={`node-${node.id}-parallelism`}
            title={
              view.parallelismIsDefault
                ? `Parallelism ${view.parallelism} (the job's default)`
                : `Parallelism ${view.parallelism}`
            }
          >
            {view.parallelismIsDefault ? `p${view.parallelism}*` : `p${view.parallelism}`}
          </span>
        </div>
        <div className="op-node__meta">
          <span className="op-node__kind">{spec?.label ?? node.operator ?? "operator"}</span>
          {view.operatorId !== null && (
            <code className="op-node__id" title={`OperatorID ${view.operatorId}`}>
              {shortId(view.operatorId)}
            </code>
          )}
        </div>
        {diagnostics.length > 0 && (
          <span className="op-node__problem" aria-label={`${diagnostics.length} problems`}>
            {errors.length > 0 ? "!" : "?"}
          </span>
        )}
        {presence.length > 0 && (
          <span className="op-node__presence">
            {presence.map((mark) => (
              <span
                key={mark.clientId}
                className="avatar avatar--tiny"
                style={{ background: mark.colour }}
                title={`${mark.username} has this selected`}
              >
                {mark.initial}
              </span>
            ))}
          </span>
        )}
      </div>
    </NodeChrome>
  );
});
