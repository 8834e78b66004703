import { Handle, Position, type NodeProps } from "@xyflow/react";
import { memo } from "react";

import { shortId } from "../ui/CopyId";
import type { OperatorFlowNode } from "./canvasModel";

const HANDLE_TOP = { in1: "32%", in2: "72%" } as const;

/** One StreamNode: its name, kind, parallelism, OperatorID and problems. */
export const OperatorNode = memo(function OperatorNode({
  data,
  selected,
}: NodeProps<OperatorFlowNode>) {
  const { node, spec, diagnostics, presence } = data;
  const errors = diagnostics.filter((d) => d.severity === "error");
  const className = [
    "op-node",
    `op-node--${spec?.category ?? "other"}`,
    selected ? "is-selected" : "",
    errors.length > 0 ? "has-error" : diagnostics.length > 0 ? "has-warning" : "",
  ].join(" ");
  const ring = presence[0]?.colour;
  return (
    <div
      className={className}
      data-testid={`node-${node.id}`}
      style={ring === undefined ? undefined : { boxShadow: `0 0 0 3px ${ring}` }}
      title={diagnostics.map((d) => `${d.severity}: ${d.message}`).join("\n") || undefined}
    >
      {data.inputHandles === 1 && <Handle type="target" position={Position.Left} id="in" />}
      {data.inputHandles === 2 && (
        <>
          <Handle type="target" position={Position.Left} id="in1" style={{ top: HANDLE_TOP.in1 }} />
          <Handle type="target" position={Position.Left} id="in2" style={{ top: HANDLE_TOP.in2 }} />
        </>
      )}
      <div className="op-node__title">
        <span className="op-node__name">{node.name}</span>
        <span
          className="op-node__parallelism"
          data-testid={`node-${node.id}-parallelism`}
          title={
            data.parallelismIsDefault
              ? `Parallelism ${data.parallelism} (the job's default)`
              : `Parallelism ${data.parallelism}`
          }
        >
          {data.parallelismIsDefault ? `p${data.parallelism}*` : `p${data.parallelism}`}
        </span>
      </div>
      <div className="op-node__meta">
        <span className="op-node__kind">{spec?.label ?? node.operator ?? "operator"}</span>
        {data.operatorId !== null && (
          <code className="op-node__id" title={`OperatorID ${data.operatorId}`}>
            {shortId(data.operatorId)}
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
      <Handle type="source" position={Position.Right} id="out" />
    </div>
  );
});
