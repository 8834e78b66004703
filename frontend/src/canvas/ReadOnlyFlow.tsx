import {
  ReactFlow,
  ReactFlowProvider,
  type Edge,
  type EdgeTypes,
  type FitViewOptions,
  type Node,
  type NodeMouseHandler,
  type NodeTypes,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import type { ReactNode } from "react";

import { FlowBackdrop } from "./FlowBackdrop";
import { FIT_VIEW, MAX_NODES_ALL_DRAWN, MAX_ZOOM, MIN_ZOOM, PRO_OPTIONS } from "./flowSettings";

/**
 * A pipeline drawn to be looked at, not edited (the diff, the run monitor):
 * nothing is dragged, connected, selected or deleted, and it opens fitted to
 * its canvas. The flow has its own React Flow provider: a component that
 * moves the view is given as a child, inside the flow, where `useReactFlow`
 * reaches it.
 */
export function ReadOnlyFlow<N extends Node>(props: {
  /** The class and test id of the element the flow fills. */
  readonly className: string;
  readonly testId: string;
  readonly nodes: N[];
  readonly edges: Edge[];
  readonly nodeTypes: NodeTypes;
  readonly edgeTypes: EdgeTypes;
  readonly fitViewOptions?: FitViewOptions;
  readonly onNodeClick?: NodeMouseHandler<N>;
  /** Panels (a minimap) and components that move the view. */
  readonly children?: ReactNode;
}) {
  const { nodes, onNodeClick } = props;
  return (
    <div className={props.className} data-testid={props.testId}>
      <ReactFlowProvider>
        <ReactFlow<N>
          nodes={nodes}
          edges={props.edges}
          nodeTypes={props.nodeTypes}
          edgeTypes={props.edgeTypes}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={false}
          deleteKeyCode={null}
          minZoom={MIN_ZOOM}
          maxZoom={MAX_ZOOM}
          fitView
          fitViewOptions={props.fitViewOptions ?? FIT_VIEW}
          onlyRenderVisibleElements={nodes.length > MAX_NODES_ALL_DRAWN}
          {...(onNodeClick === undefined ? {} : { onNodeClick })}
          proOptions={PRO_OPTIONS}
        >
          <FlowBackdrop />
          {props.children}
        </ReactFlow>
      </ReactFlowProvider>
    </div>
  );
}
