/**
 * What a comment thread is about, in the words and elements of a canvas: which targets
 * a new thread may take from what is selected, how a thread's anchor is named, and which
 * elements of a document to select and bring into view for it.
 */

import type { Anchor, AnchorKind, ThreadTarget } from "../api/reviews";
import { canvasEdgeId, edgeKeyOf } from "../graph/canvas";
import { edgeKeys } from "../graph/edits";
import type { LivePlan } from "../graph/liveplan";
import type { StreamGraphDocument } from "../graph/streamgraph";

export interface TargetChoice {
  /** Tells the choices apart (`node:3`, `edge:1-2-0-0`, `vertex:<id>`, `pipeline`). */
  readonly key: string;
  readonly label: string;
  readonly target: ThreadTarget;
}

const KIND_WORDS: Readonly<Record<AnchorKind, string>> = {
  pipeline: "Pipeline",
  node: "Operator",
  edge: "Edge",
  vertex: "Chain",
};

export const WHOLE_PIPELINE: TargetChoice = {
  key: "pipeline",
  label: "The whole pipeline",
  target: { kind: "pipeline" },
};

function nodeName(document: StreamGraphDocument, id: number): string {
  return document.nodes.find((node) => node.id === id)?.name ?? `node ${id}`;
}

/**
 * What a new thread may be about, given the selection: the selected operator and its
 * chain, or the selected edge, then the whole pipeline. The first is the default.
 */
export function targetChoices(
  selection: { readonly nodes: ReadonlySet<number>; readonly edges: ReadonlySet<string> },
  document: StreamGraphDocument | null,
  plan: LivePlan | null,
): TargetChoice[] {
  const choices: TargetChoice[] = [];
  if (document !== null && selection.nodes.size === 1 && selection.edges.size === 0) {
    const [id = 0] = selection.nodes;
    if (document.nodes.some((node) => node.id === id)) {
      choices.push({
        key: `node:${id}`,
        label: `Operator ${nodeName(document, id)} (node ${id})`,
        target: { kind: "node", node: id },
      });
      const vertex = plan?.nodes[String(id)]?.vertex;
      const chain = vertex === undefined ? undefined : plan?.vertices[vertex];
      if (vertex !== undefined && chain !== undefined) {
        choices.push({
          key: `vertex:${vertex}`,
          label: `Its chain ${chain.name}`,
          target: { kind: "vertex", vertex },
        });
      }
    }
  }
  if (document !== null && selection.edges.size === 1 && selection.nodes.size === 0) {
    const [id = ""] = selection.edges;
    const key = edgeKeyOf(id);
    if (key !== null && edgeKeys(document).some((k) => canvasEdgeId(k) === id)) {
      choices.push({
        key: `edge:${id}`,
        label: `Edge ${nodeName(document, key[0])} → ${nodeName(document, key[1])}`,
        target: { kind: "edge", edge: key },
      });
    }
  }
  choices.push(WHOLE_PIPELINE);
  return choices;
}

/** The key of the `TargetChoice` that would open a thread on `anchor`. */
export function anchorKey(anchor: Anchor): string {
  switch (anchor.kind) {
    case "pipeline":
      return WHOLE_PIPELINE.key;
    case "node":
      return `node:${anchor.node ?? ""}`;
    case "edge":
      return `edge:${anchor.edge?.join("-") ?? ""}`;
    case "vertex":
      return `vertex:${anchor.vertex ?? ""}`;
  }
}

/** "Operator", "Edge", "Chain" or "Pipeline". */
export function kindWord(kind: AnchorKind): string {
  return KIND_WORDS[kind];
}

/** A thread's target in words, as it was called when the thread was opened. */
export function anchorText(anchor: Anchor): string {
  switch (anchor.kind) {
    case "pipeline":
      return "The whole pipeline";
    case "node":
      return `${anchor.label} (node ${anchor.node ?? "?"})`;
    case "edge":
      return anchor.label;
    case "vertex":
      return `${anchor.label} (chain)`;
  }
}

/** Canvas elements to select for a thread: node ids and at most one canvas edge id. */
export interface RevealTarget {
  readonly nodes: readonly number[];
  readonly edge: string | null;
}

/**
 * The elements of `document` a thread's anchor names, to select and centre; null when
 * they are not in it (removed since), or for a thread about the whole pipeline. A chain
 * is the operators of the vertex its head runs in now.
 */
export function revealTarget(
  anchor: Anchor,
  document: StreamGraphDocument,
  plan: LivePlan | null,
): RevealTarget | null {
  const has = (id: number): boolean => document.nodes.some((node) => node.id === id);
  switch (anchor.kind) {
    case "pipeline":
      return null;
    case "node":
      return anchor.node !== null && has(anchor.node) ? { nodes: [anchor.node], edge: null } : null;
    case "edge": {
      if (anchor.edge === null) {
        return null;
      }
      const id = canvasEdgeId(anchor.edge);
      return edgeKeys(document).some((key) => canvasEdgeId(key) === id)
        ? { nodes: [], edge: id }
        : null;
    }
    case "vertex": {
      if (anchor.node === null || !has(anchor.node)) {
        return null;
      }
      const vertex = plan?.nodes[String(anchor.node)]?.vertex;
      const nodes = vertex === undefined ? undefined : plan?.vertices[vertex]?.nodes;
      return { nodes: nodes === undefined ? [anchor.node] : [...nodes], edge: null };
    }
  }
}
