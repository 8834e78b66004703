import {
  MiniMap,
  ReactFlow,
  useReactFlow,
  type Connection,
  type EdgeChange,
  type NodeChange,
  type OnSelectionChangeParams,
  type Viewport,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import {
  memo,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";

import { FlowBackdrop } from "../canvas/FlowBackdrop";
import {
  fittedViewport,
  MAX_NODES_ALL_DRAWN,
  MAX_ZOOM,
  MIN_ZOOM,
  PRO_OPTIONS,
} from "../canvas/flowSettings";
import { typeNumberOf } from "../canvas/handles";
import type { CanvasPosition } from "../graph/canvas";
import { canvasNodeId, nodeIdOf } from "../graph/canvas";
import type { NodeMove } from "../graph/edits";
import { CanvasContext, useCanvasSources } from "./canvasContext";
import type { FlowEdge, FlowNode } from "./canvasModel";
import { ChainNode } from "./ChainNode";
import { newEdge, newOperator } from "./commands";
import { useDocumentStore, useEditor, useSelection } from "./context";
import { OperatorNode } from "./OperatorNode";
import { PALETTE_MIME } from "./Palette";
import { PlanEdge } from "./PlanEdge";

const NODE_TYPES = { operator: OperatorNode, chain: ChainNode };
const EDGE_TYPES = { plan: PlanEdge };
const SNAP: [number, number] = [10, 10];
const MULTI_SELECTION_KEYS = ["Meta", "Control"];

/** The pipeline on the canvas: operators, chain boxes, edges; drag, connect, select, drop. */
export const Canvas = memo(function Canvas({
  onNotice,
}: {
  readonly onNotice: (message: string) => void;
}) {
  const { session, selection, catalog, canEdit } = useEditor();
  const focus = useSelection((state) => state.focus);
  const revision = useDocumentStore((state) => state.revision);
  const flow = useReactFlow<FlowNode, FlowEdge>();
  const specs = useMemo(
    () => new Map(catalog.operators.map((spec) => [spec.kind, spec])),
    [catalog],
  );
  const canvas = useCanvasSources(session, selection, specs);
  const { nodes, edges, bounds } = useSyncExternalStore(canvas.subscribe, canvas.getFrame);

  // The pipeline opens fitted to the canvas: the viewport is computed before the
  // first nodes are drawn, so they are drawn once, at their final size.
  const container = useRef<HTMLDivElement>(null);
  const [initialViewport, setInitialViewport] = useState<Viewport | null>(null);
  useLayoutEffect(() => {
    if (initialViewport === null && container.current !== null) {
      const { width, height } = container.current.getBoundingClientRect();
      setInitialViewport(fittedViewport(bounds, width, height));
    }
  }, [initialViewport, bounds]);

  // Bring revealed elements into view (problems list, JobGraph view).
  const lastFocus = useRef(0);
  useEffect(() => {
    if (focus === null || focus.serial === lastFocus.current) {
      return;
    }
    lastFocus.current = focus.serial;
    const ids = new Set(focus.nodes.map(canvasNodeId));
    if (focus.edge !== null) {
      const [source, target] = focus.edge.split("-");
      for (const id of [source, target]) {
        if (id !== undefined) {
          ids.add(id);
        }
      }
    }
    if (ids.size > 0) {
      void flow.fitView({
        nodes: [...ids].map((id) => ({ id })),
        duration: 300,
        maxZoom: 1.2,
        padding: 0.4,
      });
    }
  }, [focus, flow]);

  const onNodesChange = useCallback(
    (changes: NodeChange<FlowNode>[]) => {
      let moved: Map<number, CanvasPosition> | null = null;
      let selected: Set<number> | null = null;
      for (const change of changes) {
        if (
          change.type === "position" &&
          change.position !== undefined &&
          change.dragging === true
        ) {
          const id = nodeIdOf(change.id);
          if (id !== null) {
            moved ??= new Map();
            moved.set(id, change.position);
          }
        } else if (change.type === "select") {
          const id = nodeIdOf(change.id);
          if (id !== null) {
            selected ??= new Set(selection.getState().nodes);
            if (change.selected) {
              selected.add(id);
            } else {
              selected.delete(id);
            }
          }
        }
      }
      if (moved !== null) {
        canvas.drag(moved);
      }
      if (selected !== null) {
        selection.getState().select(selected, selection.getState().edges);
      }
    },
    [selection, canvas],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<FlowEdge>[]) => {
      let selected: Set<string> | null = null;
      for (const change of changes) {
        if (change.type === "select") {
          selected ??= new Set(selection.getState().edges);
          if (change.selected) {
            selected.add(change.id);
          } else {
            selected.delete(change.id);
          }
        }
      }
      if (selected !== null) {
        selection.getState().select(selection.getState().nodes, selected);
      }
    },
    [selection],
  );

  const onNodeDragStop = useCallback(
    (_event: MouseEvent | TouchEvent, _node: FlowNode, dragged: FlowNode[]) => {
      const moves: NodeMove[] = [];
      for (const node of dragged) {
        const id = nodeIdOf(node.id);
        if (id !== null) {
          moves.push({
            nodeId: id,
            x: Math.round(node.position.x),
            y: Math.round(node.position.y),
          });
        }
      }
      if (canEdit) {
        session.document.getState().moveOperators(moves);
      }
      canvas.endDrag();
    },
    [session, canEdit, canvas],
  );

  const onConnect = useCallback(
    (connection: Connection) => {
      const current = session.document.getState().document;
      const source = nodeIdOf(connection.source);
      const target = nodeIdOf(connection.target);
      if (current === null || source === null || target === null) {
        return;
      }
      const targetNode = current.nodes.find((node) => node.id === target);
      const spec = specs.get(targetNode?.operator ?? "") ?? null;
      const edge = newEdge(source, target, typeNumberOf(connection.targetHandle), spec);
      const result = session.document.getState().connect(edge);
      if (!result.ok) {
        onNotice(`Cannot connect: ${result.error.message}`);
      }
    },
    [session, specs, onNotice],
  );

  const onDrop = useCallback(
    (event: React.DragEvent) => {
      event.preventDefault();
      const kind = event.dataTransfer.getData(PALETTE_MIME);
      const spec = specs.get(kind);
      const current = session.document.getState().document;
      if (spec === undefined || current === null || !canEdit) {
        return;
      }
      const position = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
      const node = newOperator(current, spec, { x: position.x - 80, y: position.y - 30 });
      const result = session.document.getState().addOperator(node);
      if (result.ok) {
        const added = result.applied[0];
        if (added?.kind === "add_node") {
          selection.getState().select([added.node.id]);
        }
      } else {
        onNotice(`Cannot add ${spec.label}: ${result.error.message}`);
      }
    },
    [session, specs, flow, selection, canEdit, onNotice],
  );

  const onSelectionChange = useCallback(
    ({ nodes: picked, edges: pickedEdges }: OnSelectionChangeParams<FlowNode, FlowEdge>) => {
      // Box selection reports here; clicks come through the change handlers too.
      const ids = picked.map((node) => nodeIdOf(node.id)).filter((id) => id !== null);
      selection.getState().select(
        ids,
        pickedEdges.map((edge) => edge.id),
      );
    },
    [selection],
  );

  return (
    <div
      ref={container}
      className="canvas"
      data-testid="canvas"
      data-revision={revision}
      onDragOver={(event) => {
        event.preventDefault();
        event.dataTransfer.dropEffect = "copy";
      }}
      onDrop={onDrop}
    >
      {initialViewport !== null && (
        <CanvasContext.Provider value={canvas}>
          <ReactFlow<FlowNode, FlowEdge>
            nodes={nodes}
            edges={edges}
            nodeTypes={NODE_TYPES}
            edgeTypes={EDGE_TYPES}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onSelectionChange={onSelectionChange}
            onNodeDragStop={onNodeDragStop}
            onConnect={onConnect}
            nodesDraggable={canEdit}
            nodesConnectable={canEdit}
            deleteKeyCode={null}
            selectionKeyCode="Shift"
            multiSelectionKeyCode={MULTI_SELECTION_KEYS}
            snapToGrid
            snapGrid={SNAP}
            minZoom={MIN_ZOOM}
            maxZoom={MAX_ZOOM}
            defaultViewport={initialViewport}
            onlyRenderVisibleElements={nodes.length > MAX_NODES_ALL_DRAWN}
            proOptions={PRO_OPTIONS}
          >
            <FlowBackdrop />
            <MiniMap pannable zoomable nodeStrokeWidth={2} />
          </ReactFlow>
        </CanvasContext.Provider>
      )}
    </div>
  );
});
