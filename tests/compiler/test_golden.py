"""Golden tests: every oracle fixture compiles to exactly what Flink 2.3.0 produced.

Adding a case is adding a `<name>.streamgraph.json` / `<name>.expected.json`
pair under `data/fixtures` (or `data/perf`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import Severity
from compiler.jobgraph_json import job_graph_to_json
from compiler.pipeline import compile_document

DATA = Path(__file__).resolve().parent / "data"
FIXTURES = DATA / "fixtures"
SUFFIX = ".streamgraph.json"
INPUTS = sorted([*FIXTURES.glob(f"*{SUFFIX}"), *(DATA / "perf").glob(f"*{SUFFIX}")])


def _name(path: Path) -> str:
    return path.name[: -len(SUFFIX)]


def _load(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


@pytest.mark.parametrize("path", INPUTS, ids=[_name(p) for p in INPUTS])
def test_compiles_to_the_flink_job_graph(path: Path) -> None:
    document = _load(path)
    expected = _load(path.with_name(_name(path) + ".expected.json"))

    compilation = compile_document(document)

    errors = [str(d) for d in compilation.diagnostics if d.severity is Severity.ERROR]
    assert errors == []
    assert compilation.ok
    assert compilation.job_graph is not None
    actual = job_graph_to_json(compilation.job_graph, compilation.hashes)
    assert actual == expected


def test_every_fixture_of_the_manifest_is_tested() -> None:
    manifest = _load(FIXTURES / "manifest.json")
    names = {_name(p) for p in FIXTURES.glob(f"*{SUFFIX}")}
    assert manifest["count"] == 123
    assert len(names) == manifest["count"]
    assert names == {entry["name"] for entry in manifest["fixtures"]}
    for name in names:
        assert (FIXTURES / f"{name}.expected.json").is_file()


def test_the_perf_graphs_are_tested() -> None:
    perf = sorted(_name(p) for p in (DATA / "perf").glob(f"*{SUFFIX}"))
    assert perf == ["large-100", "large-1000", "large-1000-unchained", "large-5000"]
