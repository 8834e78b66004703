/**
 * The compared graph as React Flow takes it, from the diff graph
 * (`diffModel.ts`): its nodes (`DiffNodeView`) and edges (`DiffEdgeView`).
 */

import type { Edge, Node } from "@xyflow/react";

import { NODE_HEIGHT, NODE_WIDTH } from "../canvas/geometry";
import type { DiffEdge, DiffGraph, DiffNode } from "./diffModel";

export interface DiffNodeData {
  readonly item: DiffNode;
  readonly [key: string]: unknown;
}

export interface DiffEdgeData {
  readonly item: DiffEdge;
  readonly [key: string]: unknown;
}

export type DiffFlowNode = Node<DiffNodeData, "diff">;
export type DiffFlowEdge = Edge<DiffEdgeData, "diff">;

/** Every node of the compared graph; the one with id `selected` is drawn selected. */
export function diffFlowNodes(graph: DiffGraph, selected: number | null): DiffFlowNode[] {
  return graph.nodes.map((item) => ({
    id: item.id,
    type: "diff",
    position: item.position,
    data: { item },
    width: NODE_WIDTH,
    height: NODE_HEIGHT,
    // Removed nodes lie under the new version's, where they overlap.
    zIndex: item.change === "removed" ? 0 : 1,
    selected: item.node.id === selected,
  }));
}

/** Every edge of the compared graph, the removed ones drawn under the others. */
export function diffFlowEdges(graph: DiffGraph): DiffFlowEdge[] {
  return graph.edges.map((item) => ({
    id: `${item.change === "removed" ? "old" : "new"}:${item.id}`,
    type: "diff",
    source: item.source,
    target: item.target,
    data: { item },
    zIndex: item.change === "removed" ? 0 : 2,
  }));
}
