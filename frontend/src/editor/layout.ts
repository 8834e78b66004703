/**
 * Automatic layout with elkjs, in a web worker so a large graph never freezes
 * the page. Only the "Auto-layout" command runs it: a pipeline opens at the
 * positions stored in its document (or on the deterministic grid), so opening
 * costs no layout at all.
 */

import ElkConstructor, { type ELK } from "elkjs/lib/elk-api";
import ElkWorker from "elkjs/lib/elk-worker.min.js?worker";

import { LAYER_GAP, NODE_GAP, NODE_HEIGHT, NODE_WIDTH } from "../canvas/geometry";
import type { NodeMove } from "../graph/edits";
import { documentEdges, type StreamGraphDocument } from "../graph/streamgraph";

let elk: ELK | null = null;

function engine(): ELK {
  elk ??= new ElkConstructor({ workerFactory: () => new ElkWorker() });
  return elk;
}

/**
 * Left-to-right layered layout of the document; the moves that apply it, which the
 * document store sends as one edit (`moveOperators`): one revision, one undo step.
 */
export async function layoutMoves(document: StreamGraphDocument): Promise<NodeMove[]> {
  const nodes = document.nodes;
  const ids = new Set(nodes.map((node) => node.id));
  const graph = await engine().layout({
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.layered.spacing.nodeNodeBetweenLayers": String(LAYER_GAP),
      "elk.spacing.nodeNode": String(NODE_GAP),
      "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
      "elk.separateConnectedComponents": "true",
    },
    children: nodes.map((node) => ({
      id: String(node.id),
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
    })),
    edges: documentEdges(document)
      .filter((edge) => ids.has(edge.source) && ids.has(edge.target))
      .map((edge, index) => ({
        id: `e${index}`,
        sources: [String(edge.source)],
        targets: [String(edge.target)],
      })),
  });
  const byId = new Map(nodes.map((node) => [String(node.id), node]));
  const moves: NodeMove[] = [];
  for (const child of graph.children ?? []) {
    const x = Math.round((child.x ?? 0) + 40);
    const y = Math.round((child.y ?? 0) + 60);
    const node = byId.get(child.id);
    const ui = node?.ui;
    if (node !== undefined && (ui?.x !== x || ui.y !== y)) {
      moves.push({ nodeId: node.id, x, y });
    }
  }
  return moves;
}
