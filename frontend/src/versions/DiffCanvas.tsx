import { MiniMap, useReactFlow } from "@xyflow/react";
import { useEffect, useMemo } from "react";

import { ReadOnlyFlow } from "../canvas/ReadOnlyFlow";
import { DiffEdgeView } from "./DiffEdgeView";
import { diffFlowEdges, diffFlowNodes, type DiffFlowEdge, type DiffFlowNode } from "./diffFlow";
import type { DiffGraph, DiffNode } from "./diffModel";
import { DiffNodeView } from "./DiffNodeView";

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

/**
 * The compared graph, read-only: nodes and edges coloured by how they changed. A page
 * that lets nodes be picked (the review page, to comment on one) passes `onPick` and
 * draws the picked node selected.
 */
export function DiffCanvas({
  graph,
  focus,
  picked = null,
  onPick,
}: {
  readonly graph: DiffGraph;
  readonly focus: Focus | null;
  readonly picked?: number | null;
  readonly onPick?: (node: number) => void;
}) {
  const selected = picked ?? focus?.node ?? null;
  const nodes = useMemo(() => diffFlowNodes(graph, selected), [graph, selected]);
  const edges = useMemo(() => diffFlowEdges(graph), [graph]);
  return (
    <ReadOnlyFlow<DiffFlowNode>
      className="diff-canvas"
      testId="diff-canvas"
      nodes={nodes}
      edges={edges}
      nodeTypes={NODE_TYPES}
      edgeTypes={EDGE_TYPES}
      {...(onPick === undefined
        ? {}
        : {
            onNodeClick: (_event: unknown, node: DiffFlowNode) => {
              onPick(node.data.item.node.id);
            },
          })}
    >
      <MiniMap<DiffFlowNode>
        style={{ width: 160, height: 110 }}
        pannable
        zoomable
        nodeColor={(node) => MINIMAP_COLOURS[node.data.item.change]}
      />
      <NodeFocus focus={focus} />
    </ReadOnlyFlow>
  );
}

/** Brings the focused node into view, once per request. */
function NodeFocus({ focus }: { readonly focus: Focus | null }) {
  const flow = useReactFlow<DiffFlowNode, DiffFlowEdge>();
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
  return null;
}
