import type { NodeProps } from "@xyflow/react";
import { memo } from "react";

import { NodeChrome } from "../canvas/NodeChrome";
import { useShallow } from "../store/hooks";
import { subtasksOf } from "../store/run";
import { useRun } from "./context";
import type { RunOperatorFlowNode } from "./runFlow";
import { failuresByNode } from "./runCanvasModel";

/** What failed on one node: how many attempts, whether one is still failed, the first error. */
function useNodeFailure(vertex: string | null, node: number) {
  return useRun(
    useShallow((state) => {
      if (vertex === null) {
        return { count: 0, current: false, error: null };
      }
      const failures = failuresByNode(subtasksOf(state, vertex)).get(node) ?? [];
      return {
        count: failures.length,
        current: failures.some((failure) => failure.current),
        error: failures[0]?.error ?? null,
      };
    }),
  );
}

/** An operator of the version, read-only: its name and kind, and a mark where it failed. */
export const RunOperatorNode = memo(function RunOperatorNode({
  data,
}: NodeProps<RunOperatorFlowNode>) {
  const { node, vertex, twoInputs } = data;
  const failure = useNodeFailure(vertex, node.id);
  const state =
    failure.count === 0 ? "" : failure.current ? " run-op--failed" : " run-op--recovered";
  const title =
    failure.error === null
      ? `${node.name} (node ${node.id})`
      : `${node.name} (node ${node.id})\n${failure.count} failed attempt${failure.count === 1 ? "" : "s"}:\n${failure.error}`;
  return (
    <NodeChrome node={node.id} inputs={twoInputs ? 2 : 1} connectable={false}>
      <div className={`run-op${state}`} data-testid={`run-op-${node.id}`} title={title}>
        <div className="run-op__name">{node.name}</div>
        <div className="run-op__meta">
          <span className="run-op__kind">{node.operator ?? "operator"}</span>
          {failure.count > 0 && (
            <span
              className={`trouble-mark trouble-mark--${failure.current ? "failed" : "recovered"}`}
            >
              {failure.current ? "failed" : `${failure.count} retried`}
            </span>
          )}
        </div>
      </div>
    </NodeChrome>
  );
});
