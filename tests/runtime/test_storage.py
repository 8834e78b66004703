"""Data locations, and the paths below them."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.paths import PathError, PathOutside, path_problem
from runtime.storage import LocalStorage, LocationError, data_location, hadoop_glob

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
