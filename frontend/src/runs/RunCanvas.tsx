import {
  Background,
  Controls,
  MarkerType,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type Node,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useEffect, useMemo } from "react";

import { NODE_HEIGHT, NODE_WIDTH } from "../canvas/geometry";
import { PlainEdge } from "../canvas/PlainEdge";
import type { StreamNode } from "../graph/streamgraph";
import { useRunPage, useRunView } from "./context";
import { RunOperatorNode } from "./RunOperatorNode";
import { runLayout, type RunLayout } from "./runCanvasModel";
import { RunVertexBox } from "./RunVertexBox";

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
type RunFlowNode = RunOperatorFlowNode | RunVertexFlowNode;

const NODE_TYPES = { runOperator: RunOperatorNode, runVertex: RunVertexBox };
const EDGE_TYPES = { plain: PlainEdge };

/** The id of a vertex box on the canvas. */
export function vertexNodeId(vertex: string): string {
  return `vertex:${vertex}`;
}

function flowNodes(layout: RunLayout): RunFlowNode[] {
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

function flowEdges(layout: RunLayout): Edge[] {
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

/**
 * The version's graph, read-only, in run mode: a box per JobVertex with its
 * live figures, operators inside, failures marked where they happened.
 */
export function RunCanvas() {
  return (
    <ReactFlowProvider>
      <RunFlow />
    </ReactFlowProvider>
  );
}

function RunFlow() {
  const { document, facts, view } = useRunPage();
  const layout = useMemo(
    () => (document === null ? null : runLayout(document, [...facts.values()])),
    [document, facts],
  );
  const nodes = useMemo(() => (layout === null ? [] : flowNodes(layout)), [layout]);
  const edges = useMemo(() => (layout === null ? [] : flowEdges(layout)), [layout]);
  const flow = useReactFlow();
  const focusSerial = useRunView((state) => state.focusSerial);

  useEffect(() => {
    const vertex = view.getState().vertex;
    const box = layout?.boxes.find((item) => item.vertex === vertex);
    if (focusSerial > 0 && box !== undefined) {
      // Centre the vertex; zoom in only as far as reading its figures needs.
      void flow.setCenter(box.x + box.width / 2, box.y + box.height / 2, {
        zoom: Math.min(Math.max(flow.getZoom(), 0.6), 1),
        duration: 300,
      });
    }
  }, [focusSerial, flow, view, layout]);

  if (layout === null) {
    return <div className="page-loading">The version's graph could not be read.</div>;
  }
  return (
    <div className="run-canvas" data-testid="run-canvas">
      <ReactFlow<RunFlowNode>
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
        fitViewOptions={{ padding: 0.12, maxZoom: 1 }}
        onlyRenderVisibleElements={nodes.length > 400}
        onNodeClick={(_event, node) => {
          const vertex = node.data.vertex;
          if (vertex !== null) {
            view.getState().selectVertex(vertex);
          }
        }}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={20} size={1} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
