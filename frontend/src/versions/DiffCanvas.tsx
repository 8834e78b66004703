import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type Node,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useEffect, useMemo } from "react";

import { NODE_HEIGHT, NODE_WIDTH } from "../canvas/geometry";
import { DiffEdgeView } from "./DiffEdgeView";
import type { DiffEdge, DiffGraph, DiffNode } from "./diffModel";
import { DiffNodeView } from "./DiffNodeView";

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

/** A request to bring a node into view; `serial` tells repeated requests apart. */
export interface Focus {
  readonly node: number;
  readonly serial: number;
}

const NODE_TYPES = { diff: DiffNodeView };
const EDGE_TYPES = { diff: DiffEdgeView };
const MINIMAP_COLOURS: Record<DiffNode["change"], string> = {
  added: "#16a34a",
  removed: "#d1d5db",
  changed: "#d97706",
  unchanged: "#9ca3af",
};

/** The compared graph, read-only: nodes and edges coloured by how they changed. */
export function DiffCanvas(props: { readonly graph: DiffGraph; readonly focus: Focus | null }) {
  return (
    <ReactFlowProvider>
      <DiffFlow {...props} />
    </ReactFlowProvider>
  );
}

function DiffFlow({ graph, focus }: { readonly graph: DiffGraph; readonly focus: Focus | null }) {
  const flow = useReactFlow<DiffFlowNode, DiffFlowEdge>();
  const nodes = useMemo(
    () =>
      graph.nodes.map((item): DiffFlowNode => ({
        id: item.id,
        type: "diff",
        position: item.position,
        data: { item },
        width: NODE_WIDTH,
        height: NODE_HEIGHT,
        // Removed nodes lie under the new version's, where they overlap.
        zIndex: item.change === "removed" ? 0 : 1,
        selected: focus !== null && item.node.id === focus.node,
      })),
    [graph, focus],
  );
  const edges = useMemo(
    () =>
      graph.edges.map((item): DiffFlowEdge => ({
        id: `${item.change === "removed" ? "old" : "new"}:${item.id}`,
        type: "diff",
        source: item.source,
        target: item.target,
        data: { item },
        zIndex: item.change === "removed" ? 0 : 2,
      })),
    [graph],
  );

  useEffect(() => {
    if (focus !== null) {
      void flow.fitView({
        nodes: [{ id: String(focus.node) }],
        duration: 300,
        maxZoom: 1.2,
        padding: 0.6,
      });
    }
  }, [focus, flow]);

  return (
    <div className="diff-canvas" data-testid="diff-canvas">
      <ReactFlow<DiffFlowNode, DiffFlowEdge>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        edgeTypes={EDGE_TYPES}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        deleteKeyCode={null}
        minZoom={0.05}
        maxZoom={2}
        fitView
        fitViewOptions={{ padding: 0.15, maxZoom: 1.1 }}
        onlyRenderVisibleElements={nodes.length > 400}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={20} size={1} />
        <Controls showInteractive={false} />
        <MiniMap<DiffFlowNode>
          style={{ width: 160, height: 110 }}
          pannable
          zoomable
          nodeColor={(node) => MINIMAP_COLOURS[node.data.item.change]}
        />
      </ReactFlow>
    </div>
  );
}
