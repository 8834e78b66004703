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

from compiler.chainability import chainability
from compiler.chaining import ChainPlan, build_chains
from compiler.diagnostics import Diagnostic, has_errors
from compiler.document import read_document
from compiler.execution import ExecutionGraph, build_execution_graph
from compiler.hashing import traverse_and_hash, user_hashes
from compiler.jobgraph import JobGraph, build_job_graph
from compiler.model import Hash128, NodeId, StreamGraph

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
    user_hashes: dict[NodeId, Hash128 | None] = field(default_factory=dict)
    chains: ChainPlan | None = None
    job_graph: JobGraph | None = None
    execution: ExecutionGraph | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.execution is not None and not has_errors(self.diagnostics)


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
