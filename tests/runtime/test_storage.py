"""Data locations, the paths below them, and when file sinks' parts become visible."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.clusters import ClusterConfigError, cluster_profiles
from runtime.events import ExecutionState, RunOutcome, SubtaskEvent
from runtime.local import run_locally
from runtime.paths import PathError, PathOutside, path_problem
from runtime.plan import Fault
from runtime.storage import LocalStorage, LocationError, data_location, hadoop_glob
from tests.runtime.builders import Doc, run
from tests.runtime.spark.conftest import plan_of

LOCATIONS = ["file:///srv/data", "hdfs://namenode:8020/studio", "s3a://bucket/studio"]


@pytest.mark.parametrize(
    ("text", "uri"),
    [
        ("/srv/data/", "file:///srv/data"),
        ("file:/srv/data", "file:///srv/data"),
        ("file:///srv//data/./x", "file:///srv/data/x"),
        ("file://localhost/srv/data", "file:///srv/data"),
        ("HDFS://namenode:8020/studio/", "hdfs://namenode:8020/studio"),
        ("hdfs:///studio", "hdfs:///studio"),
        ("s3a://bucket", "s3a://bucket/"),
        ("viewfs://cluster/data", "viewfs://cluster/data"),
    ],
)
def test_a_location_is_a_folder_or_a_uri_and_reads_the_same_however_written(
    text: str, uri: str
) -> None:
    location = data_location(text)
    assert location.uri == uri
    assert data_location(location.uri) == location
    assert location.is_local is uri.startswith("file:")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "absolute folder or a URI"),
        (" /srv", "spaces around"),
        ("hdfs:studio", "absolute path"),
        ("var/data", "give an absolute folder"),
        ("file://otherhost/srv", "names no other host"),
        ("s3a://bucket/a,b", "Hadoop reads , in a path"),
        ("hdfs://nn/data/*", "Hadoop reads * in a path"),
        ("hdfs://nn/a/../b", "'..'"),
        ("/srv/\x00", "control character"),
    ],
)
def test_a_location_that_cannot_be_used_says_why(text: str, says: str) -> None:
    with pytest.raises(LocationError, match=re.escape(says)):
        data_location(text)


def test_workspaces_have_folders_of_their_own_below_the_base() -> None:
    base = data_location("s3a://bucket/studio")
    assert base.child("workspaces", "3").uri == "s3a://bucket/studio/workspaces/3"
    assert base.child("workspaces", "3").uri_of("in/./words.txt") == (
        "s3a://bucket/studio/workspaces/3/in/words.txt"
    )
    assert base.child("workspaces", "3").uri_of(".") == "s3a://bucket/studio/workspaces/3"
    with pytest.raises(LocationError):
        base.child("workspaces", "..")


@pytest.mark.parametrize("base", LOCATIONS)
@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("../2/in.txt", "'..' is not allowed"),
        ("in/../../2/in.txt", "'..' is not allowed"),
        ("/etc/passwd", "not absolute"),
        ("C:\\data", "not absolute"),
        ("hdfs://namenode/studio/workspaces/2/in.txt", "not a URI ('hdfs:')"),
        ("file:/etc/passwd", "not a URI ('file:')"),
        ("s3a:in.txt", "not a URI ('s3a:')"),
        ("", "empty"),
    ],
)
def test_paths_leaving_the_workspace_are_refused_on_every_scheme(
    base: str, path: str, says: str
) -> None:
    location = data_location(base).child("workspaces", "1")
    with pytest.raises(PathOutside, match=re.escape(says)):
        location.uri_of(path)
    problem = path_problem(path)
    assert problem is not None and says in problem


@settings(max_examples=300, deadline=None)
@given(
    path=st.lists(
        st.sampled_from(["a", "b", ".", "..", "", "x:y", "c:", ".hidden", "a b", "*", "{,}"]),
        min_size=1,
        max_size=5,
    ).map("/".join),
    base=st.sampled_from(LOCATIONS),
)
def test_every_path_a_workspace_may_name_lies_in_its_own_folder(path: str, base: str) -> None:
    own = data_location(base).child("workspaces", "1")
    try:
        uri = own.uri_of(path)
    except PathError:
        return
    assert uri == own.uri or uri.startswith(own.uri + "/")
    assert "/../" not in uri + "/" and not uri.endswith("/..")


def test_hadoop_globs_match_only_the_name_they_escape() -> None:
    assert hadoop_glob("in/a,b*[1]{x}\\?.csv") == "in/a\\,b\\*\\[1\\]\\{x\\}\\\\\\?.csv"
    assert hadoop_glob("in/plain.txt") == "in/plain.txt"


def test_local_storage_lists_and_commits_with_local_calls(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "b.txt").write_text("bb")
    (tmp_path / "in" / "a.txt").write_text("a")
    (tmp_path / "in" / "_skip").write_text("-")
    storage = LocalStorage(data_location(f"file://{tmp_path}"))
    assert [(f.path, f.size) for f in storage.list_files("in")] == [
        ("in/a.txt", 1),
        ("in/b.txt", 2),
    ]
    assert storage.list_files("in")[0].uri == f"file://{tmp_path.resolve()}/in/a.txt"
    assert storage.sink_folder("./out/") == "out"
    for root in (".", "./"):
        with pytest.raises(PathOutside, match="data folder itself"):
            storage.sink_folder(root)
    os.symlink(tmp_path.parent, tmp_path / "up")
    with pytest.raises(PathOutside, match="leads outside"):
        storage.sink_folder("up/out")


def test_a_cluster_profile_may_name_its_data_location() -> None:
    profiles = cluster_profiles(
        default_master="local[2]",
        clusters={
            "big": {
                "master": "spark://spark-master:7077",
                "host": "studio-worker",
                "python": "/usr/bin/python3",
                "dataUri": "HDFS://nn/x/",
            }
        },
        max_parallelism=8,
        max_subtasks=64,
    )
    assert profiles["big"].data_uri == "hdfs://nn/x"
    assert profiles["default"].data_uri is None
    with pytest.raises(ClusterConfigError, match=r"\['big'\]\.dataUri: 'x/y': give an"):
        cluster_profiles(
            default_master="local",
            clusters={"big": {"master": "local", "dataUri": "x/y"}},
            max_parallelism=8,
            max_subtasks=64,
        )


# --- file sinks commit when the run finishes -----------------------------------------------


def two_sinks(fail_second: bool, offset: int = 0) -> dict[str, Any]:
    """Two sink vertices: `out` finishes first; the other one fails when asked to."""
    return (
        Doc(parallelism=2, chaining=False)
        .node(1, "source.sequence", {"from": 1, "to": 6})
        .node(2, "sink.text", {"path": "out"})
        .node(3, "map", {"fn": "1 // (x - 6)" if fail_second else "x"})
        .node(4, "sink.json", {"path": "more"})
        .node(5, "map", {"fn": f"x + {offset}"})
        .edge(1, 5)
        .edge(5, 2)
        .edge(1, 3)
        .edge(3, 4)
        .build()
    )


def visible(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_parts_become_visible_only_when_the_run_finishes(tmp_path: Path) -> None:
    plan = plan_of(two_sinks(False), f"file://{tmp_path}")
    sink = next(v for v in plan.vertices if 2 in {n.id for n in v.nodes})
    seen: list[list[str]] = []

    def publish(event: SubtaskEvent) -> None:
        if event.vertex == sink.id and event.state is ExecutionState.FINISHED:
            seen.append([n for n in visible(tmp_path / "out") if not n.startswith(".")])

    result = run_locally(plan, publish)

    assert result.outcome is RunOutcome.FINISHED, result.error
    assert seen == [[], []]  # each subtask finished, nothing to read yet
    assert visible(tmp_path / "out") == ["part-0.txt", "part-1.txt"]
    assert visible(tmp_path / "more") == ["part-0.jsonl", "part-1.jsonl"]


def test_a_failed_run_leaves_no_part_and_keeps_the_last_finished_runs(tmp_path: Path) -> None:
    failed, _ = run(two_sinks(True), tmp_path, max_attempts=2)
    assert failed.outcome is RunOutcome.FAILED
    assert "ZeroDivisionError" in (failed.error or "")
    assert list(tmp_path.glob("*/*")) == []  # `out` had finished: nothing of it either

    finished, _ = run(two_sinks(False), tmp_path)
    assert finished.outcome is RunOutcome.FINISHED
    before = {p: p.read_text() for p in sorted(tmp_path.glob("*/*"))}
    assert (tmp_path / "out" / "part-0.txt").read_text() == "1\n2\n3\n"

    failed, _ = run(two_sinks(True, offset=10), tmp_path, max_attempts=2)

    assert failed.outcome is RunOutcome.FAILED
    assert {p: p.read_text() for p in sorted(tmp_path.glob("*/*"))} == before
    assert not list(tmp_path.glob("*/.*"))  # no pending part either


def test_a_retried_attempt_commits_its_own_part_only(tmp_path: Path) -> None:
    doc = Doc().node(1, "source.sequence", {"from": 1, "to": 3}).node(2, "sink.text", {"path": "o"})
    fault = Fault(subtask=0, node=2, attempts=(0,), after_records=2)
    result, _ = run(doc.edge(1, 2).build(), tmp_path, faults=(fault,), max_attempts=2)
    assert result.outcome is RunOutcome.FINISHED
    assert visible(tmp_path / "o") == ["part-0.txt"]
    assert (tmp_path / "o" / "part-0.txt").read_text() == "1\n2\n3\n"


def test_the_local_executor_reads_and_writes_no_files_on_other_schemes() -> None:
    doc = Doc().node(1, "source.sequence", {"from": 1, "to": 3}).node(2, "sink.text", {"path": "o"})
    plan = plan_of(doc.edge(1, 2).build(), "hdfs://namenode:8020/studio/workspaces/1")
    events: list[SubtaskEvent] = []
    result = run_locally(plan, events.append)
    assert result.outcome is RunOutcome.FAILED
    assert "only on file: locations, not on hdfs:" in (result.error or "")
    assert {e.state for e in events} == {ExecutionState.CREATED, ExecutionState.CANCELED}
    # A run that names no file needs no storage.
    doc = Doc().node(1, "source.sequence", {"from": 1, "to": 3}).node(2, "sink.collect")
    plan = plan_of(doc.edge(1, 2).build(), "hdfs://namenode:8020/studio/workspaces/1")
    assert run_locally(plan, events.append).outcome is RunOutcome.FINISHED
