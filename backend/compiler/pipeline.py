"""The compiler as an ordered list of passes, each timed on request.

    read      streamgraph/v1 -> StreamGraph + diagnostics   (compiler.document)
    chainable isChainable of every edge                     (compiler.chainability)
    hashing   StreamGraphHasherV2 + user hashes             (compiler.hashing)
    chaining  operator chains, vertex names and order       (compiler.chaining)
    jobgraph  data sets, JobEdges, slot sharing             (compiler.jobgraph)
    execution parallelism, partitions, key groups           (compiler.execution)

A document with errors stops after the pass that found them; the result then
carries the diagnostics and no later products.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from compiler.chainability import chainability
from compiler.chaining import ChainPlan, build_chains
from compiler.diagnostics import Diagnostic, has_errors
from compiler.document import read_document
from compiler.execution import ExecutionGraph, build_execution_graph
from compiler.hashing import traverse_and_hash, user_hashes
from compiler.jobgraph import JobGraph, build_job_graph
from compiler.model import Hash128, NodeId, StreamGraph

PASSES = ("read", "chainable", "hashing", "chaining", "jobgraph", "execution")

_T = TypeVar("_T")


@dataclass(slots=True)
class Compilation:
    """Everything the compiler derived from one document."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    graph: StreamGraph | None = None
    chainable: list[bool] = field(default_factory=list)
    hashes: dict[NodeId, Hash128] = field(default_factory=dict)
    user_hashes: dict[NodeId, Hash128 | None] = field(default_factory=dict)
    chains: ChainPlan | None = None
    job_graph: JobGraph | None = None
    execution: ExecutionGraph | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.execution is not None and not has_errors(self.diagnostics)


def compile_document(document: object, *, until: str = "execution") -> Compilation:
    """Run the passes over a parsed `streamgraph/v1` document, up to and including `until`."""
    result = Compilation()
    last = PASSES.index(until)

    def timed(name: str, run: Callable[[], _T]) -> _T:
        start = time.perf_counter()
        value = run()
        result.timings_ms[name] = (time.perf_counter() - start) * 1000.0
        return value

    graph, diagnostics = timed("read", lambda: read_document(document))
    result.diagnostics.extend(diagnostics)
    if graph is None:
        return result
    result.graph = graph
    chainable, chained_outputs = timed("chainable", lambda: chainability(graph))
    result.chainable = chainable
    if last < 2:
        return result

    def hash_all() -> tuple[dict[NodeId, Hash128], dict[NodeId, Hash128 | None]]:
        return traverse_and_hash(graph, chainable, chained_outputs), user_hashes(graph)

    result.hashes, result.user_hashes = timed("hashing", hash_all)
    if last < 3:
        return result
    result.chains = plan = timed("chaining", lambda: build_chains(graph, chainable))
    if last < 4:
        return result
    job_graph, diagnostics = timed(
        "jobgraph",
        lambda: build_job_graph(graph, plan, result.hashes, result.user_hashes, chainable),
    )
    result.diagnostics.extend(diagnostics)
    result.job_graph = job_graph
    if has_errors(diagnostics) or last < 5:
        return result
    execution, diagnostics = timed("execution", lambda: build_execution_graph(job_graph))
    result.diagnostics.extend(diagnostics)
    if not has_errors(diagnostics):
        result.execution = execution
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
