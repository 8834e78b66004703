/**
 * The run canvas as React Flow takes it, from the run layout
 * (`runCanvasModel.ts`): a node per JobVertex box (`RunVertexBox`) and per
 * operator (`RunOperatorNode`), and the stream edges (`PlainEdge`).
 */

import { MarkerType, type Edge, type Node } from "@xyflow/react";

import { NODE_HEIGHT, NODE_WIDTH } from "../canvas/geometry";
import type { StreamNode } from "../graph/streamgraph";
import type { RunLayout } from "./runCanvasModel";

export interface OperatorData {
  readonly node: StreamNode;
  readonly vertex: string | null;
  readonly twoInputs: boolean;
  readonly [key: string]: unknown;
}

export interface VertexData {
  readonly vertex: string;
  readonly [key: string]: unknown;
}

export type RunOperatorFlowNode = Node<OperatorData, "runOperator">;
export type RunVertexFlowNode = Node<VertexData, "runVertex">;
export type RunFlowNode = RunOperatorFlowNode | RunVertexFlowNode;
export type RunFlowEdge = Edge<Record<string, unknown>, "plain">;

/** The id of a vertex box on the canvas. */
export function vertexNodeId(vertex: string): string {
  return `vertex:${vertex}`;
}

export function runFlowNodes(layout: RunLayout): RunFlowNode[] {
  const boxes = layout.boxes.map((box): RunVertexFlowNode => ({
    id: vertexNodeId(box.vertex),
    type: "runVertex",
    position: { x: box.x, y: box.y },
    data: { vertex: box.vertex },
    width: box.width,
    height: box.height,
    zIndex: 0,
    selectable: false,
  }));
  const operators = layout.operators.map((op): RunOperatorFlowNode => ({
    id: op.id,
    type: "runOperator",
    position: op.position,
    data: { node: op.node, vertex: op.vertex, twoInputs: op.twoInputs },
    width: NODE_WIDTH,
    height: NODE_HEIGHT,
    zIndex: 1,
    selectable: false,
  }));
  return [...boxes, ...operators];
}

export function runFlowEdges(layout: RunLayout): RunFlowEdge[] {
  return layout.edges.map((edge) => ({
    id: edge.id,
    type: "plain",
    source: edge.source,
    target: edge.target,
    targetHandle: edge.targetHandle,
    className: edge.chained ? "run-edge run-edge--chained" : "run-edge run-edge--network",
    zIndex: 2,
    markerEnd: { type: MarkerType.ArrowClosed, width: 14, height: 14 },
    ...(edge.chained ? {} : { label: edge.partitioner }),
  }));
}
