import type { NodeProps } from "@xyflow/react";
import { memo } from "react";

import { NodeChrome } from "../canvas/NodeChrome";
import type { DiffFlowNode } from "./diffFlow";
import { fieldValueText } from "./diffModel";

const MARKS = { added: "+", removed: "−", changed: "~", unchanged: "" } as const;
const STATE = {
  kept: "state kept",
  lost: "state lost",
  refused: "state refused",
  new: "new state",
} as const;

/** A node of the compared graph: its name and kind, how it changed, and its savepoint fate. */
export const DiffNodeView = memo(function DiffNodeView({
  data,
  selected,
}: NodeProps<DiffFlowNode>) {
  const { node, change, fields, savepoint } = data.item;
  const title = [
    `${node.name} (node ${node.id}): ${change}`,
    ...fields.map(
      (f) => `${f.field}: ${fieldValueText(f.field, f.old)} → ${fieldValueText(f.field, f.new)}`,
    ),
    ...(savepoint === null ? [] : [`${STATE[savepoint.verdict]}: ${savepoint.causes.join("; ")}`]),
  ].join("\n");
  return (
    <NodeChrome node={node.id} inputs={1} connectable={false}>
      <div
        className={`diff-node diff-node--${change}${selected ? " is-selected" : ""}`}
        data-testid={`diff-node-${node.id}`}
        data-change={change}
        title={title}
      >
        <div className="diff-node__title">
          <span className="diff-node__name">{node.name}</span>
          {change !== "unchanged" && (
            <span className="diff-node__mark" aria-label={change}>
              {MARKS[change]}
            </span>
          )}
        </div>
        <div className="diff-node__meta">
          <span className="diff-node__kind">{node.operator ?? "operator"}</span>
          {savepoint !== null && (
            <span className={`state-pill state-pill--${savepoint.verdict}`}>
              {STATE[savepoint.verdict]}
            </span>
          )}
        </div>
        {fields.length > 0 && (
          <div className="diff-node__fields">{fields.map((f) => f.field).join(", ")}</div>
        )}
      </div>
    </NodeChrome>
  );
});
