/** Builders of documents, plans and server messages for the frontend's tests. */

import type {
  DocumentReplacedMessage,
  EditAppliedMessage,
  EditRejectedMessage,
  PresenceEntry,
  RejectionReason,
  SnapshotMessage,
} from "../api/messages";
import type { Edit } from "../graph/edits";
import type { LivePlan, PlanDelta } from "../graph/liveplan";
import {
  edgePartitioners,
  type EdgePartitioner,
  type Partitioner,
  type StreamGraphDocument,
} from "../graph/streamgraph";

/** The document of `tests/compiler/test_edits.py`, so cases can be compared with it. */
export function editsDocument(): StreamGraphDocument {
  return {
    format: "streamgraph/v1",
    name: "edits",
    config: { defaultParallelism: 2 },
    nodes: [
      { id: 1, name: "Source: s", operator: "source.sequence", parallelism: 2 },
      { id: 2, name: "Map", operator: "map", params: { fn: "x" }, parallelism: 2 },
      { id: 3, name: "Sink: out", operator: "sink.print", parallelism: 2 },
    ],
    edges: [
      { source: 1, target: 2, partitioner: "FORWARD" },
      { source: 2, target: 3, partitioner: "FORWARD" },
    ],
    meta: { keep: { me: true } },
  };
}

/** A small plan in the `liveplan/v1` shape: every node in one vertex, every edge chained. */
export function planOf(document: StreamGraphDocument): LivePlan {
  const vertex = "0".repeat(31) + "1";
  return {
    format: "liveplan/v1",
    ok: true,
    summary: {
      jobType: "STREAMING",
      vertexCount: 1,
      vertexOrder: [vertex],
      slotsRequired: 1,
      totalSubtasks: 1,
      slotSharingGroups: [{ index: 0, name: "default", slots: 1 }],
    },
    diagnostics: [],
    nodes: Object.fromEntries(
      document.nodes.map((node) => [
        String(node.id),
        {
          operatorId: node.id.toString(16).padStart(32, "a"),
          userDefinedId: null,
          vertex,
          hashBasis: `node ${node.id}`,
        },
      ]),
    ),
    vertices: {
      [vertex]: {
        name: document.nodes.map((node) => node.name).join(" -> "),
        head: document.nodes[0]?.id ?? 0,
        nodes: document.nodes.map((node) => node.id),
        chainedSources: [],
        parallelism: 1,
        maxParallelism: 128,
        slotSharingGroup: 0,
        slotSharingGroupName: "default",
        inputs: [],
      },
    },
    edges: Object.fromEntries(
      edgePartitioners(document).map((resolved, index) => [
        String(index),
        { ...planEdgePartitioner(resolved), chained: true, chainedSource: false, reasons: [] },
      ]),
    ),
  };
}

function planEdgePartitioner(resolved: EdgePartitioner): {
  partitioner: Partitioner;
  partitionerChosen: boolean;
} {
  return { partitioner: resolved.partitioner, partitionerChosen: resolved.chosen };
}

/**
 * A `liveplan/v1` plan with the given chains (node ids, head first, listed in
 * topological order): one vertex per chain, a JobEdge for every stream edge
 * between two chains (HASH and the other all-to-all partitioners ALL_TO_ALL,
 * FORWARD and RESCALE POINTWISE), edges inside a chain chained.
 */
export function chainedPlan(
  document: StreamGraphDocument,
  chains: readonly (readonly number[])[],
  parallelism = 2,
): LivePlan {
  const vertexId = (index: number): string => (index + 1).toString(16).padStart(32, "0");
  const chainOf = new Map<number, number>();
  chains.forEach((chain, index) => {
    for (const node of chain) {
      chainOf.set(node, index);
    }
  });
  const edges = document.edges ?? [];
  const partitioners = edgePartitioners(document);
  const vertices: Record<string, LivePlan["vertices"][string]> = {};
  chains.forEach((chain, index) => {
    const head = chain[0] ?? 0;
    vertices[vertexId(index)] = {
      name: chain
        .map((id) => document.nodes.find((node) => node.id === id)?.name ?? String(id))
        .join(" -> "),
      head,
      nodes: [...chain].reverse(),
      chainedSources: [],
      parallelism,
      maxParallelism: 128,
      slotSharingGroup: 0,
      slotSharingGroupName: "default",
      inputs: edges.flatMap((edge, edgeIndex) => {
        const from = chainOf.get(edge.source);
        if (edge.target !== head || from === undefined || from === index) {
          return [];
        }
        const shipStrategy = partitioners[edgeIndex]?.partitioner ?? "FORWARD";
        const pointwise = shipStrategy === "FORWARD" || shipStrategy === "RESCALE";
        return [
          {
            producer: vertexId(from),
            dataSet: `${vertexId(from).slice(0, 24)}${edgeIndex.toString(16).padStart(8, "d")}`,
            shipStrategy,
            distributionPattern: pointwise ? "POINTWISE" : "ALL_TO_ALL",
            resultPartitionType: "PIPELINED_BOUNDED",
            edge: edgeIndex,
          },
        ];
      }),
    };
  });
  return {
    format: "liveplan/v1",
    ok: true,
    summary: {
      jobType: "STREAMING",
      vertexCount: chains.length,
      vertexOrder: chains.map((_, index) => vertexId(index)),
      slotsRequired: parallelism,
      totalSubtasks: parallelism * chains.length,
      slotSharingGroups: [{ index: 0, name: "default", slots: parallelism }],
    },
    diagnostics: [],
    nodes: Object.fromEntries(
      document.nodes.map((node) => [
        String(node.id),
        {
          operatorId: node.id.toString(16).padStart(32, "a"),
          userDefinedId: null,
          vertex: vertexId(chainOf.get(node.id) ?? 0),
          hashBasis: `node ${node.id}`,
        },
      ]),
    ),
    vertices,
    edges: Object.fromEntries(
      edges.map((edge, index) => {
        const resolved = planEdgePartitioner(
          partitioners[index] ?? { partitioner: "FORWARD", chosen: false },
        );
        return [
          String(index),
          chainOf.get(edge.source) === chainOf.get(edge.target)
            ? { ...resolved, chained: true, chainedSource: false, reasons: [] }
            : {
                ...resolved,
                chained: false,
                chainedSource: false,
                reasons: ["not in the same chain"],
              },
        ];
      }),
    ),
  };
}

export function presenceEntry(clientId: string, username = "ada"): PresenceEntry {
  return {
    clientId,
    user: { id: username.length, username },
    role: "editor",
    selection: { nodes: [], edges: [] },
    cursor: null,
  };
}

export function snapshot(
  document: StreamGraphDocument,
  revision = 1,
  clientId = "me",
): SnapshotMessage {
  return {
    type: "snapshot",
    pipeline: 7,
    revision,
    document,
    plan: planOf(document),
    presence: [presenceEntry(clientId)],
    you: presenceEntry(clientId),
  };
}

export function editApplied(
  revision: number,
  edit: Edit,
  options: { clientId?: string; opId?: string; planDelta?: PlanDelta } = {},
): EditAppliedMessage {
  return {
    type: "edit_applied",
    revision,
    clientId: options.clientId ?? "someone-else",
    user: { id: 2, username: "grace" },
    opId: options.opId ?? "their-op",
    edit,
    rebased: false,
    planDelta: options.planDelta ?? {},
  };
}

export function editRejected(
  opId: string,
  revision: number,
  reason: RejectionReason = "conflict",
): EditRejectedMessage {
  return {
    type: "edit_rejected",
    opId,
    reason,
    revision,
    error: {
      code: "edit.conflict",
      message: "conflict: 'parallelism' of node 2 was changed; your edit was not applied",
      diagnostics: [],
      fields: {},
    },
  };
}

export function documentReplaced(
  document: StreamGraphDocument,
  revision: number,
): DocumentReplacedMessage {
  return { type: "document_replaced", revision, document, plan: planOf(document) };
}
