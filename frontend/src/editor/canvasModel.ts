/**
 * What the canvas draws, computed from the document, the live plan, the
 * selection and the other users' presence: React Flow nodes for operators and
 * for chain boxes, and edges coloured by whether they chain.
 *
 * A large pipeline is redrawn on every edit, so `CanvasModel` keeps the objects
 * it built last time and hands back the very same object for every element
 * whose inputs did not change: React Flow then re-renders only what changed.
 */

import type { Edge, Node } from "@xyflow/react";

import type { OperatorSpec } from "../api/resources";
import type { PresenceEntry } from "../api/messages";
import { toCanvas, type CanvasPosition } from "../graph/canvas";
import type { LivePlan, PlanVertex } from "../graph/liveplan";
import type { Diagnostic, StreamEdge, StreamGraphDocument, StreamNode } from "../graph/streamgraph";
import { colourOf, initialOf } from "../ui/avatar";

/** Every operator is drawn at this size, so chain boxes can be computed without measuring. */
export const NODE_WIDTH = 172;
export const NODE_HEIGHT = 62;
const CHAIN_PADDING = 10;
const CHAIN_HEADER = 22;

export interface PresenceMark {
  readonly clientId: string;
  readonly username: string;
  readonly colour: string;
  readonly initial: string;
}

export interface OperatorNodeData {
  readonly node: StreamNode;
  readonly spec: OperatorSpec | null;
  /**
   * The parallelism the node runs with (the job's default applied), from the document shown:
   * a local edit shows at once, not after the server has compiled it into the plan.
   */
  readonly parallelism: number;
  readonly parallelismIsDefault: boolean;
  readonly operatorId: string | null;
  readonly vertex: string | null;
  /** True for the first operator of a chain of two or more. */
  readonly chainHead: boolean;
  /** Input handles to draw: none for a source, one per input of a two-input operator. */
  readonly inputHandles: 0 | 1 | 2;
  readonly diagnostics: readonly Diagnostic[];
  readonly presence: readonly PresenceMark[];
  readonly [key: string]: unknown;
}

export interface ChainNodeData {
  readonly vertexId: string;
  readonly vertex: PlanVertex;
  readonly width: number;
  readonly height: number;
  readonly [key: string]: unknown;
}

export interface PlanEdgeData {
  readonly edge: StreamEdge;
  readonly index: number;
  readonly chained: boolean | null;
  readonly reasons: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
  readonly presence: readonly PresenceMark[];
  readonly [key: string]: unknown;
}

export type OperatorFlowNode = Node<OperatorNodeData, "operator">;
export type ChainFlowNode = Node<ChainNodeData, "chain">;
export type FlowNode = OperatorFlowNode | ChainFlowNode;
export type FlowEdge = Edge<PlanEdgeData, "plan">;

export interface CanvasInputs {
  readonly document: StreamGraphDocument;
  readonly plan: LivePlan | null;
  readonly specs: ReadonlyMap<string, OperatorSpec>;
  readonly selectedNodes: ReadonlySet<number>;
  readonly selectedEdges: ReadonlySet<string>;
  readonly others: Readonly<Record<string, PresenceEntry>>;
  /** Positions of nodes being dragged, by node id. */
  readonly dragging: ReadonlyMap<number, CanvasPosition>;
}

export function effectiveParallelism(document: StreamGraphDocument, node: StreamNode): number {
  const parallelism = node.parallelism ?? -1;
  return parallelism > 0 ? parallelism : (document.config?.defaultParallelism ?? 1);
}

export interface ElementDiagnostics {
  readonly nodes: ReadonlyMap<number, readonly Diagnostic[]>;
  readonly edges: ReadonlyMap<number, readonly Diagnostic[]>;
  readonly global: readonly Diagnostic[];
}

export function diagnosticsByElement(diagnostics: readonly Diagnostic[]): ElementDiagnostics {
  const nodes = new Map<number, Diagnostic[]>();
  const edges = new Map<number, Diagnostic[]>();
  const global: Diagnostic[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.edge !== null) {
      edges.set(diagnostic.edge, [...(edges.get(diagnostic.edge) ?? []), diagnostic]);
    } else if (diagnostic.node !== null) {
      nodes.set(diagnostic.node, [...(nodes.get(diagnostic.node) ?? []), diagnostic]);
    } else {
      global.push(diagnostic);
    }
  }
  return { nodes, edges, global };
}

export interface PresenceMarks {
  readonly nodes: ReadonlyMap<number, readonly PresenceMark[]>;
  readonly edges: ReadonlyMap<string, readonly PresenceMark[]>;
}

export function presenceMarks(others: Readonly<Record<string, PresenceEntry>>): PresenceMarks {
  const nodes = new Map<number, PresenceMark[]>();
  const edges = new Map<string, PresenceMark[]>();
  for (const entry of Object.values(others)) {
    const mark: PresenceMark = {
      clientId: entry.clientId,
      username: entry.user.username,
      colour: colourOf(entry.user.id),
      initial: initialOf(entry.user.username),
    };
    for (const node of entry.selection.nodes) {
      nodes.set(node, [...(nodes.get(node) ?? []), mark]);
    }
    for (const edge of entry.selection.edges) {
      const id = edge.join("-");
      edges.set(id, [...(edges.get(id) ?? []), mark]);
    }
  }
  return { nodes, edges };
}

/** The box around a chain's operators (only chains of two or more are boxed). */
export function chainBox(
  vertex: PlanVertex,
  positions: ReadonlyMap<number, CanvasPosition>,
): { x: number; y: number; width: number; height: number } | null {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const nodeId of vertex.nodes) {
    const position = positions.get(nodeId);
    if (position === undefined) {
      return null;
    }
    left = Math.min(left, position.x);
    top = Math.min(top, position.y);
    right = Math.max(right, position.x + NODE_WIDTH);
    bottom = Math.max(bottom, position.y + NODE_HEIGHT);
  }
  return {
    x: left - CHAIN_PADDING,
    y: top - CHAIN_PADDING - CHAIN_HEADER,
    width: right - left + 2 * CHAIN_PADDING,
    height: bottom - top + 2 * CHAIN_PADDING + CHAIN_HEADER,
  };
}

const NO_DIAGNOSTICS: readonly Diagnostic[] = [];
const NO_MARKS: readonly PresenceMark[] = [];

function sameArray<T>(a: readonly T[], b: readonly T[]): boolean {
  return a === b || (a.length === b.length && a.every((item, i) => item === b[i]));
}

function sameMarks(a: readonly PresenceMark[], b: readonly PresenceMark[]): boolean {
  return (
    a === b || (a.length === b.length && a.every((mark, i) => mark.clientId === b[i]?.clientId))
  );
}

function sameOperatorData(a: OperatorNodeData, b: OperatorNodeData): boolean {
  return (
    a.node === b.node &&
    a.spec === b.spec &&
    a.parallelism === b.parallelism &&
    a.parallelismIsDefault === b.parallelismIsDefault &&
    a.operatorId === b.operatorId &&
    a.vertex === b.vertex &&
    a.chainHead === b.chainHead &&
    a.inputHandles === b.inputHandles &&
    sameArray(a.diagnostics, b.diagnostics) &&
    sameMarks(a.presence, b.presence)
  );
}

function sameEdgeData(a: PlanEdgeData, b: PlanEdgeData): boolean {
  return (
    a.edge === b.edge &&
    a.index === b.index &&
    a.chained === b.chained &&
    sameArray(a.reasons, b.reasons) &&
    sameArray(a.diagnostics, b.diagnostics) &&
    sameMarks(a.presence, b.presence)
  );
}

function unchanged(
  previous: { readonly selected?: boolean; readonly position: CanvasPosition },
  selected: boolean,
  position: CanvasPosition,
): boolean {
  return (
    (previous.selected ?? false) === selected &&
    previous.position.x === position.x &&
    previous.position.y === position.y
  );
}

/** Builds the canvas elements, reusing the previous objects of unchanged elements. */
export class CanvasModel {
  private operators = new Map<string, OperatorFlowNode>();
  private chains = new Map<string, ChainFlowNode>();
  private edges = new Map<string, FlowEdge>();

  build(inputs: CanvasInputs): { nodes: FlowNode[]; edges: FlowEdge[] } {
    const { document, plan } = inputs;
    const canvas = toCanvas(document, plan);
    const diagnostics = diagnosticsByElement(plan?.diagnostics ?? []);
    const presence = presenceMarks(inputs.others);
    const positions = new Map<number, CanvasPosition>();
    const heads = new Set<number>();
    if (plan !== null) {
      for (const vertex of Object.values(plan.vertices)) {
        if (vertex.nodes.length > 1) {
          heads.add(vertex.head);
        }
      }
    }

    const inputTypes = new Map<number, number>();
    for (const item of canvas.edges) {
      const typeNumber = item.data.edge.typeNumber ?? 0;
      inputTypes.set(
        item.data.edge.target,
        Math.max(inputTypes.get(item.data.edge.target) ?? 0, typeNumber + 1),
      );
    }

    const operators = new Map<string, OperatorFlowNode>();
    const nodes: FlowNode[] = [];
    for (const item of canvas.nodes) {
      const node = item.data.node;
      const position = inputs.dragging.get(node.id) ?? item.position;
      positions.set(node.id, position);
      const vertex = item.data.vertex;
      const spec = inputs.specs.get(node.operator ?? "") ?? null;
      const data: OperatorNodeData = {
        node,
        spec,
        parallelism: effectiveParallelism(document, node),
        parallelismIsDefault: (node.parallelism ?? -1) <= 0,
        operatorId: item.data.operatorId,
        vertex,
        chainHead: heads.has(node.id),
        inputHandles: inputHandles(spec, inputTypes.get(node.id)),
        diagnostics: diagnostics.nodes.get(node.id) ?? NO_DIAGNOSTICS,
        presence: presence.nodes.get(node.id) ?? NO_MARKS,
      };
      const selected = inputs.selectedNodes.has(node.id);
      const previous = this.operators.get(item.id);
      const reused =
        previous !== undefined &&
        unchanged(previous, selected, position) &&
        sameOperatorData(previous.data, data);
      const flowNode: OperatorFlowNode = reused
        ? previous
        : {
            id: item.id,
            type: "operator",
            position,
            data,
            selected,
            width: NODE_WIDTH,
            height: NODE_HEIGHT,
            zIndex: 1,
          };
      operators.set(item.id, flowNode);
      nodes.push(flowNode);
    }
    this.operators = operators;

    const chains = new Map<string, ChainFlowNode>();
    if (plan !== null) {
      for (const [vertexId, vertex] of Object.entries(plan.vertices)) {
        if (vertex.nodes.length < 2) {
          continue;
        }
        const box = chainBox(vertex, positions);
        if (box === null) {
          continue;
        }
        const id = `chain:${vertexId}`;
        const previous = this.chains.get(id);
        const reused =
          previous !== undefined &&
          unchanged(previous, false, box) &&
          previous.data.vertex === vertex &&
          previous.data.width === box.width &&
          previous.data.height === box.height;
        const chain: ChainFlowNode = reused
          ? previous
          : {
              id,
              type: "chain",
              position: { x: box.x, y: box.y },
              data: { vertexId, vertex, width: box.width, height: box.height },
              width: box.width,
              height: box.height,
              selectable: false,
              draggable: false,
              connectable: false,
              focusable: false,
              zIndex: 0,
            };
        chains.set(id, chain);
        // Chain boxes go first so operators are drawn over them.
        nodes.unshift(chain);
      }
    }
    this.chains = chains;

    const edges = new Map<string, FlowEdge>();
    const flowEdges: FlowEdge[] = [];
    for (const item of canvas.edges) {
      const data: PlanEdgeData = {
        edge: item.data.edge,
        index: item.data.index,
        chained: item.data.chained,
        reasons: item.data.reasons,
        diagnostics: diagnostics.edges.get(item.data.index) ?? NO_DIAGNOSTICS,
        presence: presence.edges.get(item.id) ?? NO_MARKS,
      };
      const selected = inputs.selectedEdges.has(item.id);
      const targetHandle = targetHandleOf(item.data.edge.typeNumber ?? 0);
      const previous = this.edges.get(item.id);
      const reused =
        previous?.data !== undefined &&
        previous.selected === selected &&
        previous.targetHandle === targetHandle &&
        sameEdgeData(previous.data, data);
      const flowEdge: FlowEdge = reused
        ? previous
        : {
            id: item.id,
            type: "plan",
            source: item.source,
            target: item.target,
            targetHandle,
            data,
            selected,
            zIndex: 2,
          };
      edges.set(item.id, flowEdge);
      flowEdges.push(flowEdge);
    }
    this.edges = edges;
    return { nodes, edges: flowEdges };
  }
}

/** The target handle of an edge: two-input operators have one handle per input. */
export function targetHandleOf(typeNumber: number): string {
  return typeNumber === 1 ? "in1" : typeNumber === 2 ? "in2" : "in";
}

export function typeNumberOf(targetHandle: string | null | undefined): number {
  return targetHandle === "in1" ? 1 : targetHandle === "in2" ? 2 : 0;
}

/**
 * `seen` is 1 + the highest typeNumber among the node's inputs (undefined
 * without inputs): a node with inputs at position 1 or 2 is drawn with two.
 */
function inputHandles(spec: OperatorSpec | null, seen: number | undefined): 0 | 1 | 2 {
  if (spec?.inputs === 2 || (seen !== undefined && seen > 1)) {
    return 2;
  }
  if (spec?.inputs === 0 && seen === undefined) {
    return 0;
  }
  return 1;
}
