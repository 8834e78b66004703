/**
 * What the run monitor needs of the version's compiled plan: which nodes each
 * JobVertex holds, whether records reach it by key (a HASH input, so its key
 * groups decide where they go) and whether it is a source.
 */

import type { JobGraphJson } from "../api/resources";
import type { StreamGraphDocument } from "../graph/streamgraph";

export interface VertexFacts {
  readonly id: string;
  /** Node ids in Flink's chain order, the head last. */
  readonly nodes: readonly number[];
  readonly head: number;
  /** True when an input edge is HASH: records go by key group. */
  readonly keyed: boolean;
  readonly isSource: boolean;
  /** The ship strategies of its inputs, e.g. `HASH from Source: s`. */
  readonly inputs: readonly { readonly producer: string; readonly shipStrategy: string }[];
}

export function vertexFacts(jobGraph: JobGraphJson | null): Map<string, VertexFacts> {
  const facts = new Map<string, VertexFacts>();
  for (const vertex of jobGraph?.vertices ?? []) {
    facts.set(vertex.id, {
      id: vertex.id,
      nodes: vertex.nodes,
      head: vertex.headNode,
      keyed: vertex.inputs.some((input) => input.shipStrategy === "HASH"),
      isSource: vertex.inputs.length === 0,
      inputs: vertex.inputs.map((input) => ({
        producer: input.producer,
        shipStrategy: input.shipStrategy,
      })),
    });
  }
  return facts;
}

/** Node names by id, for labels ("Sink: out (node 4)"). */
export function nodeNames(document: StreamGraphDocument | null): Map<number, string> {
  return new Map(document?.nodes.map((node) => [node.id, node.name]) ?? []);
}

/** "Map (node 3)", or "node 3" for a node the document does not have. */
export function nodeLabel(names: ReadonlyMap<number, string>, node: number): string {
  const name = names.get(node);
  return name === undefined ? `node ${node}` : `${name} (node ${node})`;
}
