"""Small builders of `streamgraph/v1` documents for runtime tests.

    doc = (
        Doc(parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 10})
        .node(2, "map", {"fn": "x + 1"})
        .node(3, "sink.collect")
        .edge(1, 2)
        .edge(2, 3)
        .build()
    )

A node's name, chaining strategy and factory default to the catalog's; parallelism
to -1 (the document's default). Edges default to FORWARD, typeNumber 0. `chain()`
adds nodes joined by FORWARD edges. `build()` returns a fresh deep copy.
"""

from __future__ import annotations

import copy
from typing import Any

from runtime.catalog import CATALOG


class Doc:
    def __init__(
        self,
        name: str = "test-run",
        *,
        parallelism: int = 1,
        mode: str = "STREAMING",
        max_parallelism: int = -1,
        chaining: bool = True,
    ) -> None:
        self.document: dict[str, Any] = {
            "format": "streamgraph/v1",
            "name": name,
            "config": {
                "chainingEnabled": chaining,
                "defaultParallelism": parallelism,
                "maxParallelism": max_parallelism,
                "runtimeMode": mode,
                "chainOperatorsWithDifferentMaxParallelism": True,
            },
            "nodes": [],
            "edges": [],
        }

    def node(
        self,
        node_id: int,
        operator: str,
        params: dict[str, Any] | None = None,
        *,
        name: str | None = None,
        parallelism: int = -1,
        max_parallelism: int = -1,
        strategy: str | None = None,
        factory: str | None = None,
    ) -> Doc:
        spec = CATALOG.get(operator)
        self.document["nodes"].append(
            {
                "id": node_id,
                "name": name or (spec.name if spec else operator),
                "operator": operator,
                "params": dict(params or {}),
                "parallelism": parallelism,
                "maxParallelism": max_parallelism,
                "chainingStrategy": strategy or (spec.chaining_strategy if spec else "ALWAYS"),
                "factory": factory or (spec.factory if spec else "OPERATOR"),
                "slotSharingGroup": None,
                "coLocationGroup": None,
                "uid": None,
                "uidHash": None,
            }
        )
        return self

    def edge(
        self,
        source: int,
        target: int,
        partitioner: str = "FORWARD",
        *,
        key: str | None = None,
        partition: str | None = None,
        type_number: int = 0,
        tag: str | None = None,
        exchange: str = "UNDEFINED",
    ) -> Doc:
        edge: dict[str, Any] = {
            "source": source,
            "target": target,
            "partitioner": partitioner,
            "exchangeMode": exchange,
            "typeNumber": type_number,
            "sideOutputTag": tag,
        }
        if key is not None:
            edge["key"] = {"fn": key}
            if partition is not None:
                edge["key"]["partition"] = partition
        self.document["edges"].append(edge)
        return self

    def chain(self, *nodes: tuple[int, str, dict[str, Any]]) -> Doc:
        """Nodes joined one after the other by FORWARD edges."""
        for position, (node_id, operator, params) in enumerate(nodes):
            self.node(node_id, operator, params)
            if position:
                self.edge(nodes[position - 1][0], node_id)
        return self

    def build(self) -> dict[str, Any]:
        return copy.deepcopy(self.document)


def run(
    document: dict[str, Any],
    data_dir: Any,
    *,
    seed: int = 7,
    preview: int = 10_000,
    faults: tuple[Any, ...] = (),
    max_attempts: int = 1,
) -> tuple[Any, list[Any]]:
    """Compile, plan and run a document locally: (RunResult, published events)."""
    from compiler.pipeline import compile_document
    from runtime.local import run_locally
    from runtime.planner import RunOptions, build_run_plan

    compilation = compile_document(document)
    options = RunOptions(data_dir=str(data_dir), preview_size=preview, seed=seed, faults=faults)
    plan = build_run_plan(document, compilation, options)
    events: list[Any] = []
    result = run_locally(plan, events.append, max_attempts=max_attempts)
    return result, events


def sink_records(result: Any, node: int) -> list[Any]:
    """What a `sink.collect` node received, over its subtasks in order, as JSON values."""
    import json

    return [
        json.loads(line)
        for output in sorted(result.sinks, key=lambda o: o.subtask)
        if output.node == node
        for line in output.preview
    ]


def sink_by_subtask(result: Any, node: int) -> dict[int, list[Any]]:
    import json

    return {
        output.subtask: [json.loads(line) for line in output.preview]
        for output in result.sinks
        if output.node == node
    }
