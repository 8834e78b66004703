import { useReactFlow } from "@xyflow/react";
import { useEffect, useMemo } from "react";

import { PlainEdge } from "../canvas/PlainEdge";
import { ReadOnlyFlow } from "../canvas/ReadOnlyFlow";
import { useRunPage, useRunView } from "./context";
import { runFlowEdges, runFlowNodes, type RunFlowNode } from "./runFlow";
import { RunOperatorNode } from "./RunOperatorNode";
import { runLayout, type VertexBox } from "./runCanvasModel";
import { RunVertexBox } from "./RunVertexBox";

const NODE_TYPES = { runOperator: RunOperatorNode, runVertex: RunVertexBox };
const EDGE_TYPES = { plain: PlainEdge };
const FIT_VIEW = { padding: 0.12, maxZoom: 1 };

/**
 * The version's graph, read-only, in run mode: a box per JobVertex with its
 * live figures, operators inside, failures marked where they happened.
 */
export function RunCanvas() {
  const { document, facts, view } = useRunPage();
  const layout = useMemo(
    () => (document === null ? null : runLayout(document, [...facts.values()])),
    [document, facts],
  );
  const nodes = useMemo(() => (layout === null ? [] : runFlowNodes(layout)), [layout]);
  const edges = useMemo(() => (layout === null ? [] : runFlowEdges(layout)), [layout]);

  if (layout === null) {
    return <div className="page-loading">The version's graph could not be read.</div>;
  }
  return (
    <ReadOnlyFlow<RunFlowNode>
      className="run-canvas"
      testId="run-canvas"
      nodes={nodes}
      edges={edges}
      nodeTypes={NODE_TYPES}
      edgeTypes={EDGE_TYPES}
      fitViewOptions={FIT_VIEW}
      onNodeClick={(_event, node) => {
        const vertex = node.data.vertex;
        if (vertex !== null) {
          view.getState().selectVertex(vertex);
        }
      }}
    >
      <VertexFocus boxes={layout.boxes} />
    </ReadOnlyFlow>
  );
}

/** Brings the selected vertex into view when the page asks for it (`focusSerial`). */
function VertexFocus({ boxes }: { readonly boxes: readonly VertexBox[] }) {
  const { view } = useRunPage();
  const flow = useReactFlow();
  const focusSerial = useRunView((state) => state.focusSerial);

  useEffect(() => {
    const vertex = view.getState().vertex;
    const box = boxes.find((item) => item.vertex === vertex);
    if (focusSerial > 0 && box !== undefined) {
      // Centre the vertex; zoom in only as far as reading its figures needs.
      void flow.setCenter(box.x + box.width / 2, box.y + box.height / 2, {
        zoom: Math.min(Math.max(flow.getZoom(), 0.6), 1),
        duration: 300,
      });
    }
  }, [focusSerial, flow, view, boxes]);

  return null;
}
