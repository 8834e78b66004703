/**
 * An operator's handles, the same on every canvas: its inputs on the left
 * border, its output (`out`) on the right. A one-input operator has `in`, a
 * two-input one (connect, co-map...) `in1` and `in2`, one per typeNumber of its
 * input edges, and a source may have none. `NodeChrome` draws them at these
 * places on every canvas, and the editor tells React Flow where they are so it
 * measures nothing.
 */

import { Position, type NodeHandle } from "@xyflow/react";

import { NODE_HEIGHT, NODE_WIDTH } from "./geometry";

/** Handles are squares of this side centred on the node's left and right borders (canvas.css). */
export const HANDLE_SIZE = 6;
/** Where each input handle's centre sits, as a fraction of the node's height. */
export const INPUT_HANDLE_TOP = { in: 0.5, in1: 0.32, in2: 0.72 } as const;
/** The CSS placing a two-input operator's handles, for the components that draw them. */
export const INPUT_HANDLE_STYLE = {
  in1: { top: `${INPUT_HANDLE_TOP.in1 * 100}%` },
  in2: { top: `${INPUT_HANDLE_TOP.in2 * 100}%` },
} as const;

/** How many input handles an operator is drawn with. */
export type InputHandleCount = 0 | 1 | 2;

/** The target handle of an edge: two-input operators have one handle per input. */
export function targetHandleOf(typeNumber: number): string {
  return typeNumber === 1 ? "in1" : typeNumber === 2 ? "in2" : "in";
}

export function typeNumberOf(targetHandle: string | null | undefined): number {
  return targetHandle === "in1" ? 1 : targetHandle === "in2" ? 2 : 0;
}

function handle(
  id: string,
  type: "source" | "target",
  position: Position,
  top: number,
): NodeHandle {
  const x = position === Position.Right ? NODE_WIDTH : 0;
  return {
    id,
    type,
    position,
    x: x - HANDLE_SIZE / 2,
    y: top * NODE_HEIGHT - HANDLE_SIZE / 2,
    width: HANDLE_SIZE,
    height: HANDLE_SIZE,
  };
}

const OUTPUT = handle("out", "source", Position.Right, 0.5);

/**
 * Where an operator's handles are, relative to its top left corner, as
 * `NodeChrome` draws them: by the number of input handles.
 */
export const OPERATOR_HANDLES: Readonly<Record<InputHandleCount, NodeHandle[]>> = {
  0: [OUTPUT],
  1: [handle("in", "target", Position.Left, INPUT_HANDLE_TOP.in), OUTPUT],
  2: [
    handle("in1", "target", Position.Left, INPUT_HANDLE_TOP.in1),
    handle("in2", "target", Position.Left, INPUT_HANDLE_TOP.in2),
    OUTPUT,
  ],
};
