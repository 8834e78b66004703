"""The ExecutionGraph of Flink's static (default) scheduler, without materialising it.

Per JobVertex: effective parallelism and max parallelism
(`SchedulerBase.computeVertexParallelismStore`), subtasks named `Name (i/p)`
with their key-group ranges, and one result partition per subtask and data set.
Per JobEdge: which partitions and subpartitions every consumer subtask reads
(`VertexInputInfoComputationUtils`, `EdgeManagerBuildUtil`), grouped the way
Flink's ConsumedPartitionGroup / ConsumerVertexGroup pairs are: an edge is a
list of (partition range <-> consumer range) groups, O(S + T) objects for S
producers and T consumers, never S * T.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from compiler.diagnostics import Diagnostic, Location
from compiler.jobgraph import JobEdge, JobGraph, JobVertex
from compiler.keygroups import compute_default_max_parallelism, key_group_range
from compiler.model import UPPER_BOUND_MAX_PARALLELISM, DistributionPattern, Hash128

PARALLELISM_AUTO_MAX = (1 << 31) - 1
"""`JobVertex.MAX_PARALLELISM_DEFAULT` is -1; `Integer.MAX_VALUE` asks for the upper bound."""


@dataclass(slots=True, eq=False)  # a record: see the compiler.model docstring
class ExecutionJobVertex:
    job_vertex: JobVertex
    parallelism: int
    max_parallelism: int
    max_parallelism_derived: bool
    """True when the JobGraph left it unset and the scheduler chose it."""

    @property
    def id(self) -> Hash128:
        return self.job_vertex.id

    def subtask_name(self, index: int) -> str:
        """`ExecutionVertex.getTaskNameWithSubtaskIndex()`."""
        return f"{self.job_vertex.name} ({index + 1}/{self.parallelism})"

    def key_group_range(self, index: int) -> tuple[int, int]:
        return key_group_range(self.max_parallelism, self.parallelism, index)

    def subtask_of_key_group(self, key_group: int) -> int:
        return key_group * self.parallelism // self.max_parallelism


@dataclass(slots=True, eq=False)  # a record: see the compiler.model docstring
class PartitionGroup:
    """A ConsumedPartitionGroup and the ConsumerVertexGroup that reads all of it."""

    partitions: range
    consumers: range


@dataclass(slots=True, eq=False)  # a record: see the compiler.model docstring
class ExecutionEdge:
    job_edge: JobEdge
    producer_parallelism: int
    consumer_parallelism: int
    groups: tuple[PartitionGroup, ...]

    @property
    def pattern(self) -> DistributionPattern:
        return self.job_edge.distribution_pattern

    def group_of_consumer(self, consumer: int) -> PartitionGroup:
        if self.pattern is DistributionPattern.ALL_TO_ALL:
            return self.groups[0]
        s, t = self.producer_parallelism, self.consumer_parallelism
        if s >= t:
            return self.groups[consumer]
        return self.groups[consumer * s // t]

    def group_of_partition(self, partition: int) -> PartitionGroup:
        if self.pattern is DistributionPattern.ALL_TO_ALL:
            return self.groups[0]
        s, t = self.producer_parallelism, self.consumer_parallelism
        if s >= t:
            # The consumer i with i*s//t <= partition < (i+1)*s//t.
            return self.groups[((partition + 1) * t + s - 1) // s - 1]
        return self.groups[partition]

    def subpartitions_read_by(self, consumer: int) -> range:
        """Subpartition range consumer `consumer` reads from each of its partitions."""
        if self.pattern is DistributionPattern.ALL_TO_ALL:
            return range(consumer, consumer + 1)
        if self.producer_parallelism >= self.consumer_parallelism:
            return range(0, 1)
        # Flink uses the global consumer index modulo the partition's consumer count.
        index = consumer % len(self.group_of_consumer(consumer).consumers)
        return range(index, index + 1)

    def number_of_subpartitions(self, partition: int) -> int:
        """Subpartitions of producer partition `partition` (static graph)."""
        return len(self.group_of_partition(partition).consumers)

    @property
    def max_edges_to_target(self) -> int:
        """`computeMaxEdgesToTargetExecutionVertex`."""
        s, t = self.producer_parallelism, self.consumer_parallelism
        if self.pattern is DistributionPattern.POINTWISE:
            return (s + t - 1) // t
        return s


@dataclass(frozen=True, slots=True)
class ExecutionGraph:
    vertices: tuple[ExecutionJobVertex, ...]
    """Attached in the JobGraph's topological order."""
    edges: tuple[ExecutionEdge, ...]
    """Per consumer vertex (topological), its inputs in order."""

    @property
    def total_subtasks(self) -> int:
        return sum(v.parallelism for v in self.vertices)


@lru_cache(maxsize=256)
def pointwise_groups(producers: int, consumers: int) -> tuple[PartitionGroup, ...]:
    """`computeVertexInputInfoForPointwise` grouped by identical partition ranges (the same
    tuple for the same parallelisms: a plan of thousands of forward edges asks for one or
    two, and nothing changes a group once made)."""
    s, t = producers, consumers
    if s >= t:
        return tuple(
            PartitionGroup(range(i * s // t, (i + 1) * s // t), range(i, i + 1)) for i in range(t)
        )
    return tuple(
        PartitionGroup(range(p, p + 1), range((p * t + s - 1) // s, ((p + 1) * t + s - 1) // s))
        for p in range(s)
    )


def effective_parallelism(
    vertex: JobVertex,
) -> tuple[int, int, bool, list[Diagnostic]]:
    """Parallelism, max parallelism, whether it was derived, and the scheduler's errors."""
    problems: list[Diagnostic] = []
    parallelism = 1 if vertex.parallelism == -1 else vertex.parallelism
    max_parallelism = vertex.max_parallelism
    derived = False
    if max_parallelism == -1:
        if 1 <= parallelism <= UPPER_BOUND_MAX_PARALLELISM:
            max_parallelism = compute_default_max_parallelism(parallelism)
        derived = True
    elif max_parallelism == PARALLELISM_AUTO_MAX:
        max_parallelism = UPPER_BOUND_MAX_PARALLELISM
    for setting, value in (("parallelism", parallelism), ("max parallelism", max_parallelism)):
        if not 1 <= value <= UPPER_BOUND_MAX_PARALLELISM:
            problems.append(
                Diagnostic(
                    "execution.bounds",
                    f"Setting {setting} is not in valid bounds (1..32768), found: {value}",
                    Location(node=vertex.head, field="parallelism"),
                )
            )
    if not problems and parallelism > max_parallelism:
        problems.append(
            Diagnostic(
                "execution.parallelism-above-max",
                f"Vertex {vertex.name}'s parallelism ({parallelism}) is higher than the max "
                f"parallelism ({max_parallelism}). Please lower the parallelism or increase "
                "the max parallelism.",
                Location(node=vertex.head, field="parallelism"),
            )
        )
    return parallelism, max_parallelism, derived, problems


def build_execution_graph(job_graph: JobGraph) -> tuple[ExecutionGraph, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    vertices: dict[Hash128, ExecutionJobVertex] = {}
    for job_vertex in job_graph.vertices:
        parallelism, max_parallelism, derived, problems = effective_parallelism(job_vertex)
        diagnostics.extend(problems)
        vertices[job_vertex.id] = ExecutionJobVertex(
            job_vertex, parallelism, max_parallelism, derived
        )
    edges: list[ExecutionEdge] = []
    for job_vertex in job_graph.vertices:
        consumers = vertices[job_vertex.id].parallelism
        for job_edge in job_vertex.inputs:
            producers = vertices[job_edge.producer].parallelism
            if job_edge.distribution_pattern is DistributionPattern.ALL_TO_ALL:
                groups: tuple[PartitionGroup, ...] = (
                    PartitionGroup(range(producers), range(consumers)),
                )
            else:
                groups = pointwise_groups(producers, consumers)
            edges.append(ExecutionEdge(job_edge, producers, consumers, groups))
    return ExecutionGraph(tuple(vertices.values()), tuple(edges)), diagnostics
