"""The compiler's output formats, by name: what the CLI and the API hand out."""

from __future__ import annotations

import json
from typing import Any

from compiler.execution_json import execution_to_json
from compiler.explain import explain
from compiler.flinkjson import execution_plan
from compiler.jobgraph_json import job_graph_to_json
from compiler.pipeline import Compilation

FORMATS = ("jobgraph", "execution", "flink-plan", "explain")
FILE_SUFFIXES = {
    "jobgraph": ".jobgraph.json",
    "execution": ".execution.json",
    "flink-plan": ".plan.json",
    "explain": ".explain.json",
}


def render_json(compilation: Compilation, output_format: str) -> dict[str, Any]:
    """The document of `output_format` for a compilation without errors."""
    graph, job_graph = compilation.graph, compilation.job_graph
    if graph is None or job_graph is None or compilation.chains is None:
        raise ValueError("the compilation has errors; there is no plan to render")
    if output_format == "jobgraph":
        return job_graph_to_json(job_graph, compilation.hashes)
    if output_format == "execution":
        if compilation.execution is None:
            raise ValueError("the compilation has errors; there is no execution graph")
        return execution_to_json(job_graph, compilation.execution)
    if output_format == "explain":
        return explain(
            graph,
            compilation.chainable,
            compilation.chains,
            compilation.hashes,
            compilation.user_hashes,
        ).to_json()
    raise ValueError(f"unknown format {output_format!r}; choose one of {', '.join(FORMATS)}")


def render_text(compilation: Compilation, output_format: str) -> str:
    """`render_json` as text; `flink-plan` is Flink's own text, byte for byte."""
    if output_format == "flink-plan":
        if compilation.graph is None:
            raise ValueError("the compilation has errors; there is no plan to render")
        return execution_plan(compilation.graph)
    return json.dumps(render_json(compilation, output_format), indent=2, ensure_ascii=False)
