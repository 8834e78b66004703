/**
 * The editor's commands as edits: what adding, connecting, deleting and
 * pasting do to a document. Pure functions, so the canvas, the keyboard and
 * the tests share them; the store applies the edits as one undoable step.
 */

import type { OperatorSpec } from "../api/resources";
import { canvasEdgeId, edgeKeyOf, type CanvasPosition } from "../graph/canvas";
import {
  edgeKeys,
  type EdgeInput,
  type EdgeKey,
  type Edit,
  type InboundEdgeInput,
  type NodeInput,
} from "../graph/edits";
import type { JsonObject } from "../graph/json";
import {
  documentEdges,
  type StreamEdge,
  type StreamGraphDocument,
  type StreamNode,
} from "../graph/streamgraph";
import { defaultParams } from "./operatorKind";

/** The next free node ids, in order. */
export function freeNodeIds(document: StreamGraphDocument, count: number): number[] {
  const highest = Math.max(0, ...document.nodes.map((node) => node.id));
  return Array.from({ length: count }, (_, i) => highest + 1 + i);
}

/** The name a new operator gets: the catalog's, numbered when it is taken. */
export function uniqueName(document: StreamGraphDocument, base: string): string {
  const taken = new Set(document.nodes.map((node) => node.name));
  if (!taken.has(base)) {
    return base;
  }
  for (let n = 2; ; n += 1) {
    const candidate = `${base} ${n}`;
    if (!taken.has(candidate)) {
      return candidate;
    }
  }
}

/** A new operator of a catalog kind at a canvas position, with the catalog's defaults. */
export function newOperator(
  document: StreamGraphDocument,
  spec: OperatorSpec,
  position: CanvasPosition,
): NodeInput {
  const params = defaultParams(spec);
  return {
    id: freeNodeIds(document, 1)[0] ?? 1,
    name: uniqueName(document, spec.defaults.name),
    operator: spec.kind,
    params,
    parallelism: -1,
    maxParallelism: -1,
    chainingStrategy: spec.defaults.chainingStrategy as NodeInput["chainingStrategy"] & string,
    factory: spec.defaults.factory as NodeInput["factory"] & string,
    slotSharingGroup: "default",
    coLocationGroup: null,
    uid: null,
    uidHash: null,
    ui: { x: Math.round(position.x), y: Math.round(position.y) },
  };
}

/**
 * The edge a drag from `source` to `target` makes. A keyed operator is fed by
 * keyBy (HASH, keyed by the whole record until the user sets a key); otherwise the
 * edge chooses no partitioner, as a program that calls no partitioning method: Flink
 * makes it FORWARD between equal parallelism and REBALANCE otherwise, and it follows
 * every later change of either side's parallelism.
 */
export function newEdge(
  source: number,
  target: number,
  typeNumber: number,
  targetSpec: OperatorSpec | null,
): EdgeInput {
  const { source: from, ...fields } = newInboundEdge(source, typeNumber, targetSpec);
  return { source: from, target, ...fields };
}

/** The edge `newEdge` makes, into an operator being added (whose id it does not name). */
export function newInboundEdge(
  source: number,
  typeNumber: number,
  targetSpec: OperatorSpec | null,
): InboundEdgeInput {
  const keyed = targetSpec?.keyed === true;
  const edge: InboundEdgeInput = {
    source,
    partitioner: keyed ? "HASH" : null,
    exchangeMode: "UNDEFINED",
    typeNumber,
    sideOutputTag: null,
  };
  return keyed ? { ...edge, key: { fn: "x" } } : edge;
}

/** The edits that delete these nodes (with their edges) and these edges. */
export function deleteEdits(
  document: StreamGraphDocument,
  nodes: ReadonlySet<number>,
  edges: ReadonlySet<string>,
): Edit[] {
  const keys: EdgeKey[] = [];
  for (const id of edges) {
    const key = edgeKeyOf(id);
    if (key !== null && !nodes.has(key[0]) && !nodes.has(key[1])) {
      keys.push(key);
    }
  }
  // Later duplicates first, so each key still names the same edge when its turn comes.
  keys.sort((a, b) => b[3] - a[3]);
  const edits: Edit[] = keys.map((edgeKey) => ({ kind: "disconnect", edgeKey }));
  for (const node of document.nodes) {
    if (nodes.has(node.id)) {
      edits.push({ kind: "remove_node", nodeId: node.id });
    }
  }
  return edits;
}

/** What copy takes: the selected nodes and the edges between them. */
export interface Clipboard {
  readonly nodes: readonly StreamNode[];
  readonly edges: readonly StreamEdge[];
}

export function copySelection(
  document: StreamGraphDocument,
  nodes: ReadonlySet<number>,
): Clipboard {
  return {
    nodes: document.nodes.filter((node) => nodes.has(node.id)),
    edges: documentEdges(document).filter((e) => nodes.has(e.source) && nodes.has(e.target)),
  };
}

export const PASTE_OFFSET = 40;

/**
 * The edits that paste a clipboard: fresh ids and names, shifted by `offset`,
 * uid and uidHash dropped (they must stay unique), edges re-pointed.
 */
export function pasteEdits(
  document: StreamGraphDocument,
  clipboard: Clipboard,
  offset: number = PASTE_OFFSET,
): { edits: Edit[]; nodeIds: number[] } {
  const ids = freeNodeIds(document, clipboard.nodes.length);
  const renamed = new Map<number, number>();
  const edits: Edit[] = [];
  let named: StreamGraphDocument = document;
  clipboard.nodes.forEach((node, i) => {
    const id = ids[i] ?? 0;
    renamed.set(node.id, id);
    const ui: JsonObject = node.ui ?? {};
    const x = typeof ui.x === "number" ? ui.x : 0;
    const y = typeof ui.y === "number" ? ui.y : 0;
    const name = uniqueName(named, node.name);
    const copy: NodeInput = {
      ...node,
      id,
      name,
      uid: null,
      uidHash: null,
      ui: { ...ui, x: x + offset, y: y + offset },
    };
    named = { ...named, nodes: [...named.nodes, { ...copy, id, name }] };
    edits.push({ kind: "add_node", node: copy });
  });
  for (const edge of clipboard.edges) {
    edits.push({
      kind: "connect",
      edge: {
        ...edge,
        source: renamed.get(edge.source) ?? edge.source,
        target: renamed.get(edge.target) ?? edge.target,
      },
    });
  }
  return { edits, nodeIds: ids };
}

/** Canvas ids of every edge of the document. */
export function allEdgeIds(document: StreamGraphDocument): string[] {
  return edgeKeys(document).map(canvasEdgeId);
}
