"""Runs on a real Spark standalone cluster through the product: `manage.py serve` with a
cluster profile whose master is the session's cluster (`spark_cluster`), runs started over
REST by an owner and followed over the websocket as a browser would.

The cluster's executors share nothing with the server but the cluster: their interpreter
is a virtualenv the session ships (`pythonArchive`) with no path to the source folder,
their PYTHONPATH is an empty folder and their working directory is the worker's, so they
run only the code the worker's Spark session ships. What
they do must equal what the reference executor does in this process: sink output, records
per subtask, and every subtask's states and attempts.

The data location is still the workspace's folder on this machine, where driver and
executors find the same paths; the next step reads and writes it through Hadoop's file
systems by URI, so that executors on other hosts reach it too.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import sysconfig
import tarfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from compiler.pipeline import compile_document
from runtime.events import SubtaskEvent
from runtime.local import run_locally
from runtime.monitoring import MonitoredVertex, RunMonitor
from runtime.parameters import document_for_run, injected_faults
from runtime.planner import RunOptions, build_run_plan
from tests.backend.factories import make_team
from tests.backend.runs_support import REPO, follow, make_runnable_version, serving
from tests.backend.spark_cluster import StandaloneCluster
from tests.backend.test_live_server import Http

pytestmark = pytest.mark.django_db(transaction=True)

CLUSTER = "standalone"
ENVIRONMENT = "env"
"""Where Spark unpacks the shipped virtualenv beside each executor."""
WORDS = [
    "to be or not to be",
    "that is the question",
    "whether tis nobler in the mind to suffer",
    "the slings and arrows of outrageous fortune",
] * 25
EVENTS = [["a", 1, 1], ["b", 3, 2], ["a", 7, 3], ["b", 12, 4], ["a", 14, 5], ["c", 2, 6]] * 10


@dataclass(frozen=True, slots=True)
class Served:
    server: str
    data_dir: Path
    """`RUNTIME_DATA_DIR` of the server: workspaces' folders below `workspaces/`."""
    event_log_dir: Path
    cluster: StandaloneCluster


@pytest.fixture(scope="module")
def served(
    spark_cluster: StandaloneCluster,
    django_db_setup: None,
    django_db_blocker: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("cluster-runs")
    for folder in ("data", "events", "executor-path", "cache"):
        (root / folder).mkdir()
    profile = {
        "master": spark_cluster.master_url,
        "host": "127.0.0.1",
        "bindAddress": "127.0.0.1",
        "pythonArchive": f"{packed_environment(root)}#{ENVIRONMENT}",
        "eventLogDir": (root / "events").as_uri(),
        "uiUrl": f"{spark_cluster.web_url}/app/?appId={{applicationId}}",
        "sparkConf": {
            "spark.executorEnv.PYTHONPATH": str(root / "executor-path"),
            "spark.executor.memory": "512m",
            # One plain JSON file per application, which the test reads.
            "spark.eventLog.compress": False,
            "spark.eventLog.rolling.enabled": False,
        },
    }
    with serving(
        django_db_blocker,
        RUN_EXECUTOR="spark",
        SPARK_MASTER="local[2,3]",
        SPARK_CLUSTERS=json.dumps({CLUSTER: profile}),
        RUN_FAULT_INJECTION="1",
        RUNTIME_DATA_DIR=str(root / "data"),
        RUNTIME_CACHE_DIR=str(root / "cache"),
    ) as server:
        yield Served(server, root / "data", root / "events", spark_cluster)


def packed_environment(root: Path) -> Path:
    """A virtualenv packed as `make executor-env` packs one, without an index: its packages
    are this interpreter's, named by a `.pth` file (the source folder is not among them)."""
    venv = root / "environment"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site_packages,) = (venv / "lib").glob("python3*/site-packages")
    (site_packages / "packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    archive = root / "environment.tar.gz"
    with tarfile.open(archive, "w:gz") as packed:
        packed.add(venv, arcname=".")
    return archive


def word_count() -> dict[str, Any]:
    return {
        "format": "streamgraph/v1",
        "name": "word count",
        "config": {"defaultParallelism": 2, "runtimeMode": "BATCH"},
        "nodes": [
            {"id": 1, "name": "Source: Words", "operator": "source.text",
             "params": {"path": "words.txt"}},
            {"id": 2, "name": "Split", "operator": "flat_map", "params": {"fn": "x.split()"}},
            {"id": 3, "name": "Pair", "operator": "map", "params": {"fn": "(x, 1)"}},
            {"id": 4, "name": "Count", "operator": "reduce",
             "params": {"fn": "(a[0], a[1] + b[1])"}},
            {"id": 5, "name": "Sink: Collect", "operator": "sink.collect", "params": {}},
        ],
        "edges": [
            {"source": 1, "target": 2, "partitioner": "FORWARD"},
            {"source": 2, "target": 3, "partitioner": "FORWARD"},
            {"source": 3, "target": 4, "partitioner": "HASH", "key": {"fn": "x[0]"}},
            {"source": 4, "target": 5, "partitioner": "FORWARD"},
        ],
    }  # fmt: skip


def keyed_windows() -> dict[str, Any]:
    return {
        "format": "streamgraph/v1",
        "name": "windows",
        "config": {"defaultParallelism": 2, "runtimeMode": "STREAMING"},
        "nodes": [
            {"id": 1, "name": "Source: Events", "operator": "source.collection",
             "params": {"values": EVENTS}, "parallelism": 1},
            {"id": 2, "name": "Window", "operator": "window.reduce",
             "params": {"assigner": "tumbling_event_time", "sizeMs": 10, "timestamp": "x[1]",
                        "fn": "(a[0], max(a[1], b[1]), a[2] + b[2])"}},
            {"id": 3, "name": "Sink: Collect", "operator": "sink.collect", "params": {}},
        ],
        "edges": [
            {"source": 1, "target": 2, "partitioner": "HASH", "key": {"fn": "x[0]"}},
            {"source": 2, "target": 3, "partitioner": "FORWARD"},
        ],
    }  # fmt: skip


def run_on_cluster(
    served: Served, document: dict[str, Any], parameters: dict[str, Any] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]], Path]:
    """The run as its websocket client saw it to its end, the updates on the way, and the
    workspace's data folder."""
    team = make_team()
    make_runnable_version(pipeline=team.pipeline, author=team.owner, document=document)
    data_dir = served.data_dir / "workspaces" / str(team.workspace.pk)
    data_dir.mkdir(parents=True)
    (data_dir / "words.txt").write_text("\n".join(WORDS) + "\n")
    token = Token.objects.create(user=team.owner).key  # only owners choose a cluster
    body = {"version": 2, "cluster": CLUSTER, "parameters": parameters or {}}
    status, run = Http(served.server, token).call(
        "POST", f"/api/pipelines/{team.pipeline.pk}/runs/", body
    )
    assert status == 201, run
    state, updates = asyncio.run(follow(served.server, token, run["id"], timeout=180))
    return state, updates, data_dir


def reference(
    state: dict[str, Any], document: dict[str, Any], data_dir: Path
) -> tuple[list[Any], list[Any]]:
    """The reference executor's sink output and subtasks, for the run's plan (its
    parameters and seed), folded as the worker folds a run's events."""
    run_document, problems = document_for_run(document, state["parameters"])
    assert problems == []
    options = RunOptions(
        data_dir=str(data_dir),
        faults=injected_faults(state["parameters"]),
        seed=state["details"]["seed"],
    )
    plan = build_run_plan(run_document, compile_document(run_document), options)
    events: list[SubtaskEvent] = []
    result = run_locally(plan, events.append, max_attempts=3)
    monitor = RunMonitor(
        MonitoredVertex(v.id, v.name, v.parallelism, v.max_parallelism) for v in plan.vertices
    )
    monitor.apply(events)
    subtasks = [monitor.subtask_json(v.id, i) for v in plan.vertices for i in range(v.parallelism)]
    return outputs([s.to_json() for s in result.sinks]), facts(subtasks)


def outputs(sinks: list[dict[str, Any]]) -> list[Any]:
    return sorted((s["node"], s["subtask"], s["records"], sorted(s["preview"])) for s in sinks)


def facts(subtasks: list[dict[str, Any]]) -> list[Any]:
    """Per subtask: its state, attempt and records, and the states of all its attempts."""
    return [
        (
            s["vertex"], s["subtask"], s["state"], s["attempt"], s["recordsIn"], s["recordsOut"],
            [a["state"] for a in s["attempts"]],
        )
        for s in subtasks
    ]  # fmt: skip


def assert_ran_as_the_reference(
    state: dict[str, Any], updates: list[dict[str, Any]], document: dict[str, Any], data: Path
) -> None:
    assert state["status"] == "FINISHED", state["error"]
    sinks, subtasks = reference(state, document, data)
    assert outputs(state["sinks"]) == sinks
    assert facts(state["subtasks"]) == subtasks
    # The client saw subtasks on their way, not only their end (which states depends on
    # what a journal entry's 20 ms gather: small tasks pass several in one).
    seen = {s["state"] for update in updates for s in update["subtasks"]}
    assert "FINISHED" in seen
    assert seen & {"SCHEDULED", "DEPLOYING", "INITIALIZING", "RUNNING"}


def test_a_word_count_runs_on_the_cluster_as_on_the_reference(served: Served) -> None:
    state, updates, data = run_on_cluster(served, word_count())
    assert_ran_as_the_reference(state, updates, word_count(), data)
    # Both vertices ran as Spark SQL: the Java functions reached the cluster's executors.
    assert [e["engine"] for e in state["execution"]["engines"]] == ["sql", "sql"]
    words = {
        json.loads(line)[0]: json.loads(line)[1] for s in state["sinks"] for line in s["preview"]
    }
    assert words["to"] == words["the"] == 75
    assert len(words) == len({word for line in WORDS for word in line.split()})
    # The run ran in the cluster's application, which its profile links to.
    spark = state["spark"]
    assert spark["id"].startswith("app-")
    assert "master" not in state["details"]  # the operator's address, never shown
    assert spark["uiUrl"] == f"{served.cluster.web_url}/app/?appId={spark['id']}"
    assert spark["historyUrl"] is None
    running = served.cluster.state()["activeapps"]
    assert [app["id"] for app in running] == [spark["id"]]


def test_a_keyed_window_job_runs_on_the_cluster_as_on_the_reference(served: Served) -> None:
    state, updates, data = run_on_cluster(served, keyed_windows())
    assert_ran_as_the_reference(state, updates, keyed_windows(), data)
    fired = sorted(json.loads(line) for s in state["sinks"] for line in s["preview"])
    assert fired[:2] == [["a", 7, 40], ["a", 14, 50]]


def test_a_failed_first_attempt_is_retried_on_the_cluster_with_the_shipped_code(
    served: Served,
) -> None:
    fault = {"node": 3, "subtask": 1, "attempts": [0]}
    state, updates, data = run_on_cluster(served, word_count(), {"faults": [fault]})
    assert_ran_as_the_reference(state, updates, word_count(), data)
    assert {e["engine"] for e in state["execution"]["engines"]} == {"python"}  # faults
    pair = state["subtasks"][1]  # Source -> Split -> Pair, subtask 1
    assert [a["state"] for a in pair["attempts"]] == ["FAILED", "FINISHED"]
    assert "injected failure" in (pair["attempts"][0]["error"] or "")

    # Where the failing executor ran its code from: Spark's event log keeps the task's
    # Python traceback, whose files are the modules' `__file__`.
    code, application = state["details"]["code"], state["spark"]["id"]
    trace = failure_traceback(served.event_log_dir / application)
    assert f'File "./{code}/runtime/chains.py"' in trace
    # The project's own modules came from the zip, none from the source folder; the
    # worker's Spark installation (its pyspark.zip) is the cluster's, wherever it lies.
    frames = re.findall(r'File "([^"]+)"', trace)
    ours = [f for f in frames if re.search(r"/(runtime|compiler)/[^/]+\.py$", f)]
    assert ours and all(f.startswith(f"./{code}/") for f in ours)
    assert not [f for f in frames if f.startswith(str(REPO / "backend"))]
    # `./` is the executor's working directory, in the worker's work folder, where Spark
    # fetched the zip the session shipped and unpacked the virtualenv it runs.
    executors = list((served.cluster.work_dir / application).iterdir())
    assert executors and all((folder / code).is_file() for folder in executors)
    assert all((folder / ENVIRONMENT / "bin" / "python").exists() for folder in executors)


def failure_traceback(event_log: Path, timeout: float = 15.0) -> str:
    """The Python traceback of the first failed task in an application's event log (Spark
    writes task ends once their stage has completed)."""
    deadline = time.monotonic() + timeout
    while True:
        for path in (event_log, event_log.with_name(f"{event_log.name}.inprogress")):
            if not path.is_file():
                continue
            for line in path.read_text().splitlines():
                event = json.loads(line)
                reason = event.get("Task End Reason", {})
                if reason.get("Reason") == "ExceptionFailure":
                    return str(reason.get("Full Stack Trace") or reason.get("Description"))
        if time.monotonic() > deadline:
            pytest.fail(f"no failed task in {event_log} within {timeout:g} s")
        time.sleep(0.2)
