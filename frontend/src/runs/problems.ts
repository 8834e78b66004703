/**
 * Why a version cannot run, in words: each diagnostic of a `not-runnable`
 * answer with the node or edge it concerns named as the version names them.
 */

import type { RunDiagnostic } from "../api/runs";
import { documentEdges, type StreamGraphDocument } from "../graph/streamgraph";

export interface Problem {
  readonly diagnostic: RunDiagnostic;
  /** "Map (node 3)", "edge 1: Map → Reduce", or "the pipeline". */
  readonly where: string;
  /** The node to point at on the canvas (a node's, or an edge's target). */
  readonly node: number | null;
}

function nodeName(document: StreamGraphDocument | null, id: number): string {
  const node = document?.nodes.find((item) => item.id === id);
  return node === undefined ? `node ${id}` : `${node.name} (node ${id})`;
}

export function describeProblem(
  diagnostic: RunDiagnostic,
  document: StreamGraphDocument | null,
): Problem {
  if (diagnostic.edge !== null) {
    const edge = document === null ? undefined : documentEdges(document)[diagnostic.edge];
    if (edge === undefined) {
      return { diagnostic, where: `edge ${diagnostic.edge}`, node: diagnostic.node };
    }
    const name = (id: number): string =>
      document?.nodes.find((item) => item.id === id)?.name ?? `node ${id}`;
    return {
      diagnostic,
      where: `edge ${diagnostic.edge}: ${name(edge.source)} → ${name(edge.target)}`,
      node: edge.target,
    };
  }
  if (diagnostic.node !== null) {
    return { diagnostic, where: nodeName(document, diagnostic.node), node: diagnostic.node };
  }
  return { diagnostic, where: "the pipeline", node: null };
}

/** Errors first, then warnings; each group in the server's order. */
export function describeProblems(
  diagnostics: readonly RunDiagnostic[],
  document: StreamGraphDocument | null,
): Problem[] {
  const rank = (d: RunDiagnostic): number => (d.severity === "error" ? 0 : 1);
  return [...diagnostics]
    .sort((a, b) => rank(a) - rank(b))
    .map((diagnostic) => describeProblem(diagnostic, document));
}
