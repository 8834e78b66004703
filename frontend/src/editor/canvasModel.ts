/**
 * What the canvas draws, computed from the document, the live plan, the
 * selection and the other users' presence.
 *
 * React Flow is given nodes and edges that carry geometry only: id, position,
 * size, handles, selection. What an element shows (an operator's name,
 * parallelism, OperatorID and problems, a chain's name, whether an edge
 * chains, who else has it selected) is its *view*, which the element's
 * component reads by id from the canvas store (`canvasStore.ts`).
 *
 * A large pipeline is rebuilt on every edit, so `CanvasModel` keeps what it
 * built last time and hands back the very same object for every element whose
 * inputs did not change, and the very same arrays when no element's geometry
 * changed. An edit that changes what one operator shows (its parallelism, its
 * name) then re-renders that operator alone: React Flow, whose every update
 * costs time in proportion to the whole graph, is not involved.
 *
 * Operators are drawn at a fixed size with their handles at fixed places
 * (`canvas/geometry.ts`, `canvas/handles.ts`), and React Flow is told both (`width`, `height`, `measured`, `handles`): it draws
 * the edges in the same pass as the nodes instead of measuring every node in
 * the DOM first.
 */

import type { Edge, Node, NodeHandle } from "@xyflow/react";

import type { OperatorSpec } from "../api/resources";
import type { PresenceEntry } from "../api/messages";
import {
  boundsOf,
  boxAroundNodes,
  NODE_HEIGHT,
  NODE_WIDTH,
  type Box,
  type BoxMargins,
} from "../canvas/geometry";
import { OPERATOR_HANDLES, targetHandleOf, type InputHandleCount } from "../canvas/handles";
import {
  canvasEdgeId,
  canvasNodeId,
  fallbackPositions,
  GRID,
  storedPosition,
  type CanvasPosition,
} from "../graph/canvas";
import { edgeKeys } from "../graph/edits";
import { planEdge, planNode, type LivePlan, type PlanVertex } from "../graph/liveplan";
import type {
  Diagnostic,
  Partitioner,
  StreamEdge,
  StreamGraphDocument,
  StreamNode,
} from "../graph/streamgraph";
import { colourOf, initialOf } from "../ui/avatar";

/** A chain box leaves room above its operators for its name line. */
const CHAIN_MARGINS: BoxMargins = { padding: 10, header: 22, footer: 0 };

export interface PresenceMark {
  readonly clientId: string;
  readonly username: string;
  readonly colour: string;
  readonly initial: string;
}

/** What an operator shows. */
export interface OperatorView {
  readonly node: StreamNode;
  readonly spec: OperatorSpec | null;
  /**
   * The parallelism the node runs with (the job's default applied), from the document shown:
   * a local edit shows at once, not after the server has compiled it into the plan.
   */
  readonly parallelism: number;
  readonly parallelismIsDefault: boolean;
  /** From the plan (null without one): they follow when the server has compiled an edit. */
  readonly operatorId: string | null;
  readonly vertex: string | null;
  /** True for the first operator of a chain of two or more. */
  readonly chainHead: boolean;
  /** Input handles to draw: none for a source, one per input of a two-input operator. */
  readonly inputHandles: InputHandleCount;
  readonly diagnostics: readonly Diagnostic[];
  readonly presence: readonly PresenceMark[];
}

/** What the box around an operator chain shows. */
export interface ChainView {
  readonly vertexId: string;
  readonly vertex: PlanVertex;
  readonly width: number;
  readonly height: number;
}

/** What a stream edge shows. */
export interface EdgeView {
  readonly edge: StreamEdge;
  /** Position in the document's edge list (how the plan and diagnostics name edges). */
  readonly index: number;
  /** The partitioner the plan resolved the edge to; null while the plan has no entry. */
  readonly partitioner: Partitioner | null;
  /** False when the document chose none and Flink's default applies. */
  readonly partitionerChosen: boolean;
  readonly chained: boolean | null;
  readonly reasons: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
  readonly presence: readonly PresenceMark[];
}

/** The partitioner an edge's label names: the chosen one, or Flink's default as resolved. */
export function partitionerLabel(view: EdgeView): string {
  const chosen = view.edge.partitioner ?? null;
  if (chosen !== null) {
    return chosen;
  }
  return view.partitioner === null ? "default" : `${view.partitioner} (default)`;
}

/**
 * The CSS modifiers of an edge's line and label for its partitioner: a default
 * (unchosen) one is drawn lighter and dashed, "FORWARD (default)"; a chosen one solid.
 */
export function partitionerClass(view: EdgeView | undefined): string {
  return view === undefined || view.partitionerChosen ? "" : " is-default";
}

/** React Flow's `data` of every element: empty, as what an element shows is its view. */
export type NoData = Record<string, never>;

export type OperatorFlowNode = Node<NoData, "operator">;
export type ChainFlowNode = Node<NoData, "chain">;
export type FlowNode = OperatorFlowNode | ChainFlowNode;
export type FlowEdge = Edge<NoData, "plan">;

/** One build: React Flow's elements and the views of what they show. */
export interface CanvasFrame {
  /** Chain boxes first, so operators are drawn over them; never modified once handed out. */
  readonly nodes: FlowNode[];
  readonly edges: FlowEdge[];
  /** By canvas node id. */
  readonly operators: ReadonlyMap<string, OperatorView>;
  /** By chain node id (`chain:<JobVertexID>`). */
  readonly chains: ReadonlyMap<string, ChainView>;
  /** By canvas edge id. */
  readonly edgeViews: ReadonlyMap<string, EdgeView>;
  /**
   * The ids whose view is new, changed or gone since the frame before. Node ids
   * (digits), chain ids (`chain:`) and edge ids (with dashes) never look alike.
   */
  readonly changed: readonly string[];
  /** The box around every node drawn; null when there is none. */
  readonly bounds: Box | null;
}

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
): Box | null {
  const members: CanvasPosition[] = [];
  for (const nodeId of vertex.nodes) {
    const position = positions.get(nodeId);
    if (position === undefined) {
      return null;
    }
    members.push(position);
  }
  return boxAroundNodes(members, CHAIN_MARGINS);
}

/**
 * `seen` is 1 + the highest typeNumber among the node's inputs (undefined
 * without inputs): a node with inputs at position 1 or 2 is drawn with two.
 */
function inputHandles(spec: OperatorSpec | null, seen: number | undefined): InputHandleCount {
  if (spec?.inputs === 2 || (seen !== undefined && seen > 1)) {
    return 2;
  }
  if (spec?.inputs === 0 && seen === undefined) {
    return 0;
  }
  return 1;
}

const NO_DATA: NoData = Object.freeze({});
const NO_DIAGNOSTICS: readonly Diagnostic[] = [];
const NO_MARKS: readonly PresenceMark[] = [];
const NO_REASONS: readonly string[] = [];
const NO_EDGES: readonly StreamEdge[] = [];
const NO_HANDLES: NodeHandle[] = [];
const ORIGIN: CanvasPosition = { x: GRID.left, y: GRID.top };

function sameDiagnostic(a: Diagnostic, b: Diagnostic | undefined): boolean {
  return (
    a === b ||
    (a.code === b?.code &&
      a.severity === b.severity &&
      a.message === b.message &&
      a.node === b.node &&
      a.edge === b.edge &&
      a.field === b.field)
  );
}

/** Diagnostics by value: a plan delta carries new objects for the same problems. */
function sameDiagnostics(a: readonly Diagnostic[], b: readonly Diagnostic[]): boolean {
  return a === b || (a.length === b.length && a.every((item, i) => sameDiagnostic(item, b[i])));
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((item, i) => item === b[i]));
}

function sameMarks(a: readonly PresenceMark[], b: readonly PresenceMark[]): boolean {
  return (
    a === b || (a.length === b.length && a.every((mark, i) => mark.clientId === b[i]?.clientId))
  );
}

function samePosition(a: CanvasPosition, b: CanvasPosition): boolean {
  return a === b || (a.x === b.x && a.y === b.y);
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** The elements of `next`, or `previous` itself when they are the very same ones. */
function sameOr<T>(previous: T[], next: T[]): T[] {
  return sameItems(previous, next) ? previous : next;
}

/** Adds to `changed` the ids of `previous` that `next` no longer has. */
function gone(
  previous: ReadonlyMap<string, unknown>,
  next: ReadonlyMap<string, unknown>,
  changed: string[],
): void {
  if (previous === next) {
    return;
  }
  let kept = 0;
  for (const id of next.keys()) {
    if (previous.has(id)) {
      kept += 1;
    }
  }
  if (kept === previous.size) {
    return;
  }
  for (const id of previous.keys()) {
    if (!next.has(id)) {
      changed.push(id);
    }
  }
}

function samePositions(
  a: ReadonlyMap<number, CanvasPosition>,
  b: ReadonlyMap<number, CanvasPosition>,
): boolean {
  if (a.size !== b.size) {
    return false;
  }
  for (const [id, position] of a) {
    const other = b.get(id);
    if (other === undefined || !samePosition(position, other)) {
      return false;
    }
  }
  return true;
}

/** Remembers the last result of `compute` for the last argument, by identity. */
function lastOf<A, R>(compute: (argument: A) => R): (argument: A) => R {
  let last: { argument: A; result: R } | null = null;
  return (argument) => {
    if (last === null || last.argument !== argument) {
      last = { argument, result: compute(argument) };
    }
    return last.result;
  };
}

const EMPTY_FRAME: CanvasFrame = {
  nodes: [],
  edges: [],
  operators: new Map(),
  chains: new Map(),
  edgeViews: new Map(),
  changed: [],
  bounds: null,
};

/** Builds the canvas frame by frame, reusing the objects of unchanged elements. */
export class CanvasModel {
  private frame: CanvasFrame = EMPTY_FRAME;
  private operatorNodes = new Map<string, OperatorFlowNode>();
  private chainNodes: ChainFlowNode[] = [];
  private lastChains: {
    readonly vertices: LivePlan["vertices"] | null;
    readonly positions: ReadonlyMap<number, CanvasPosition>;
  } | null = null;
  private lastEdges: {
    readonly inputs: readonly unknown[];
    readonly edges: FlowEdge[];
    readonly views: ReadonlyMap<string, EdgeView>;
  } | null = null;

  /** The last edge list seen, kept while edits copy the list without changing it. */
  private streamEdges: readonly StreamEdge[] = NO_EDGES;
  private readonly stored = new WeakMap<StreamNode, CanvasPosition | null>();
  private readonly diagnosticsOf = lastOf((list: readonly Diagnostic[]) =>
    diagnosticsByElement(list),
  );
  private readonly presenceOf = lastOf((others: Readonly<Record<string, PresenceEntry>>) =>
    presenceMarks(others),
  );
  private readonly keysOf = lastOf((edges: readonly StreamEdge[]) =>
    edgeKeys({ format: "streamgraph/v1", nodes: [], edges }),
  );
  /** 1 + the highest typeNumber of each node's inputs. */
  private readonly inputTypesOf = lastOf((edges: readonly StreamEdge[]) => {
    const types = new Map<number, number>();
    for (const edge of edges) {
      const typeNumber = edge.typeNumber ?? 0;
      types.set(edge.target, Math.max(types.get(edge.target) ?? 0, typeNumber + 1));
    }
    return types;
  });
  private readonly headsOf = lastOf((vertices: LivePlan["vertices"] | null) => {
    const heads = new Set<number>();
    for (const vertex of Object.values(vertices ?? {})) {
      if (vertex.nodes.length > 1) {
        heads.add(vertex.head);
      }
    }
    return heads;
  });
  private readonly fallbackOf = lastOf((document: StreamGraphDocument) =>
    fallbackPositions(document),
  );

  build(inputs: CanvasInputs): CanvasFrame {
    const previous = this.frame;
    // An edit copies the edge list even when it changes a node only: the same edges in
    // a new array are taken as the list seen before, so what is built from it is kept.
    const edges = inputs.document.edges ?? NO_EDGES;
    if (!sameItems(this.streamEdges, edges)) {
      this.streamEdges = edges;
    }
    const changed: string[] = [];
    const { operators, operatorNodes, positions } = this.buildOperators(inputs, previous, changed);
    const { chains, chainNodes } = this.buildChains(inputs.plan, positions, previous, changed);
    const { edgeViews, edges: flowEdges } = this.buildEdges(inputs, previous, changed);
    gone(previous.operators, operators, changed);
    gone(previous.chains, chains, changed);
    gone(previous.edgeViews, edgeViews, changed);
    const nodes = sameOr(previous.nodes, [...chainNodes, ...operatorNodes]);
    this.frame = {
      nodes,
      edges: flowEdges,
      operators,
      chains,
      edgeViews,
      changed,
      bounds: nodes === previous.nodes ? previous.bounds : boundsOf(nodes),
    };
    return this.frame;
  }

  private positionOf(node: StreamNode): CanvasPosition | null {
    let position = this.stored.get(node);
    if (position === undefined) {
      position = storedPosition(node);
      this.stored.set(node, position);
    }
    return position;
  }

  private buildOperators(
    inputs: CanvasInputs,
    previous: CanvasFrame,
    changed: string[],
  ): {
    operators: Map<string, OperatorView>;
    operatorNodes: OperatorFlowNode[];
    positions: Map<number, CanvasPosition>;
  } {
    const { document, plan } = inputs;
    const diagnostics = this.diagnosticsOf(plan?.diagnostics ?? NO_DIAGNOSTICS);
    const presence = this.presenceOf(inputs.others);
    const inputTypes = this.inputTypesOf(this.streamEdges);
    const heads = this.headsOf(plan?.vertices ?? null);
    const unplaced = document.nodes.some((node) => this.positionOf(node) === null);
    const fallback = unplaced ? this.fallbackOf(document) : null;

    const operators = new Map<string, OperatorView>();
    const flowNodes = new Map<string, OperatorFlowNode>();
    const operatorNodes: OperatorFlowNode[] = [];
    const positions = new Map<number, CanvasPosition>();
    for (const node of document.nodes) {
      const id = canvasNodeId(node.id);
      const position =
        inputs.dragging.get(node.id) ?? this.positionOf(node) ?? fallback?.get(node.id) ?? ORIGIN;
      positions.set(node.id, position);
      const facts = plan === null ? undefined : planNode(plan, node.id);
      const spec = inputs.specs.get(node.operator ?? "") ?? null;
      const handles = inputHandles(spec, inputTypes.get(node.id));
      const before = previous.operators.get(id);
      const parallelism = effectiveParallelism(document, node);
      const parallelismIsDefault = (node.parallelism ?? -1) <= 0;
      const operatorId = facts?.operatorId ?? null;
      const vertex = facts?.vertex ?? null;
      const chainHead = heads.has(node.id);
      const nodeDiagnostics = diagnostics.nodes.get(node.id) ?? NO_DIAGNOSTICS;
      const nodePresence = presence.nodes.get(node.id) ?? NO_MARKS;
      if (
        before?.node === node &&
        before.spec === spec &&
        before.parallelism === parallelism &&
        before.parallelismIsDefault === parallelismIsDefault &&
        before.operatorId === operatorId &&
        before.vertex === vertex &&
        before.chainHead === chainHead &&
        before.inputHandles === handles &&
        sameDiagnostics(before.diagnostics, nodeDiagnostics) &&
        sameMarks(before.presence, nodePresence)
      ) {
        operators.set(id, before);
      } else {
        operators.set(id, {
          node,
          spec,
          parallelism,
          parallelismIsDefault,
          operatorId,
          vertex,
          chainHead,
          inputHandles: handles,
          diagnostics: nodeDiagnostics,
          presence: nodePresence,
        });
        changed.push(id);
      }

      const selected = inputs.selectedNodes.has(node.id);
      const last = this.operatorNodes.get(id);
      const flowNode: OperatorFlowNode =
        last?.selected === selected &&
        last.handles === OPERATOR_HANDLES[handles] &&
        samePosition(last.position, position)
          ? last
          : {
              id,
              type: "operator",
              position,
              data: NO_DATA,
              selected,
              width: NODE_WIDTH,
              height: NODE_HEIGHT,
              measured: { width: NODE_WIDTH, height: NODE_HEIGHT },
              handles: OPERATOR_HANDLES[handles],
              zIndex: 1,
            };
      flowNodes.set(id, flowNode);
      operatorNodes.push(flowNode);
    }
    this.operatorNodes = flowNodes;
    return { operators, operatorNodes, positions };
  }

  private buildChains(
    plan: LivePlan | null,
    positions: ReadonlyMap<number, CanvasPosition>,
    previous: CanvasFrame,
    changed: string[],
  ): { chains: ReadonlyMap<string, ChainView>; chainNodes: ChainFlowNode[] } {
    const vertices = plan?.vertices ?? null;
    const last = this.lastChains;
    if (last !== null && last.vertices === vertices && samePositions(last.positions, positions)) {
      return { chains: previous.chains, chainNodes: this.chainNodes };
    }
    this.lastChains = { vertices, positions };

    const chains = new Map<string, ChainView>();
    const byId = new Map(this.chainNodes.map((node) => [node.id, node]));
    const chainNodes: ChainFlowNode[] = [];
    for (const [vertexId, vertex] of Object.entries(vertices ?? {})) {
      if (vertex.nodes.length < 2) {
        continue;
      }
      const box = chainBox(vertex, positions);
      if (box === null) {
        continue;
      }
      const id = `chain:${vertexId}`;
      const before = previous.chains.get(id);
      const view: ChainView =
        before?.vertex === vertex && before.width === box.width && before.height === box.height
          ? before
          : { vertexId, vertex, width: box.width, height: box.height };
      if (view !== before) {
        changed.push(id);
      }
      chains.set(id, view);
      const lastNode = byId.get(id);
      chainNodes.push(
        lastNode?.position.x === box.x &&
          lastNode.position.y === box.y &&
          lastNode.width === box.width &&
          lastNode.height === box.height
          ? lastNode
          : {
              id,
              type: "chain",
              position: { x: box.x, y: box.y },
              data: NO_DATA,
              width: box.width,
              height: box.height,
              measured: { width: box.width, height: box.height },
              handles: NO_HANDLES,
              selectable: false,
              draggable: false,
              connectable: false,
              focusable: false,
              zIndex: 0,
            },
      );
    }
    this.chainNodes = chainNodes;
    return { chains, chainNodes };
  }

  private buildEdges(
    inputs: CanvasInputs,
    previous: CanvasFrame,
    changed: string[],
  ): { edgeViews: ReadonlyMap<string, EdgeView>; edges: FlowEdge[] } {
    const { plan } = inputs;
    const streamEdges = this.streamEdges;
    const diagnostics = this.diagnosticsOf(plan?.diagnostics ?? NO_DIAGNOSTICS);
    const presence = this.presenceOf(inputs.others);
    // Everything an edge's element or view is made of.
    const sources = [streamEdges, plan?.edges, diagnostics, presence, inputs.selectedEdges];
    const last = this.lastEdges;
    if (last !== null && sameItems(last.inputs, sources)) {
      return { edgeViews: last.views, edges: last.edges };
    }

    const keys = this.keysOf(streamEdges);
    const views = new Map<string, EdgeView>();
    const byId = new Map(previous.edges.map((edge) => [edge.id, edge]));
    const edges: FlowEdge[] = [];
    streamEdges.forEach((edge, index) => {
      const key = keys[index] ?? [edge.source, edge.target, 0, 0];
      const id = canvasEdgeId(key);
      const facts = plan === null ? undefined : planEdge(plan, index);
      const before = previous.edgeViews.get(id);
      const view: EdgeView = {
        edge,
        index,
        partitioner: facts?.partitioner ?? null,
        partitionerChosen: (edge.partitioner ?? null) !== null,
        chained: facts?.chained ?? null,
        reasons: facts?.reasons ?? NO_REASONS,
        diagnostics: diagnostics.edges.get(index) ?? NO_DIAGNOSTICS,
        presence: presence.edges.get(id) ?? NO_MARKS,
      };
      if (before !== undefined && sameEdgeView(before, view)) {
        views.set(id, before);
      } else {
        views.set(id, view);
        changed.push(id);
      }
      const selected = inputs.selectedEdges.has(id);
      const targetHandle = targetHandleOf(edge.typeNumber ?? 0);
      const lastEdge = byId.get(id);
      edges.push(
        lastEdge?.selected === selected &&
          lastEdge.targetHandle === targetHandle &&
          lastEdge.source === canvasNodeId(edge.source) &&
          lastEdge.target === canvasNodeId(edge.target)
          ? lastEdge
          : {
              id,
              type: "plan",
              source: canvasNodeId(edge.source),
              target: canvasNodeId(edge.target),
              targetHandle,
              data: NO_DATA,
              selected,
              zIndex: 2,
            },
      );
    });
    const result = { edgeViews: views, edges: sameOr(previous.edges, edges) };
    this.lastEdges = { inputs: sources, edges: result.edges, views };
    return result;
  }
}

function sameEdgeView(a: EdgeView, b: EdgeView): boolean {
  return (
    a.edge === b.edge &&
    a.index === b.index &&
    a.partitioner === b.partitioner &&
    a.partitionerChosen === b.partitionerChosen &&
    a.chained === b.chained &&
    sameStrings(a.reasons, b.reasons) &&
    sameDiagnostics(a.diagnostics, b.diagnostics) &&
    sameMarks(a.presence, b.presence)
  );
}
