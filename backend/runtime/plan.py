"""The run plan: what to run, per JobVertex, as small frozen dataclasses.

A `RunPlan` holds its vertices in the JobGraph's topological order; each `VertexPlan`
its effective parallelism and max parallelism, its operators in chain order with their
parameters, its input JobEdges (in Flink's order: the consumer's `inputs`), its output
JobEdges (the chain's transitive out-edges, in Flink's order), one `Router` per JobEdge,
and the generated code of its fused chain. `runtime.planner` builds it from a compiled
document; `runtime.chains.SubtaskRun` runs one subtask of a vertex.

The plan is small and picklable: it is shipped to Spark workers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from runtime.catalog import CATALOG
from runtime.routing import Router

MIN_PREVIEW_CHARS = 2_000
"""Characters of preview each sink subtask keeps at least."""


@dataclass(frozen=True, slots=True)
class Fault:
    """Test-only: make chosen attempts of a subtask fail (to show Spark's retries).

    Matches the subtask of the vertex with id `vertex`, or of the vertex holding node
    `node`. With `after_records` 0 the attempt fails as it starts, otherwise after
    reading that many input records.
    """

    subtask: int
    attempts: tuple[int, ...] = (0,)
    message: str = "injected failure"
    vertex: str | None = None
    node: int | None = None
    after_records: int = 0


@dataclass(frozen=True, slots=True)
class ChainCode:
    source: str
    """The generated module: it defines `_chain(_records, _ctx)`."""
    lines: tuple[int, ...]
    """Per line of `source`: the node it runs (0: none; -1 - p: output p)."""


@dataclass(frozen=True, slots=True)
class NodeOut:
    """One out-edge of an operator, in edge order: to a chained operator or a network output."""

    edge: int
    """The StreamEdge's index in the document."""
    tag: str | None
    """The side output it carries (None: the main output)."""
    node: int | None
    """The chained operator it feeds."""
    output: int | None
    """Or the position of the vertex output (`VertexPlan.outputs`) it is."""
    type_number: int = 0
    """The input of the target it feeds (1 / 2 for a two-input operator)."""


@dataclass(frozen=True, slots=True)
class NodePlan:
    id: int
    name: str
    kind: str
    params: Mapping[str, Any]
    """The document's parameters that apply, with the catalog's defaults for absent
    optional ones."""
    outs: tuple[NodeOut, ...]

    @property
    def label(self) -> str:
        return f"{self.name} (node {self.id})"


@dataclass(frozen=True, slots=True)
class InputEdge:
    """One input JobEdge of a vertex, at its position in the vertex's inputs."""

    position: int
    edge: int
    """The StreamEdge's index in the document."""
    producer: str
    producer_parallelism: int
    partitioner: str
    type_number: int
    """The input of the head it feeds: 0, or 1 / 2 for a two-input operator."""
    key: str | None
    """HASH / CUSTOM: the key expression (of `x`)."""
    router: Router


@dataclass(frozen=True, slots=True)
class OutputEdge:
    """One output JobEdge of a vertex, at its position in the vertex's outputs."""

    position: int
    edge: int
    node: int
    """The operator of the chain that sends on it."""
    tag: str | None
    consumer: str
    consumer_input: int
    """Its position among the consumer vertex's inputs."""
    consumer_parallelism: int
    partitioner: str
    result_partition_type: str
    """The exchange Flink plans for the JobEdge (`PIPELINED_BOUNDED`, `BLOCKING`, ...)."""
    router: Router


@dataclass(frozen=True, slots=True)
class RunContext:
    """What every subtask needs to know about the run."""

    runtime_mode: str
    data_dir: str
    """The data location (`runtime.storage`): an absolute folder for `file:`, else a URI."""
    preview_size: int
    seed: int
    faults: tuple[Fault, ...] = ()
    preview_chars: int = MIN_PREVIEW_CHARS
    """Characters of preview each sink subtask keeps (`RunOptions.preview_budget`)."""
    token: str = ""
    """Names what this run writes before it commits (file sinks' pending parts)."""


@dataclass(frozen=True, slots=True)
class VertexPlan:
    id: str
    """JobVertexID, 32 hex characters."""
    name: str
    parallelism: int
    max_parallelism: int
    """Effective (the scheduler's) max parallelism: the key groups of its keyed state."""
    head: int
    nodes: tuple[NodePlan, ...]
    """Chain order (Flink's: children before parents, the head last)."""
    chained_sources: tuple[NodePlan, ...]
    """FLIP-27 sources chained into a HEAD_WITH_SOURCES head."""
    inputs: tuple[InputEdge, ...]
    outputs: tuple[OutputEdge, ...]
    context: RunContext
    codes: Mapping[str, ChainCode] = field(default_factory=dict)
    """The fused chain in every input > output shape (`runtime.chains.VARIANTS`)."""

    @property
    def is_source(self) -> bool:
        return not self.inputs

    @property
    def sinks(self) -> tuple[int, ...]:
        """The sink operators of the vertex, in chain order."""
        return tuple(n.id for n in self.nodes if CATALOG[n.kind].is_sink)

    @property
    def sources(self) -> tuple[int, ...]:
        """The source operators of the vertex (its head, or sources chained into it)."""
        return tuple(
            n.id for n in (*self.chained_sources, *self.nodes) if CATALOG[n.kind].inputs == 0
        )

    @property
    def code(self) -> str:
        """The chain that yields (output position, record) for (input position, record)."""
        return self.codes["records>plain"].source

    def node(self, node_id: int) -> NodePlan:
        return next(n for n in (*self.nodes, *self.chained_sources) if n.id == node_id)

    def subtask_name(self, subtask: int) -> str:
        """Flink's `Name (i/p)`."""
        return f"{self.name} ({subtask + 1}/{self.parallelism})"


@dataclass(frozen=True, slots=True)
class RunPlan:
    name: str
    runtime_mode: str
    seed: int
    data_dir: str
    preview_size: int
    vertices: tuple[VertexPlan, ...]
    """In the JobGraph's topological order: every vertex after its producers."""
    faults: tuple[Fault, ...] = field(default=())
    token: str = ""
    """`RunContext.token`."""

    def vertex(self, vertex_id: str) -> VertexPlan:
        return next(v for v in self.vertices if v.id == vertex_id)

    @property
    def total_subtasks(self) -> int:
        return sum(v.parallelism for v in self.vertices)


__all__ = [
    "ChainCode",
    "Fault",
    "InputEdge",
    "NodeOut",
    "NodePlan",
    "OutputEdge",
    "RunContext",
    "RunPlan",
    "VertexPlan",
]
