"""Writes `plandeltas.json`: live plans before and after real edits and the delta the
server sends between them (`compiler.liveplan.plan_delta`), for both appliers to turn
one into the other. `tests/compiler/test_contracts.py` fails when the server's deltas
no longer match the file; write it again with

    PYTHONPATH=backend:. python -m tests.contracts.plandeltas
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from benchmarks.coediting_bench import pipeline_document

from compiler.liveplan import live_plan, plan_delta
from compiler.pipeline import compile_document

PATH = Path(__file__).with_name("plandeltas.json")


def _with(document: dict[str, Any], node_id: int, field: str, value: Any) -> dict[str, Any]:
    result = copy.deepcopy(document)
    next(n for n in result["nodes"] if n["id"] == node_id)[field] = value
    return result


def cases() -> list[dict[str, Any]]:
    """Four branches of five operators, keyed halfway, and edits of one node each."""
    start = pipeline_document(20)
    broken = _with(start, 2, "chainingStrategy", "HEAD")
    steps = [
        ("breaking a chain moves every id downstream by one XOR", start, broken),
        ("joining it again moves them back", broken, start),
        ("renaming a chained operator renames its vertex", start, _with(start, 4, "name", "Parse")),
    ]
    result = []
    for name, before, after in steps:
        old = live_plan(compile_document(before))
        new = live_plan(compile_document(after))
        result.append({"name": name, "before": old, "delta": plan_delta(old, new), "after": new})
    return result


def main() -> None:
    lines = ",\n".join(json.dumps(case, separators=(",", ":")) for case in cases())
    PATH.write_text('{"cases": [\n' + lines + "\n]}\n")


if __name__ == "__main__":
    main()
