"""The run plan: what runs per vertex, and every reason a document cannot run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from compiler.hashing import to_hex
from compiler.pipeline import compile_document
from runtime.plan import RunPlan
from runtime.planner import RunOptions, RunPlanError, build_run_plan
from tests.runtime.builders import Doc, run, sink_records


def build(document: dict[str, Any], data_dir: Path | str = ".", **options: Any) -> RunPlan:
    return build_run_plan(
        document, compile_document(document), RunOptions(str(data_dir), **options)
    )


def codes(error: pytest.ExceptionInfo[RunPlanError]) -> list[tuple[str, Any, Any, Any]]:
    return [
        (d.code, d.location.node, d.location.edge, d.location.field)
        for d in error.value.diagnostics
    ]


def test_vertices_follow_the_job_graph_with_effective_parallelism():
    doc = (
        Doc(parallelism=3)
        .node(1, "source.sequence", {"from": 1, "to": 9})
        .node(2, "map", {"fn": "x"}, parallelism=2, max_parallelism=16)
        .node(3, "reduce", {"fn": "a + b"})
        .node(4, "sink.print")
        .node(5, "sink.collect")
        .edge(1, 2, "REBALANCE")
        .edge(2, 3, "HASH", key="x % 3")
        .edge(2, 5, "BROADCAST")
        .edge(3, 4)
        .build()
    )
    compilation = compile_document(doc)
    plan = build_run_plan(doc, compilation, RunOptions(".", seed=4))
    assert compilation.job_graph is not None
    assert [v.id for v in plan.vertices] == [to_hex(v.id) for v in compilation.job_graph.vertices]
    source, mapper, reducer, collect = plan.vertices
    assert (mapper.parallelism, mapper.max_parallelism) == (2, 16)
    assert (reducer.parallelism, reducer.max_parallelism) == (3, 128)
    assert [n.id for n in reducer.nodes] == [4, 3]  # Flink's chain order: the head last
    assert [(o.partitioner, o.consumer, o.consumer_input) for o in mapper.outputs] == [
        ("HASH", reducer.id, 0),
        ("BROADCAST", collect.id, 0),
    ]
    assert [(i.partitioner, i.producer, i.key) for i in reducer.inputs] == [
        ("HASH", mapper.id, "x % 3")
    ]
    assert mapper.outputs[0].router is reducer.inputs[0].router
    assert reducer.outputs == () and reducer.sinks == (4,)
    assert source.is_source and source.sources == (1,)
    assert reducer.subtask_name(0) == "Reduce -> Sink: Print to Std. Out (1/3)"
    assert plan.seed == 4 and plan.total_subtasks == 3 + 2 + 3 + 3


def test_a_plan_without_a_seed_draws_one_and_keeps_it():
    doc = Doc().node(1, "source.sequence", {"from": 1, "to": 2}).build()
    first, second = build(doc), build(doc)
    assert first.seed != second.seed
    assert first.vertices[0].context.seed == first.seed


def test_sources_chained_into_a_head_with_sources_feed_its_input(tmp_path: Path):
    doc = (
        Doc(parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 4})
        .node(2, "source.sequence", {"from": 10, "to": 13})
        .node(3, "co_map", {"fn1": "x", "fn2": "-x"}, strategy="HEAD_WITH_SOURCES")
        .node(4, "sink.collect")
        .edge(2, 3, "REBALANCE", type_number=1)
        .edge(1, 3, type_number=2)
        .edge(3, 4)
        .build()
    )
    head_vertex = build(doc, tmp_path).vertices[-1]
    assert [n.id for n in head_vertex.chained_sources] == [1]
    assert head_vertex.sources == (1,)
    result, _ = run(doc, tmp_path)
    assert sorted(sink_records(result, 4)) == [-4, -3, -2, -1, 10, 11, 12, 13]


def test_documents_that_cannot_run_raise_with_every_diagnostic(tmp_path: Path):
    doc = (
        Doc()
        .node(1, "source.text", {"path": "missing.txt"})
        .node(2, "map", {"fn": "x +"})
        .node(3, "reduce", {"fn": "a"})
        .edge(1, 2)
        .edge(2, 3)
        .build()
    )
    with pytest.raises(RunPlanError) as caught:
        build(doc, tmp_path)
    found = codes(caught)
    assert ("param.invalid-expression", 2, None, "params.fn") in found
    assert ("run.keyed-input-needs-key", None, 1, "partitioner") in found
    assert "cannot run" in str(caught.value)


def test_compiler_errors_stop_the_plan_too():
    doc = Doc().node(1, "source.sequence", {"from": 1, "to": 2}).node(2, "map", {"fn": "x"})
    doc.edge(1, 2).edge(2, 1)  # a cycle
    with pytest.raises(RunPlanError) as caught:
        build(doc.build())
    assert caught.value.diagnostics


def test_source_files_must_exist_inside_the_data_folder(tmp_path: Path):
    data = tmp_path / "data"
    (data / "empty").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("no")
    os.symlink(tmp_path / "secret.txt", data / "link.txt")
    for path, code, message in [
        ("missing.txt", "run.path-missing", "does not exist"),
        ("empty", "run.path-missing", "holds no files"),
        # A file that is there, but outside: not "missing", as the catalog calls it.
        ("link.txt", "param.path-outside-data", "leads outside the data folder"),
    ]:
        doc = Doc().node(1, "source.text", {"path": path}).build()
        with pytest.raises(RunPlanError) as caught:
            build(doc, data)
        [diagnostic] = caught.value.diagnostics
        assert diagnostic.code == code
        assert (diagnostic.location.node, diagnostic.location.field) == (1, "params.path")
        assert message in diagnostic.message


def test_a_sink_cannot_write_outside_the_data_folder(tmp_path: Path):
    data = tmp_path / "data"
    data.mkdir()
    os.symlink(tmp_path, data / "up")
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 2})
        .node(2, "sink.text", {"path": "up/out"})
        .edge(1, 2)
        .build()
    )
    with pytest.raises(RunPlanError) as caught:
        build(doc, data)
    assert codes(caught) == [("param.path-outside-data", 2, None, "params.path")]
    assert "leads outside the data folder" in str(caught.value)


def test_a_sink_cannot_write_into_the_data_folder_itself(tmp_path: Path):
    data = tmp_path / "data"
    data.mkdir()
    os.symlink(".", data / "here")
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 2})
        .node(2, "sink.text", {"path": "here"})
        .edge(1, 2)
        .build()
    )
    with pytest.raises(RunPlanError) as caught:
        build(doc, data)
    assert codes(caught) == [("param.path-outside-data", 2, None, "params.path")]
    assert "the data folder itself" in str(caught.value)


def test_the_data_folder_is_kept_as_an_absolute_path(tmp_path: Path, monkeypatch: Any):
    monkeypatch.chdir(tmp_path)
    doc = Doc().node(1, "source.sequence", {"from": 1, "to": 2}).build()
    plan = build(doc, "data")
    assert plan.data_dir == str(tmp_path / "data")
    assert plan.vertices[0].context.data_dir == plan.data_dir
