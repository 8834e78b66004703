"""The StreamGraph intermediate representation every pass reads.

A `StreamGraph` is built once from a validated `streamgraph/v1` document
(`compiler.document`) and never changes afterwards. Nodes and edges keep the
document's order: the edge list is in creation order, which is the order in
which Flink iterates out-edges and in-edges when it hashes, chains, names and
connects. Values Flink resolves while building its own StreamGraph (default
parallelism, job-wide max parallelism, inherited slot sharing groups) are
already resolved here, so the passes never consult the config for them.

Per-node and per-edge records (StreamNode, StreamEdge, Chain, JobEdge and the
ExecutionGraph's) are `@dataclass(slots=True, eq=False)`: never modified after
construction, compared by identity as Flink compares its graph objects, and not
`frozen=True`, because a frozen dataclass takes about six times as long to
construct, which the compiler would pay once per node and edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NewType

NodeId = NewType("NodeId", int)
"""Flink's StreamNode id (the transformation counter; not stable across programs)."""

EdgeIndex = NewType("EdgeIndex", int)
"""Position of a StreamEdge in the document's edge list (its creation order)."""

Hash128 = NewType("Hash128", int)
"""A 16-byte Flink id (OperatorID, JobVertexID, IntermediateDataSetID) as an unsigned
int whose big-endian bytes are the id's bytes, so `f"{h:032x}"` is `AbstractID.toString()`."""

PARALLELISM_DEFAULT = -1
"""`ExecutionConfig.PARALLELISM_DEFAULT`: not set, use the job default."""

UPPER_BOUND_MAX_PARALLELISM = 1 << 15
"""`Transformation.UPPER_BOUND_MAX_PARALLELISM` (32768)."""

DEFAULT_SLOT_SHARING_GROUP = "default"


class _Enum(Enum):
    """Enums hashed by identity: Enum's own `__hash__` is a Python call, and passes
    look members up in dicts and sets per edge."""

    __hash__ = object.__hash__


class Partitioner(_Enum):
    """Flink's StreamPartitioner classes, named by their `toString()` (the ship strategy)."""

    FORWARD = "FORWARD"
    REBALANCE = "REBALANCE"
    RESCALE = "RESCALE"
    SHUFFLE = "SHUFFLE"
    HASH = "HASH"
    BROADCAST = "BROADCAST"
    GLOBAL = "GLOBAL"
    CUSTOM = "CUSTOM"

    @property
    def is_pointwise(self) -> bool:
        return self in (Partitioner.FORWARD, Partitioner.RESCALE)

    @property
    def is_broadcast(self) -> bool:
        return self is Partitioner.BROADCAST


class ExchangeMode(_Enum):
    """Flink's StreamExchangeMode."""

    UNDEFINED = "UNDEFINED"
    PIPELINED = "PIPELINED"
    BATCH = "BATCH"
    HYBRID_FULL = "HYBRID_FULL"
    HYBRID_SELECTIVE = "HYBRID_SELECTIVE"


class ChainingStrategy(_Enum):
    ALWAYS = "ALWAYS"
    NEVER = "NEVER"
    HEAD = "HEAD"
    HEAD_WITH_SOURCES = "HEAD_WITH_SOURCES"


class OperatorFactory(_Enum):
    """The kind of operator factory, where Flink's chaining depends on it."""

    OPERATOR = "OPERATOR"
    SOURCE = "SOURCE"
    """A FLIP-27 source (`SourceOperatorFactory`)."""
    LEGACY_SOURCE = "LEGACY_SOURCE"
    """A `SourceFunction` source (`StreamSource`)."""
    YIELDING = "YIELDING"
    """A `YieldingOperatorFactory` (Sink V2 writers, async I/O)."""


class RuntimeMode(_Enum):
    STREAMING = "STREAMING"
    BATCH = "BATCH"


class ResultPartitionType(_Enum):
    """The result partition types a static JobGraph of this project can contain."""

    PIPELINED_BOUNDED = "PIPELINED_BOUNDED"
    BLOCKING = "BLOCKING"
    HYBRID_FULL = "HYBRID_FULL"
    HYBRID_SELECTIVE = "HYBRID_SELECTIVE"

    @property
    def is_reconsumable(self) -> bool:
        return self in (ResultPartitionType.BLOCKING, ResultPartitionType.HYBRID_FULL)

    @property
    def is_hybrid(self) -> bool:
        return self in (ResultPartitionType.HYBRID_FULL, ResultPartitionType.HYBRID_SELECTIVE)

    @property
    def must_be_pipelined(self) -> bool:
        """`ConsumingConstraint.MUST_BE_PIPELINED`: joins producer and consumer in one region."""
        return self is ResultPartitionType.PIPELINED_BOUNDED


class DistributionPattern(_Enum):
    ALL_TO_ALL = "ALL_TO_ALL"
    POINTWISE = "POINTWISE"


@dataclass(frozen=True, slots=True)
class JobConfig:
    chaining_enabled: bool = True
    default_parallelism: int = 1
    max_parallelism: int = PARALLELISM_DEFAULT
    runtime_mode: RuntimeMode = RuntimeMode.STREAMING
    chain_operators_with_different_max_parallelism: bool = True

    @property
    def all_vertices_in_same_slot_sharing_group_by_default(self) -> bool:
        """`StreamGraph.isAllVerticesInSameSlotSharingGroupByDefault()`: false in BATCH."""
        return self.runtime_mode is RuntimeMode.STREAMING


@dataclass(slots=True, eq=False)  # a record: see the compiler.model docstring
class StreamNode:
    id: NodeId
    name: str
    operator: str
    parallelism: int
    """Resolved: the node's own value, or the job's default parallelism."""
    max_parallelism: int
    """Resolved: the node's own value, else the job-wide value, else -1 (not set)."""
    chaining_strategy: ChainingStrategy
    slot_sharing_group: str
    """Resolved as StreamGraphGenerator does: explicit, else inherited, else "default"."""
    co_location_group: str | None
    uid: str | None
    uid_hash: str | None
    """Lower-case 32 hex characters, or None."""
    factory: OperatorFactory


@dataclass(slots=True, eq=False)  # a record: see the compiler.model docstring
class StreamEdge:
    index: EdgeIndex
    source: NodeId
    target: NodeId
    partitioner: Partitioner
    """Resolved: the document's, or Flink's default when it chose none (`partitioner_chosen`)."""
    partitioner_chosen: bool
    """False when the document leaves the partitioner out (null), as a DataStream program
    that calls no partitioning method: Flink then picks FORWARD between equal parallelism
    and REBALANCE otherwise (`StreamGraph.createActualEdge`), following every change."""
    exchange_mode: ExchangeMode
    type_number: int
    side_output_tag: str | None
    key: object
    """The key selector of a HASH/CUSTOM edge, as given (used only for partitioner equality)."""
    unique_id: int
    """How many earlier edges join the same (source, target) pair (`StreamEdge.uniqueId`)."""


@dataclass(frozen=True, slots=True)
class StreamGraph:
    name: str
    config: JobConfig
    nodes: dict[NodeId, StreamNode]
    """In document order."""
    edges: tuple[StreamEdge, ...]
    """In creation order."""
    out_edges: dict[NodeId, tuple[StreamEdge, ...]]
    in_edges: dict[NodeId, tuple[StreamEdge, ...]]
    source_ids: tuple[NodeId, ...]
    """Nodes without incoming edges, ascending id (the hasher's start order)."""
    topological_order: tuple[NodeId, ...]
    """Every node after all of its inputs."""
    input_ids: dict[NodeId, tuple[NodeId, ...]]
    """Source node of every in-edge, in in-edge order (repeats kept: a self-union)."""
    output_ids: dict[NodeId, tuple[NodeId, ...]]
    """Target node of every out-edge, in out-edge order."""
    uids: dict[NodeId, str]
    """The nodes that have a uid."""

    def edge_id(self, edge: StreamEdge) -> str:
        """`StreamEdge.getEdgeId()`, fixed when Flink created the edge."""
        src = self.nodes[edge.source]
        tgt = self.nodes[edge.target]
        # `_value_` is the plain attribute behind Enum's slower `value` property.
        return (
            f"{src.name}-{src.id}_{tgt.name}-{tgt.id}_{edge.type_number}"
            f"_{edge.partitioner._value_}_{edge.unique_id}"
        )
