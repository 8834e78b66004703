import { Handle, Position } from "@xyflow/react";
import type { ReactNode } from "react";

import { ElementBadges } from "./badges";
import { INPUT_HANDLE_STYLE, type InputHandleCount } from "./handles";
import "./canvas.css";

/**
 * What every operator on every canvas has around its own box: the input
 * handles on the left, the output handle on the right, both on the node's
 * outer box where `OPERATOR_HANDLES` says they are, and the node's badges.
 */
export function NodeChrome(props: {
  /** The StreamNode id. */
  readonly node: number;
  readonly inputs: InputHandleCount;
  /** False where edges are never drawn by hand (read-only canvases). */
  readonly connectable: boolean;
  /** The operator's own box. */
  readonly children: ReactNode;
}) {
  const { inputs, connectable } = props;
  return (
    <>
      {inputs === 1 && (
        <Handle type="target" position={Position.Left} id="in" isConnectable={connectable} />
      )}
      {inputs === 2 && (
        <>
          <Handle
            type="target"
            position={Position.Left}
            id="in1"
            style={INPUT_HANDLE_STYLE.in1}
            isConnectable={connectable}
          />
          <Handle
            type="target"
            position={Position.Left}
            id="in2"
            style={INPUT_HANDLE_STYLE.in2}
            isConnectable={connectable}
          />
        </>
      )}
      {props.children}
      <ElementBadges element={{ kind: "node", node: props.node }} />
      <Handle type="source" position={Position.Right} id="out" isConnectable={connectable} />
    </>
  );
}
