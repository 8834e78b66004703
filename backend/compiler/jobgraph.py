"""The JobGraph: vertices, IntermediateDataSets, JobEdges, slot sharing, co-location.

Follows Flink 2.3's `StreamingJobGraphGenerator` after `setChaining`:
`setAllOperatorNonChainedOutputsConfigs` (result partition type of every
non-chainable edge, data-set reuse per producing operator, deterministic data-set
ids), `setAllVertexNonChainedOutputsConfigs` (`connect`, which fixes the order of
a vertex's inputs and of its produced data sets), `getVerticesSortedTopologicallyFromSources`
and `setSlotSharingAndCoLocation`.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.chaining import ChainPlan
from compiler.diagnostics import Diagnostic, Location
from compiler.ids import EdgeIdHasher, intermediate_data_set_id
from compiler.model import (
    DEFAULT_SLOT_SHARING_GROUP,
    DistributionPattern,
    ExchangeMode,
    Hash128,
    NodeId,
    Partitioner,
    ResultPartitionType,
    RuntimeMode,
    StreamEdge,
    StreamGraph,
)

_MAY_BE_REUSED = frozenset(t for t in ResultPartitionType if t.is_reconsumable or t.is_hybrid)
_POINTWISE = frozenset(p for p in Partitioner if p.is_pointwise)
_EXPLICIT_TYPES = {
    ExchangeMode.PIPELINED: ResultPartitionType.PIPELINED_BOUNDED,
    ExchangeMode.BATCH: ResultPartitionType.BLOCKING,
    ExchangeMode.HYBRID_FULL: ResultPartitionType.HYBRID_FULL,
    ExchangeMode.HYBRID_SELECTIVE: ResultPartitionType.HYBRID_SELECTIVE,
}


@dataclass(slots=True, eq=False)  # a record: see the compiler.model docstring
class JobEdge:
    producer: Hash128
    """JobVertexID of the producing vertex."""
    target: Hash128
    data_set: Hash128
    stream_edge: StreamEdge
    distribution_pattern: DistributionPattern
    result_partition_type: ResultPartitionType
    ship_strategy: Partitioner
    type_number: int
    is_broadcast: bool
    is_forward: bool


@dataclass(slots=True)
class IntermediateDataSet:
    id: Hash128
    producer: Hash128
    result_partition_type: ResultPartitionType
    consumers: list[JobEdge]


@dataclass(slots=True)
class JobVertex:
    id: Hash128
    name: str
    head: NodeId
    nodes: tuple[NodeId, ...]
    """Operator order (post-order, head last); chained sources are not included."""
    chained_sources: tuple[NodeId, ...]
    parallelism: int
    max_parallelism: int
    """-1 = not set: the scheduler derives it (`compiler.execution`)."""
    operator_ids: tuple[tuple[Hash128, Hash128 | None], ...]
    """`getOperatorIDs()`: (generated, user-defined) per operator, in `nodes` order."""
    slot_sharing_group_name: str
    co_location_group: str | None
    inputs: list[JobEdge]
    produced_data_sets: list[IntermediateDataSet]
    slot_sharing_group: int = -1
    """Index into `JobGraph.slot_sharing_groups` (set once groups are known)."""

    @property
    def is_input_vertex(self) -> bool:
        return not self.inputs

    @property
    def is_output_vertex(self) -> bool:
        return not self.produced_data_sets


@dataclass(frozen=True, slots=True)
class SlotSharingGroup:
    index: int
    name: str
    slots: int
    """The largest parallelism among its vertices: slots it needs."""


@dataclass(frozen=True, slots=True)
class JobGraph:
    name: str
    job_type: RuntimeMode
    vertices_in_creation_order: tuple[JobVertex, ...]
    vertices: tuple[JobVertex, ...]
    """`getVerticesSortedTopologicallyFromSources()` order."""
    slot_sharing_groups: tuple[SlotSharingGroup, ...]
    vertex_of_node: dict[NodeId, Hash128]

    @property
    def maximum_parallelism(self) -> int:
        return max((v.parallelism for v in self.vertices), default=-1)

    @property
    def slots_required(self) -> int:
        return sum(g.slots for g in self.slot_sharing_groups)

    def vertex(self, vertex_id: Hash128) -> JobVertex:
        return next(v for v in self.vertices if v.id == vertex_id)


@dataclass(slots=True)
class _Output:
    """A `NonChainedOutput` of one operator: one data set, maybe several edges."""

    data_set: Hash128
    result_type: ResultPartitionType
    edge: StreamEdge
    consumer_parallelism: int
    consumer_max_parallelism: int


def _result_types(
    mode: RuntimeMode,
) -> dict[tuple[ExchangeMode, Partitioner], ResultPartitionType]:
    """Result partition type by (exchange mode, partitioner) for a runtime mode."""
    # UNDEFINED follows the global exchange mode: ALL_EDGES_BLOCKING in BATCH,
    # ALL_EDGES_PIPELINED in STREAMING.
    undefined = (
        ResultPartitionType.BLOCKING
        if mode is RuntimeMode.BATCH
        else ResultPartitionType.PIPELINED_BOUNDED
    )
    table = {}
    for exchange_mode in ExchangeMode:
        for partitioner in Partitioner:
            result = _EXPLICIT_TYPES.get(exchange_mode, undefined)
            if partitioner is Partitioner.BROADCAST and (
                result is ResultPartitionType.HYBRID_SELECTIVE
            ):
                result = ResultPartitionType.HYBRID_FULL
            table[exchange_mode, partitioner] = result
    return table


def _reusable(
    candidate: _Output, edge: StreamEdge, new_type: ResultPartitionType, graph: StreamGraph
) -> bool:
    """`isOutputReusable`-style test of FLINK-28380 (one data set, several consumers)."""
    old_type = candidate.result_type
    same_kind = (old_type is new_type and new_type.is_reconsumable) or (
        old_type.is_hybrid and new_type.is_hybrid
    )
    if not same_kind:
        return False
    target = graph.nodes[edge.target]
    first = candidate.edge
    return (
        candidate.consumer_parallelism == target.parallelism
        and candidate.consumer_max_parallelism == target.max_parallelism
        and first.side_output_tag == edge.side_output_tag
        and first.partitioner is edge.partitioner
        and first.key == edge.key
    )


@dataclass(frozen=True, slots=True)
class Unchanged:
    """What a JobGraph can take from the previous one's: the operator ids of a chain and
    its nodes' vertex stay as they were unless its head is in `changed_heads` (a chain
    built again or whose head's hash changed: every member's then changed too)."""

    previous: JobGraph
    changed_heads: set[NodeId]


def build_job_graph(
    graph: StreamGraph,
    plan: ChainPlan,
    hashes: dict[NodeId, Hash128],
    user_hashes: dict[NodeId, Hash128 | None],
    chainable: list[bool],
    unchanged: Unchanged | None = None,
) -> tuple[JobGraph, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    result_types = _result_types(graph.config.runtime_mode)
    edge_id_hash = EdgeIdHasher(graph)

    # Operator-level outputs: per producing operator, its non-chainable edges in order.
    output_of_edge: dict[int, _Output] = {}
    for chain in plan.chains:
        vertex_id = hashes[chain.head]
        # The chain's non-chainable out-edges, grouped by the operator they leave in order.
        outputs: list[_Output] = []
        operator = None
        for edge in chain.transitive_out_edges:
            if edge.source != operator:
                operator, outputs = edge.source, []
            new_type = result_types[edge.exchange_mode, edge.partitioner]
            reused = None
            if new_type in _MAY_BE_REUSED:
                reused = next((o for o in outputs if _reusable(o, edge, new_type, graph)), None)
            if reused is not None:
                if reused.result_type is ResultPartitionType.HYBRID_SELECTIVE:
                    reused.result_type = ResultPartitionType.HYBRID_FULL
                output_of_edge[edge.index] = reused
                continue
            target = graph.nodes[edge.target]
            output = _Output(
                data_set=intermediate_data_set_id(vertex_id, edge_id_hash(edge)),
                result_type=new_type,
                edge=edge,
                consumer_parallelism=target.parallelism,
                consumer_max_parallelism=target.max_parallelism,
            )
            outputs.append(output)
            output_of_edge[edge.index] = output

    kept_ids: dict[NodeId, tuple[tuple[Hash128, Hash128 | None], ...]] = {}
    if unchanged is not None:
        changed = unchanged.changed_heads
        kept_ids = {
            v.head: v.operator_ids
            for v in unchanged.previous.vertices_in_creation_order
            if v.head not in changed
        }
    vertices: dict[NodeId, JobVertex] = {}
    for chain in plan.chains:
        head = graph.nodes[chain.head]
        operator_ids = kept_ids.get(chain.head)
        if operator_ids is None:
            members = chain.nodes
            operator_ids = tuple(
                zip(
                    map(hashes.__getitem__, members),
                    map(user_hashes.__getitem__, members),
                    strict=True,
                )
            )
        vertices[chain.head] = JobVertex(
            id=hashes[chain.head],
            name=chain.name,
            head=chain.head,
            nodes=chain.nodes,
            chained_sources=chain.chained_sources,
            parallelism=head.parallelism,
            max_parallelism=head.max_parallelism,
            operator_ids=operator_ids,
            slot_sharing_group_name=head.slot_sharing_group,
            co_location_group=head.co_location_group,
            inputs=[],
            produced_data_sets=[],
        )

    # connect(): vertices in creation order, each over its transitive out-edges.
    for chain in plan.chains:
        producer = vertices[chain.head]
        data_sets: dict[Hash128, IntermediateDataSet] = {}
        for edge in chain.transitive_out_edges:
            output = output_of_edge[edge.index]
            data_set = data_sets.get(output.data_set)
            if data_set is None:
                data_set = IntermediateDataSet(output.data_set, producer.id, output.result_type, [])
                data_sets[output.data_set] = data_set
                producer.produced_data_sets.append(data_set)
            consumer = vertices[edge.target]
            partitioner = edge.partitioner
            job_edge = JobEdge(
                producer=producer.id,
                target=consumer.id,
                data_set=data_set.id,
                stream_edge=edge,
                distribution_pattern=(
                    DistributionPattern.POINTWISE
                    if partitioner in _POINTWISE
                    else DistributionPattern.ALL_TO_ALL
                ),
                result_partition_type=data_set.result_partition_type,
                ship_strategy=partitioner,
                type_number=edge.type_number,
                is_broadcast=partitioner is Partitioner.BROADCAST,
                is_forward=partitioner is Partitioner.FORWARD,
            )
            consumer.inputs.append(job_edge)
            data_set.consumers.append(job_edge)

    creation_order = [vertices[c.head] for c in plan.chains]
    by_id = {v.id: v for v in creation_order}
    topological = _sorted_topologically(creation_order, by_id)
    groups = _assign_slot_sharing(graph, creation_order, topological, by_id, diagnostics)
    _check_hybrid(graph, creation_order, diagnostics)
    job_graph = JobGraph(
        name=graph.name,
        job_type=graph.config.runtime_mode,
        vertices_in_creation_order=tuple(creation_order),
        vertices=tuple(topological),
        slot_sharing_groups=groups,
        vertex_of_node=_vertex_of_node(plan, hashes, unchanged),
    )
    return job_graph, diagnostics


def _vertex_of_node(
    plan: ChainPlan, hashes: dict[NodeId, Hash128], unchanged: Unchanged | None
) -> dict[NodeId, Hash128]:
    if unchanged is None:
        return {nid: hashes[head] for nid, head in plan.head_of.items()}
    result = dict(unchanged.previous.vertex_of_node)
    for chain in plan.chains:
        if chain.head in unchanged.changed_heads:
            vertex = hashes[chain.head]
            result.update(dict.fromkeys(chain.nodes, vertex))
            result.update(dict.fromkeys(chain.chained_sources, vertex))
    return result


def _sorted_topologically(
    creation_order: list[JobVertex], by_id: dict[Hash128, JobVertex]
) -> list[JobVertex]:
    """`JobGraph.getVerticesSortedTopologicallyFromSources` (iterative depth first)."""
    remaining = {v.id for v in creation_order if v.inputs}
    result = [v for v in creation_order if not v.inputs]
    position = 0
    while remaining and position < len(result):
        stack = [iter(_consumer_edges(result[position]))]
        position += 1
        while stack:
            edge = next(stack[-1], None)
            if edge is None:
                stack.pop()
                continue
            target_id = edge.target
            if target_id not in remaining:
                continue
            target = by_id[target_id]
            inputs = target.inputs
            if len(inputs) == 1 or all(e is edge or e.producer not in remaining for e in inputs):
                result.append(target)
                remaining.discard(target_id)
                stack.append(iter(_consumer_edges(target)))
    return result


def _consumer_edges(vertex: JobVertex) -> list[JobEdge]:
    data_sets = vertex.produced_data_sets
    if len(data_sets) == 1:
        return data_sets[0].consumers
    return [edge for data_set in data_sets for edge in data_set.consumers]


def _assign_slot_sharing(
    graph: StreamGraph,
    creation_order: list[JobVertex],
    topological: list[JobVertex],
    by_id: dict[Hash128, JobVertex],
    diagnostics: list[Diagnostic],
) -> tuple[SlotSharingGroup, ...]:
    """`setSlotSharingAndCoLocation`: one group per name; "default" per pipelined region."""
    same_default = graph.config.all_vertices_in_same_slot_sharing_group_by_default
    # Group identity: ("named", name), ("default", None) or ("region", representative).
    region_parent = {} if same_default else {v.id: v.id for v in creation_order}

    def find(x: Hash128) -> Hash128:
        while region_parent[x] != x:
            region_parent[x] = region_parent[region_parent[x]]
            x = region_parent[x]
        return x

    for vertex in creation_order if not same_default else ():
        for data_set in vertex.produced_data_sets:
            if data_set.result_partition_type.must_be_pipelined:
                for edge in data_set.consumers:
                    a, b = find(vertex.id), find(edge.target)
                    if a != b:
                        region_parent[a] = b

    identity: dict[Hash128, tuple[str, object]] = {}
    for vertex in creation_order:
        name = vertex.slot_sharing_group_name
        if name != DEFAULT_SLOT_SHARING_GROUP:
            identity[vertex.id] = ("named", name)
        elif same_default:
            identity[vertex.id] = ("default", None)
        else:
            identity[vertex.id] = ("region", find(vertex.id))

    index_of: dict[tuple[str, object], int] = {}
    slots: list[int] = []
    names: list[str] = []
    for vertex in topological:
        key = identity[vertex.id]
        if key not in index_of:
            index_of[key] = len(slots)
            slots.append(0)
            names.append(vertex.slot_sharing_group_name)
        vertex.slot_sharing_group = index_of[key]
        slots[index_of[key]] = max(slots[index_of[key]], vertex.parallelism)

    co_located: dict[str, JobVertex] = {}
    for vertex in creation_order:
        key_name = vertex.co_location_group
        if key_name is None:
            continue
        first = co_located.setdefault(key_name, vertex)
        if first.slot_sharing_group != vertex.slot_sharing_group:
            diagnostics.append(
                Diagnostic(
                    "jobgraph.co-location-slot-sharing",
                    f"co-location group '{key_name}' joins vertices in different slot sharing "
                    f"groups ('{first.slot_sharing_group_name}' and "
                    f"'{vertex.slot_sharing_group_name}'); Flink requires one slot sharing "
                    "group for all co-located tasks",
                    Location(node=vertex.head, field="coLocationGroup"),
                )
            )
    return tuple(SlotSharingGroup(i, names[i], slots[i]) for i in range(len(slots)))


def _check_hybrid(
    graph: StreamGraph, creation_order: list[JobVertex], diagnostics: list[Diagnostic]
) -> None:
    hybrid_edges = [
        edge
        for vertex in creation_order
        for data_set in vertex.produced_data_sets
        if data_set.result_partition_type.is_hybrid
        for edge in data_set.consumers
    ]
    if not hybrid_edges:
        return
    first = hybrid_edges[0].stream_edge
    if graph.config.runtime_mode is not RuntimeMode.BATCH:
        diagnostics.append(
            Diagnostic(
                "jobgraph.hybrid-in-streaming",
                "hybrid shuffle mode only supports batch jobs: set the runtime mode to BATCH "
                "or use another exchange mode",
                Location(edge=first.index, field="exchangeMode"),
            )
        )
    for vertex in creation_order:
        if vertex.slot_sharing_group_name != DEFAULT_SLOT_SHARING_GROUP:
            diagnostics.append(
                Diagnostic(
                    "jobgraph.hybrid-slot-sharing",
                    "hybrid shuffle mode currently does not support setting non-default slot "
                    f"sharing group (vertex '{vertex.name}' is in "
                    f"'{vertex.slot_sharing_group_name}')",
                    Location(node=vertex.head, field="slotSharingGroup"),
                )
            )
