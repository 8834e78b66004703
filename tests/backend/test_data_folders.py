"""Each workspace reads and writes files in a data folder of its own: a run of another
workspace cannot read them, overwrite them or write into the folders' root, and a path
that leaves the folder through a symbolic link is `param.path-outside-data`.

Runs go through the real worker service (`runs.execution.run_execute`) with the reference
executor, on the real database and Redis."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from accounts.services import workspace_delete
from runs.data_folders import without_server_paths, workspace_data_dir, workspaces_root
from runs.execution import run_execute
from runs.models import Run
from tests.backend.factories import Team, make_pipeline, make_team, make_user, make_workspace
from tests.backend.runs_support import make_run, make_runnable_version

pytestmark = pytest.mark.django_db(transaction=True)


def copy_document(source: str, sink: str) -> dict[str, Any]:
    """Read the lines of `source`, upper-case them, write them into the folder `sink`."""
    return {
        "format": "streamgraph/v1",
        "name": "copy",
        "config": {"defaultParallelism": 1, "runtimeMode": "BATCH"},
        "nodes": [
            {
                "id": 1,
                "name": "Source: Lines",
                "operator": "source.text",
                "params": {"path": source},
            },
            {"id": 2, "name": "Upper", "operator": "map", "params": {"fn": "x.upper()"}},
            {"id": 3, "name": "Sink: Lines", "operator": "sink.text", "params": {"path": sink}},
        ],
        "edges": [
            {"source": 1, "target": 2, "partitioner": "FORWARD"},
            {"source": 2, "target": 3, "partitioner": "FORWARD"},
        ],
    }


@pytest.fixture(autouse=True)
def _local(settings: Any, tmp_path: Path) -> None:
    settings.RUN_EXECUTOR = "local"
    settings.RUNTIME_DATA_DIR = tmp_path / "data"


def run_copy(team: Team, source: str, sink: str) -> Run:
    version = make_runnable_version(
        pipeline=team.pipeline, author=team.owner, document=copy_document(source, sink)
    )
    run = make_run(version=version)
    run_execute(run_id=run.pk)
    run.refresh_from_db()
    return run


def folder(team: Team) -> Path:
    return workspace_data_dir(workspace_id=team.workspace.pk)


@pytest.fixture
def teams() -> tuple[Team, Team]:
    first = make_team()
    owner = make_user()
    second_workspace = make_workspace(owner=owner, name="Other")
    second = Team(
        workspace=second_workspace,
        owner=owner,
        editor=owner,
        viewer=owner,
        outsider=first.owner,
        pipeline=make_pipeline(workspace=second_workspace, created_by=owner),
    )
    return first, second


def test_a_run_reads_and_writes_in_its_workspaces_folder(teams: tuple[Team, Team]) -> None:
    a, _ = teams
    (folder(a) / "in").mkdir()
    (folder(a) / "in" / "words.txt").write_text("alpha\nbeta\n")

    run = run_copy(a, "in/words.txt", "out")

    assert run.status == "FINISHED", run.error
    assert (folder(a) / "out" / "part-0.txt").read_text() == "ALPHA\nBETA\n"
    assert run.sinks[0]["files"] == ["out/part-0.txt"]


def test_another_workspace_can_neither_read_nor_overwrite_them(teams: tuple[Team, Team]) -> None:
    a, b = teams
    (folder(a) / "in").mkdir()
    (folder(a) / "in" / "words.txt").write_text("secret\n")
    assert run_copy(a, "in/words.txt", "out").status == "FINISHED"

    # The same relative paths in the other workspace name its own folder.
    reads = run_copy(b, "out/part-0.txt", "in")

    assert reads.status == "FAILED"
    assert "run.path-missing" in reads.error or "does not exist" in reads.error
    assert (folder(a) / "out" / "part-0.txt").read_text() == "SECRET\n"
    assert sorted(p.name for p in (folder(a) / "in").iterdir()) == ["words.txt"]
    assert not (folder(b) / "in").exists()


def test_a_symbolic_link_out_of_the_folder_is_outside_the_data(
    teams: tuple[Team, Team],
) -> None:
    a, b = teams
    (folder(a) / "private.txt").write_text("secret\n")
    (folder(b) / "x.txt").write_text("mine\n")
    (folder(b) / "link").symlink_to(folder(a))
    (folder(b) / "out-link").symlink_to(folder(a), target_is_directory=True)

    reads = run_copy(b, "link/private.txt", "out")
    writes = run_copy(b, "x.txt", "out-link")

    assert reads.status == "FAILED"
    assert "leads outside the data folder" in reads.error
    assert "param.path-outside-data" in reads.error
    assert writes.status == "FAILED"
    assert "leads outside the data folder" in writes.error
    assert sorted(p.name for p in folder(a).iterdir()) == ["private.txt"]


def test_a_sink_cannot_write_into_the_folders_root(teams: tuple[Team, Team]) -> None:
    a, _ = teams
    (folder(a) / "words.txt").write_text("alpha\n")
    (folder(a) / "here").symlink_to(".")

    for root in (".", "./", "here"):
        run = run_copy(a, "words.txt", root)
        assert run.status == "FAILED"
        assert "data folder itself" in run.error or "param.path-root" in run.error
    assert sorted(p.name for p in folder(a).iterdir()) == ["here", "words.txt"]


def test_a_deleted_workspace_takes_its_folder_with_it(teams: tuple[Team, Team]) -> None:
    a, b = teams
    (folder(a) / "words.txt").write_text("alpha\n")
    (folder(b) / "kept.txt").write_text("beta\n")

    workspace_delete(workspace=a.workspace, actor=a.owner)

    assert not workspace_data_dir(workspace_id=a.workspace.pk, create=False).exists()
    assert (folder(b) / "kept.txt").exists()


def test_files_of_the_shared_folder_are_copied_into_each_workspace_naming_them(
    teams: tuple[Team, Team], settings: Any
) -> None:
    # Before workspaces had folders, both named files at the shared folder's root.
    a, b = teams
    root = Path(settings.RUNTIME_DATA_DIR)
    (root / "in").mkdir(parents=True)
    (root / "in" / "words.txt").write_text("alpha\n")
    (root / "in" / "link").symlink_to("/etc")
    (root / "lookup.csv").write_text("k,v\n")
    (root / "unnamed.txt").write_text("nobody's\n")
    for team, document in ((a, copy_document("in", "out")), (b, copy_document("lookup.csv", "o"))):
        team.pipeline.document = document
        team.pipeline.save(update_fields=["snapshot", "snapshot_revision"])

    output = StringIO()
    call_command("split_data_folder", stdout=output)

    assert (folder(a) / "in" / "words.txt").read_text() == "alpha\n"
    assert not (folder(a) / "in" / "link").exists()  # links could lead anywhere
    assert sorted(p.name for p in folder(b).iterdir()) == ["lookup.csv"]
    assert (root / "in" / "words.txt").exists()  # copies: nothing deleted
    assert "copied 2 path(s)" in output.getvalue()
    assert run_copy(a, "in/words.txt", "out").status == "FINISHED"
    again = StringIO()
    call_command("split_data_folder", stdout=again)
    assert "copied 0 path(s)" in again.getvalue()


# --- data locations by URI ----------------------------------------------------------------


def run_copy_on(team: Team, cluster: str, source: str, sink: str) -> Run:
    version = make_runnable_version(
        pipeline=team.pipeline, author=team.owner, document=copy_document(source, sink)
    )
    run = make_run(version=version)
    run.cluster = cluster
    run.save(update_fields=["cluster"])
    run_execute(run_id=run.pk)
    run.refresh_from_db()
    return run


def test_runs_read_and_write_at_a_data_uri_outside_the_data_folder(
    teams: tuple[Team, Team], settings: Any, tmp_path: Path
) -> None:
    a, b = teams
    settings.RUNTIME_DATA_URI = f"file://{tmp_path}/shared/"
    own = tmp_path / "shared" / "workspaces" / str(a.workspace.pk)
    (own / "in").mkdir(parents=True)
    (own / "in" / "words.txt").write_text("alpha\n")

    run = run_copy(a, "in/words.txt", "out")
    other = run_copy(b, "../" + str(a.workspace.pk) + "/in/words.txt", "out")

    assert run.status == "FINISHED", run.error
    assert (own / "out" / "part-0.txt").read_text() == "ALPHA\n"
    assert not workspaces_root().exists()  # nothing in the server's own data folder
    assert other.status == "FAILED"
    assert "'..' is not allowed" in other.error


def test_a_cluster_names_the_data_location_of_its_runs(
    teams: tuple[Team, Team], settings: Any, tmp_path: Path
) -> None:
    a, _ = teams
    settings.SPARK_CLUSTERS = {
        "mounted": {"master": "local[2]", "dataUri": f"file://{tmp_path}/mount"},
        "remote": {"master": "local[2]", "dataUri": "hdfs://namenode:8020/studio"},
    }
    own = tmp_path / "mount" / "workspaces" / str(a.workspace.pk)
    own.mkdir(parents=True)
    (own / "words.txt").write_text("beta\n")

    mounted = run_copy_on(a, "mounted", "words.txt", "out")
    remote = run_copy_on(a, "remote", "words.txt", "out")

    assert mounted.status == "FINISHED", mounted.error
    assert (own / "out" / "part-0.txt").read_text() == "BETA\n"
    assert mounted.sinks[0]["files"] == ["out/part-0.txt"]
    # The reference executor has no JVM to reach other storage with: it says so.
    assert remote.status == "FAILED"
    assert "only on file: locations, not on hdfs:" in remote.error

    workspace_delete(workspace=a.workspace, actor=a.owner)

    assert not own.exists()


@pytest.mark.parametrize(
    ("setting", "value", "says"),
    [
        ("RUNTIME_DATA_URI", "hdfs://namenode/data/*", "runs.E002"),
        ("RUNTIME_DATA_URI", "file://otherhost/data", "names no other host"),
        ("SPARK_CLUSTERS", {"big": {"master": "local", "dataUri": "s3a:bucket"}}, "runs.E001"),
        ("SPARK_CLUSTERS", {"big": {"master": "local", "dataUri": 7}}, "dataUri: give a URI"),
    ],
)
def test_a_data_location_that_cannot_be_used_stops_the_server_at_start(
    settings: Any, setting: str, value: Any, says: str
) -> None:
    setattr(settings, setting, value)
    with pytest.raises(SystemCheckError, match=re.escape(says)):
        call_command("check")


def test_a_run_error_names_paths_as_its_user_gives_them(settings: Any) -> None:
    team = make_team()
    folder = workspace_data_dir(workspace_id=team.workspace.pk)
    other = workspace_data_dir(workspace_id=team.workspace.pk + 1000)
    text = (
        f"FileNotFoundError: [Errno 2] No such file or directory: '{folder}/in/lines.txt'; "
        f"read {folder.as_uri()}/out/part-0; "
        f'File "{settings.REPO_ROOT}/backend/runtime/operators/basic.py", line 3; '
        f"and {other}/secret.txt"
    )

    shown = without_server_paths(text, workspace_id=team.workspace.pk)

    assert "'in/lines.txt'" in shown
    assert "read out/part-0;" in shown
    assert 'File "backend/runtime/operators/basic.py"' in shown
    assert str(settings.REPO_ROOT) not in shown
    assert str(settings.RUNTIME_DATA_DIR) not in shown
    assert f"<data>/workspaces/{team.workspace.pk + 1000}/secret.txt" in shown
