"""Building the run plan (`runtime.plan`) from a compiled document.

`build_run_plan(document, compilation, options)` turns the compiler's JobGraph and
ExecutionGraph into a `RunPlan`, checking first what would stop the run
(`runtime.runnability`, the paths in the data folder), and generates every vertex's
fused chain (`runtime.chains`). Generating the chain code here, in the driver, means a
plan that cannot run fails before any Spark job starts, and workers only compile the
text (once per process).
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from compiler.diagnostics import Diagnostic, Location, Severity, has_errors
from compiler.execution import ExecutionEdge
from compiler.hashing import to_hex
from compiler.jobgraph import JobEdge
from compiler.model import NodeId, StreamGraph
from compiler.pipeline import Compilation
from runtime.catalog import CATALOG, KEY_VARIABLES, PARTITION_VARIABLES
from runtime.chains import generate_chains
from runtime.expressions import compile_expression
from runtime.operators.sinks import FILE_SINKS
from runtime.operators.sources import FILE_SOURCES
from runtime.paths import PathError, PathOutside, list_files, resolve
from runtime.plan import (
    MIN_PREVIEW_CHARS,
    Fault,
    InputEdge,
    NodeOut,
    NodePlan,
    OutputEdge,
    RunContext,
    RunPlan,
    VertexPlan,
)
from runtime.routing import Router, edge_seed, make_router
from runtime.runnability import runnability
from runtime.storage import data_location

DEFAULT_PREVIEW = 100
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
PREVIEW_BUDGET_CHARS = 1_000_000
"""Characters of sink previews a whole run keeps (shared by its sink subtasks): a run's
previews are stored in its row and sent whole to every client that opens it."""


@dataclass(frozen=True, slots=True)
class RunOptions:
    data_dir: str
    """The data location sources read and sinks write in, paths in documents relative to
    it (`runtime.storage`): a folder or a URI (`file:///srv/data`,
    `hdfs://namenode:8020/studio/workspaces/3`). The plan holds a `file:` location as its
    absolute folder, symbolic links resolved, and another one as its URI."""
    preview_size: int = DEFAULT_PREVIEW
    """Records each sink subtask keeps as text for the run's preview."""
    preview_budget: int = PREVIEW_BUDGET_CHARS
    """Characters of preview the whole run keeps, shared evenly by its sink subtasks (each
    keeps at least `MIN_PREVIEW_CHARS`)."""
    seed: int | None = None
    """Seed of REBALANCE starts and SHUFFLE draws; None: a random one, kept in the plan."""
    faults: tuple[Fault, ...] = ()

    @property
    def location(self) -> str:
        """`data_dir`, a folder relative to this process's working folder made absolute."""
        if _URI.match(self.data_dir) or self.data_dir.startswith("/"):
            return self.data_dir
        return os.path.abspath(self.data_dir)


class RunPlanError(ValueError):
    """The document cannot run; `diagnostics` say where and why."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        errors = [d for d in diagnostics if d.severity is Severity.ERROR]
        first = f": {errors[0]}" if errors else ""
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"the pipeline cannot run{first}{more}")
        self.diagnostics = diagnostics


def build_run_plan(
    document: Mapping[str, Any], compilation: Compilation, options: RunOptions
) -> RunPlan:
    """The plan of a compiled document; raises RunPlanError with every problem found."""
    diagnostics = [d for d in compilation.diagnostics if d.severity is Severity.ERROR]
    diagnostics += [d for d in runnability(document) if d.severity is Severity.ERROR]
    graph, job_graph, execution, chains = (
        compilation.graph,
        compilation.job_graph,
        compilation.execution,
        compilation.chains,
    )
    if has_errors(diagnostics) or graph is None or job_graph is None or execution is None:
        if not diagnostics:
            diagnostics.append(Diagnostic("run.not-compiled", "the document did not compile"))
        raise RunPlanError(diagnostics)
    assert chains is not None
    location = data_location(options.location)
    if location.is_local:
        _check_paths(document, str(location.local_path), diagnostics)
    if diagnostics:
        raise RunPlanError(diagnostics)

    seed = options.seed if options.seed is not None else secrets.randbits(63)
    # Workers may run elsewhere: a folder of this host, resolved once here.
    data_dir = str(location.local_path.resolve()) if location.is_local else location.uri
    token = secrets.token_hex(6)
    raw_nodes = {n["id"]: n for n in document["nodes"]}
    raw_edges = document["edges"]  # the compiler keeps keys only as text to compare
    execution_vertex = {v.id: v for v in execution.vertices}
    sink_subtasks = sum(
        execution_vertex[v.id].parallelism
        for v in job_graph.vertices
        for n in v.nodes
        if CATALOG[raw_nodes[n]["operator"]].is_sink
    )
    context = RunContext(
        runtime_mode=graph.config.runtime_mode.value,
        data_dir=data_dir,
        preview_size=options.preview_size,
        seed=seed,
        faults=options.faults,
        preview_chars=max(MIN_PREVIEW_CHARS, options.preview_budget // max(1, sink_subtasks)),
        token=token,
    )
    execution_edge: dict[int, ExecutionEdge] = {id(e.job_edge): e for e in execution.edges}
    chain_of = {chain.head: chain for chain in chains.chains}

    # Every JobEdge, by its StreamEdge: (consumer vertex, position among its inputs, edge).
    consumed: dict[int, tuple[str, int, JobEdge]] = {}
    for job_vertex in job_graph.vertices:
        for position, job_edge in enumerate(job_vertex.inputs):
            consumed[job_edge.stream_edge.index] = (to_hex(job_vertex.id), position, job_edge)

    routers: dict[int, Router] = {}
    for job_vertex in job_graph.vertices:
        consumer = execution_vertex[job_vertex.id]
        for job_edge in job_vertex.inputs:
            stream_edge = job_edge.stream_edge
            key_text, partition_text = _key_texts(raw_edges[stream_edge.index].get("key"))
            target = graph.nodes[stream_edge.target]
            routers[stream_edge.index] = make_router(
                execution_edge[id(job_edge)],
                consumer_max_parallelism=consumer.max_parallelism,
                seed=edge_seed(seed, to_hex(job_edge.data_set)),
                key=compile_expression(key_text, KEY_VARIABLES) if key_text else None,
                partition=(
                    compile_expression(partition_text, PARTITION_VARIABLES)
                    if partition_text
                    else None
                ),
                consumer=f"{target.name} (node {target.id})",
            )

    vertices: list[VertexPlan] = []
    for job_vertex in job_graph.vertices:
        vertex_id = to_hex(job_vertex.id)
        chain = chain_of[job_vertex.head]
        outputs = []
        position_of_edge: dict[int, int] = {}
        for position, stream_edge in enumerate(chain.transitive_out_edges):
            consumer_id, consumer_input, job_edge = consumed[stream_edge.index]
            position_of_edge[stream_edge.index] = position
            outputs.append(
                OutputEdge(
                    position=position,
                    edge=stream_edge.index,
                    node=stream_edge.source,
                    tag=stream_edge.side_output_tag,
                    consumer=consumer_id,
                    consumer_input=consumer_input,
                    consumer_parallelism=execution_vertex[job_edge.target].parallelism,
                    partitioner=stream_edge.partitioner.value,
                    result_partition_type=job_edge.result_partition_type.value,
                    router=routers[stream_edge.index],
                )
            )
        inputs = []
        for position, job_edge in enumerate(job_vertex.inputs):
            stream_edge = job_edge.stream_edge
            inputs.append(
                InputEdge(
                    position=position,
                    edge=stream_edge.index,
                    producer=to_hex(job_edge.producer),
                    producer_parallelism=execution_vertex[job_edge.producer].parallelism,
                    partitioner=stream_edge.partitioner.value,
                    type_number=stream_edge.type_number,
                    key=_key_texts(raw_edges[stream_edge.index].get("key"))[0],
                    router=routers[stream_edge.index],
                )
            )
        effective = execution_vertex[job_vertex.id]
        vertex = VertexPlan(
            id=vertex_id,
            name=job_vertex.name,
            parallelism=effective.parallelism,
            max_parallelism=effective.max_parallelism,
            head=job_vertex.head,
            nodes=tuple(
                _node_plan(graph, raw_nodes, n, position_of_edge) for n in job_vertex.nodes
            ),
            chained_sources=tuple(
                _node_plan(graph, raw_nodes, n, position_of_edge)
                for n in job_vertex.chained_sources
            ),
            inputs=tuple(inputs),
            outputs=tuple(outputs),
            context=context,
        )
        vertices.append(replace(vertex, codes=generate_chains(vertex)))
    return RunPlan(
        name=graph.name,
        runtime_mode=context.runtime_mode,
        seed=seed,
        data_dir=data_dir,
        preview_size=options.preview_size,
        vertices=tuple(vertices),
        faults=options.faults,
        token=token,
    )


def _node_plan(
    graph: StreamGraph,
    raw_nodes: dict[int, dict[str, Any]],
    node_id: NodeId,
    position_of_edge: dict[int, int],
) -> NodePlan:
    """An operator with its out-edges: network outputs are the vertex's JobEdges."""
    outs = []
    for edge in graph.out_edges[node_id]:
        output = position_of_edge.get(edge.index)
        outs.append(
            NodeOut(
                edge=edge.index,
                tag=edge.side_output_tag,
                node=edge.target if output is None else None,
                output=output,
                type_number=edge.type_number,
            )
        )
    raw = raw_nodes[node_id]
    return NodePlan(
        id=node_id,
        name=graph.nodes[node_id].name,
        kind=raw["operator"],
        params=_run_params(raw["operator"], raw.get("params") or {}),
        outs=tuple(outs),
    )


def _key_texts(key: object) -> tuple[str | None, str | None]:
    if not isinstance(key, dict):
        return None, None
    fn, partition = key.get("fn"), key.get("partition")
    return (
        fn if isinstance(fn, str) else None,
        partition if isinstance(partition, str) else None,
    )


def _run_params(kind: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """What the operator reads: without the parameters that do not apply (a value left
    from another window assigner), with the defaults of absent optional ones."""
    result = dict(params)
    for param in CATALOG[kind].params:
        if not param.applies(params):
            result.pop(param.name, None)
        elif result.get(param.name) is None and not param.required and param.default is not None:
            result[param.name] = param.default
    return result


def _check_paths(document: Mapping[str, Any], data_dir: str, diagnostics: list[Diagnostic]) -> None:
    """Source files must exist in a `file:` data folder; sink folders must lie inside it
    (and not be it). A path that leaves it through a symbolic link is
    `param.path-outside-data`. (What the text shows, `runnability` reports on every
    scheme; the Spark executor finds files on the others, `runtime.spark.hadoop`.)"""
    for node in document["nodes"]:
        kind = node.get("operator")
        if kind in FILE_SOURCES:
            path = node["params"]["path"]
            code = "run.path-missing"
            try:
                files = list_files(data_dir, path)
            except PathOutside as error:
                code, message = "param.path-outside-data", str(error)
            except (PathError, OSError) as error:
                message = str(error)
            else:
                if files:
                    continue
                message = f"{path!r} holds no files to read"
        elif kind in FILE_SINKS:
            try:
                resolve(data_dir, node["params"]["path"], must_exist=False, writes=True)
                continue
            except (PathError, OSError) as error:
                message = str(error)
            code = "param.path-outside-data"
        else:
            continue
        diagnostics.append(
            Diagnostic(code, message, Location(node=node["id"], field="params.path"))
        )


__all__ = ["RunOptions", "RunPlanError", "build_run_plan"]
