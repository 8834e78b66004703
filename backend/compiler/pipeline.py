"""The compiler as an ordered list of passes (`PIPELINE`), folded over one `Compilation`.

    read      streamgraph/v1 -> StreamGraph + diagnostics   (compiler.document)
    chainable isChainable of every edge                     (compiler.chainability)
    hashing   StreamGraphHasherV2 + user hashes             (compiler.hashing)
    chaining  operator chains, vertex names and order       (compiler.chaining)
    jobgraph  data sets, JobEdges, slot sharing             (compiler.jobgraph)
    execution parallelism, partitions, key groups           (compiler.execution)

A document with errors stops after the pass that found them; the result then
carries the diagnostics and no later products. Every pass is timed (`timings_ms`).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from compiler.chainability import chainability, rechain_around
from compiler.chaining import ChainPlan, build_chains, rebuild_chains
from compiler.diagnostics import Diagnostic, has_errors
from compiler.document import read_document
from compiler.execution import ExecutionGraph, build_execution_graph
from compiler.hashing import rehash, traverse_and_hash, user_hash, user_hashes
from compiler.jobgraph import JobGraph, Unchanged, build_job_graph
from compiler.model import Hash128, NodeId, OperatorFactory, StreamEdge, StreamGraph

_T = TypeVar("_T")


@dataclass(slots=True)
class Compilation:
    """Everything the compiler derived from one document."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    graph: StreamGraph | None = None
    chainable: list[bool] = field(default_factory=list)
    chained_outputs: dict[NodeId, int] = field(default_factory=dict)
    """How many out-edges of each node chain (what the hashing pass needs of chaining)."""
    hashes: dict[NodeId, Hash128] = field(default_factory=dict)
    """In the hasher's traversal order."""
    user_hashes: dict[NodeId, Hash128 | None] = field(default_factory=dict)
    chains: ChainPlan | None = None
    job_graph: JobGraph | None = None
    execution: ExecutionGraph | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    change: NodeChange | None = None
    """What changed since the compilation this one was recompiled from, if it was."""
    unchanged: Unchanged | None = None
    """What the JobGraph pass may take from the previous compilation's, if anything."""
    _positions: dict[NodeId, int] | None = None
    _yielding: bool | None = None

    def may_yield(self) -> bool:
        """Whether the graph may have a yielding operator (then it has, unless an edit since
        the last full compilation took it away)."""
        if self._yielding is None:
            nodes = self.graph.nodes.values() if self.graph is not None else ()
            self._yielding = any(n.factory is OperatorFactory.YIELDING for n in nodes)
        return self._yielding

    def positions(self) -> dict[NodeId, int]:
        """Each node's place in the hasher's traversal (its `k`)."""
        if self._positions is None:
            self._positions = {nid: k for k, nid in enumerate(self.hashes)}
        return self._positions

    @property
    def ok(self) -> bool:
        return self.execution is not None and not has_errors(self.diagnostics)


@dataclass(frozen=True, slots=True)
class NodeChange:
    """What `recompile_node` found an edit of one node changed."""

    previous_graph: StreamGraph
    """The graph of the compilation recompiled from (not that compilation: models kept in
    a row would otherwise hold every compilation before theirs)."""
    node: NodeId
    flipped: list[StreamEdge]
    """The edges whose chainability changed."""
    moved: set[NodeId]
    """The nodes whose hash changed."""
    rebuilt: set[NodeId]
    """The heads of the chains built again (the others are the previous plan's)."""


@dataclass(frozen=True, slots=True)
class Pass:
    """One pass: it reads the products of the passes before it from the compilation and
    adds its own. `run` answers False when what it found stops the passes after it."""

    name: str
    run: Callable[[object, Compilation], bool]


def _read(document: object, result: Compilation) -> bool:
    result.graph, diagnostics = read_document(document)
    result.diagnostics.extend(diagnostics)
    return result.graph is not None


def _chainable(document: object, result: Compilation) -> bool:
    result.chainable, result.chained_outputs = chainability(_product(result.graph))
    return True


def _hashing(document: object, result: Compilation) -> bool:
    graph = _product(result.graph)
    result.hashes = traverse_and_hash(graph, result.chainable, result.chained_outputs)
    result.user_hashes = user_hashes(graph)
    return True


def _chaining(document: object, result: Compilation) -> bool:
    result.chains = build_chains(_product(result.graph), result.chainable)
    return True


def _jobgraph(document: object, result: Compilation) -> bool:
    result.job_graph, diagnostics = build_job_graph(
        _product(result.graph),
        _product(result.chains),
        result.hashes,
        result.user_hashes,
        result.chainable,
        result.unchanged,
    )
    result.diagnostics.extend(diagnostics)
    return not has_errors(diagnostics)


def _execution(document: object, result: Compilation) -> bool:
    execution, diagnostics = build_execution_graph(_product(result.job_graph))
    result.diagnostics.extend(diagnostics)
    if has_errors(diagnostics):
        return False
    result.execution = execution
    return True


def _product(value: _T | None) -> _T:
    """A product of an earlier pass, which ran: the passes stop before one that failed."""
    assert value is not None
    return value


PIPELINE: tuple[Pass, ...] = (
    Pass("read", _read),
    Pass("chainable", _chainable),
    Pass("hashing", _hashing),
    Pass("chaining", _chaining),
    Pass("jobgraph", _jobgraph),
    Pass("execution", _execution),
)
"""The passes in the order they run: adding a pass is adding an entry."""

PASSES = tuple(step.name for step in PIPELINE)


def compile_document(document: object, *, until: str = "execution") -> Compilation:
    """Run the passes over a parsed `streamgraph/v1` document, up to and including `until`."""
    if until not in PASSES:
        raise ValueError(f"there is no pass {until!r}; the passes are {', '.join(PASSES)}")
    result = Compilation()
    for step in PIPELINE:
        start = time.perf_counter()
        go_on = step.run(document, result)
        result.timings_ms[step.name] = (time.perf_counter() - start) * 1000.0
        if not go_on or step.name == until:
            break
    return result


def median_pass_timings(document: object, *, repeat: int) -> dict[str, float]:
    """Median milliseconds of each pass (and of all of them) over `repeat` runs.

    One warm-up run first, so imports and caches are not counted.
    """
    compile_document(document)
    runs = [compile_document(document).timings_ms for _ in range(max(1, repeat))]
    result = {name: statistics.median(run.get(name, 0.0) for run in runs) for name in PASSES}
    result["total"] = statistics.median(sum(run.values()) for run in runs)
    return result


def recompile_node(previous: Compilation, graph: StreamGraph, node_id: NodeId) -> Compilation:
    """`compile_document` of a document after an edit of one node alone, which
    `compiler.document.reread_node` read again into `graph`, from the compilation of the
    document before it (read without a diagnostic, every pass run; same edges and uids).
    Chainability, hashes and chains are recomputed around what the edit changed: the edges
    of that node, the hashes downstream of a chain it breaks or makes, the chains those are
    in; the JobGraph and ExecutionGraph are built whole. Falls back to running those passes
    whole where the edit reaches further (`rechain_around`, `rebuild_chains`)."""
    result = Compilation(graph=graph)
    rechained = None
    result._yielding = (
        previous.may_yield() or graph.nodes[node_id].factory is OperatorFactory.YIELDING
    )
    if previous.graph is not None and previous.chains is not None and previous.hashes:
        rechained = rechain_around(
            graph, previous.chainable, previous.chained_outputs, node_id, result._yielding
        )
    rebuilt = None
    if rechained is not None:
        result.chainable, result.chained_outputs, flipped = rechained
        assert previous.chains is not None
        rebuilt = rebuild_chains(graph, result.chainable, previous.chains, flipped, node_id)
    if rechained is None or rebuilt is None:
        for step in PIPELINE[1:]:
            if not step.run(None, result):
                break
        return result
    changed = {edge.source for edge in flipped}
    result.hashes, moved = rehash(
        graph, result.chained_outputs, previous.hashes, previous.positions(), changed
    )
    result._positions = previous.positions()  # the same traversal
    user = user_hash(graph.nodes[node_id])
    if user == previous.user_hashes.get(node_id):
        result.user_hashes = previous.user_hashes  # products are never changed once made
    else:
        result.user_hashes = {**previous.user_hashes, node_id: user}
    result.chains, heads = rebuilt
    assert previous.graph is not None  # checked before rechaining
    result.change = NodeChange(previous.graph, node_id, flipped, moved, heads)
    if previous.job_graph is not None:
        changed_heads = heads | {c.head for c in result.chains.chains if c.head in moved}
        result.unchanged = Unchanged(previous.job_graph, changed_heads)
    for step in PIPELINE[PASSES.index("jobgraph") :]:
        if not step.run(None, result):
            break
    result.unchanged = None  # keeps no JobGraph but its own alive
    return result
