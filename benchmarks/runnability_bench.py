"""Run-problem check benchmark: `runtime.runnability.runnability` as the editor pays it.

The co-editing server checks a document for run problems on every edit that touches
operators or parameters, next to compiling it. Prints, per document, the first check
(every expression compiled) and the median of later checks (expressions cached), in ms,
for the large graphs of `tests/compiler/data/perf` and a 5,000-operator chain of maps
and filters whose every expression differs.

    python -m benchmarks.runnability_bench [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from runtime import expressions
from runtime.runnability import runnability

PERF_DIR = Path(__file__).resolve().parents[1] / "tests" / "compiler" / "data" / "perf"


def distinct_expressions(operators: int) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = [
        {"id": 1, "name": "Source: Sequence", "operator": "source.sequence",
         "params": {"from": 1, "to": 3}},
    ]  # fmt: skip
    edges: list[dict[str, Any]] = []
    for node in range(2, operators + 1):
        if node % 3:
            nodes.append({"id": node, "name": "Map", "operator": "map",
                          "params": {"fn": f"x + {node}"}})  # fmt: skip
        else:
            nodes.append({"id": node, "name": "Filter", "operator": "filter",
                          "params": {"predicate": f"x % {node} == 0"}})  # fmt: skip
        hashed = node % 7 == 0
        edge: dict[str, Any] = {"source": node - 1, "target": node,
                                "partitioner": "HASH" if hashed else "FORWARD"}  # fmt: skip
        if hashed:
            edge["key"] = {"fn": f"x % {node}"}
        edges.append(edge)
    return {"format": "streamgraph/v1", "name": "distinct", "nodes": nodes, "edges": edges}


def _clear_expression_cache() -> None:
    expressions._compile_cached.cache_clear()


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    documents = {
        path.name.removesuffix(".streamgraph.json"): json.loads(path.read_text("utf-8"))
        for path in sorted(PERF_DIR.glob("*.streamgraph.json"))
    }
    documents["distinct-5000"] = distinct_expressions(5000)
    print("Run-problem check (runtime.runnability.runnability), ms")
    print(f"{'document':<24}{'operators':>10}{'first':>10}{'again (median)':>17}{'problems':>10}")
    for name, document in documents.items():
        _clear_expression_cache()
        start = time.perf_counter()
        problems = runnability(document)
        first = _ms(start)
        again = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            runnability(document)
            again.append(_ms(start))
        print(
            f"{name:<24}{len(document['nodes']):>10}{first:>10.1f}"
            f"{statistics.median(again):>17.1f}{len(problems):>10}"
        )


if __name__ == "__main__":
    main()
