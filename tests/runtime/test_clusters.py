"""Cluster profiles: the operator's masters, limits and Spark properties by name, and the
limits' check."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.pipeline import compile_document
from runtime.clusters import (
    CLUSTER_TASK_ATTEMPTS,
    OWNED_PROPERTIES,
    ClusterConfigError,
    ClusterProfile,
    check_master,
    cluster_profiles,
    limit_problems,
    max_attempts,
)
from runtime.events import shown_url
from runtime.spark.session import SparkSettings
from tests.runtime.builders import Doc

REMOTE = {"master": "spark://spark-master:7077", "host": "10.0.0.9", "python": "/opt/py/bin/python"}


def profiles(**clusters: Any) -> dict[str, ClusterProfile]:
    return cluster_profiles(
        default_master="local[*,3]", clusters=clusters, max_parallelism=8, max_subtasks=32
    )


def test_default_is_always_there_and_first() -> None:
    found = profiles(big={**REMOTE, "maxParallelism": 64})
    assert list(found) == ["default", "big"]
    assert found["default"] == ClusterProfile("default", "local[*,3]", 8, 32)
    assert found["big"] == ClusterProfile(
        "big", "spark://spark-master:7077", 64, 32, host="10.0.0.9", python="/opt/py/bin/python"
    )
    assert found["default"].is_local and not found["big"].is_local


@pytest.mark.parametrize(
    "master",
    [
        "local",
        "local[2]",
        "local[*]",
        "local[2,3]",
        "local[*,4]",
        "spark://h:7077",
        "spark://a:7077,b:7077",
        "k8s://https://kube.example:6443",
        "k8s://https://kubernetes.default.svc",
        "k8s://kube.example:6443",
        "k8s://http://127.0.0.1:8001",
        "k8s://https://[fd00::1]:6443",
        "yarn",
    ],
)
def test_masters_spark_knows_are_accepted(master: str) -> None:
    assert check_master(master, where="SPARK_MASTER") == master


@pytest.mark.parametrize(
    "master",
    [
        "local[0]",
        "local[99999999]",
        "local[2",
        "spark://h",
        "mesos://h:1",
        "k8s://",
        "k8s://ftp://h:1",
        "k8s://https://h:port",
        "k8s://https://[h]:1",
        "",
    ],
)
def test_other_masters_are_refused_saying_where(master: str) -> None:
    with pytest.raises(ClusterConfigError, match=r"^SPARK_MASTER: .* is not a Spark master"):
        check_master(master, where="SPARK_MASTER")


@pytest.mark.parametrize(
    ("clusters", "message"),
    [
        ({"default": {"master": "local"}}, "its master is SPARK_MASTER's"),
        ({"default": {"maxParallelism": 4}}, "unknown keys ['maxParallelism']"),
        ({"default": "local"}, "give an object of the default cluster's properties"),
        ({"Big One": {"master": "local"}}, "a name is lower-case letters"),
        ({"big": "local"}, 'give an object with a "master"'),
        ({"big": {"master": "local", "cores": 99}}, "unknown keys ['cores']"),
        ({"big": {"master": "local", "maxParallelism": 0}}, "maxParallelism: give a whole"),
        ({"big": {"master": "local", "maxSubtasks": "many"}}, "maxSubtasks: give a whole"),
    ],
)
def test_bad_profiles_are_named(clusters: dict[str, Any], message: str) -> None:
    with pytest.raises(ClusterConfigError) as caught:
        profiles(**clusters)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("master", "attempts"), [("local", 1), ("local[4]", 1), ("local[*,3]", 3), ("spark://h:1", 3)]
)
def test_attempts_per_task_follow_the_master(master: str, attempts: int) -> None:
    assert max_attempts(master) == attempts


def test_a_clusters_attempts_are_what_its_session_sets() -> None:
    # The session's `spark.task.maxFailures`, or the profile's own, which Spark then takes.
    assert SparkSettings().spark_conf()["spark.task.maxFailures"] == str(CLUSTER_TASK_ATTEMPTS)
    assert profiles(big=REMOTE)["big"].max_attempts == CLUSTER_TASK_ATTEMPTS
    tuned = profiles(big={**REMOTE, "sparkConf": {"spark.task.maxFailures": 8}})["big"]
    assert tuned.max_attempts == 8
    assert SparkSettings.for_cluster(tuned).spark_conf()["spark.task.maxFailures"] == "8"
    with pytest.raises(ClusterConfigError, match="give attempts from 1 to 100, not 0"):
        profiles(big={**REMOTE, "sparkConf": {"spark.task.maxFailures": 0}})


def test_limits_name_each_vertex_above_them_and_the_total() -> None:
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 9}, parallelism=2)
        .node(2, "map", {"fn": "x"}, parallelism=8, name="Wide")
        .node(3, "sink.print", parallelism=3)
        .edge(1, 2, "REBALANCE")
        .edge(2, 3, "REBALANCE")
        .build()
    )
    execution = compile_document(doc).execution
    assert execution is not None
    profile = ClusterProfile("small", "local", max_parallelism=4, max_subtasks=12)

    problems = limit_problems(execution, profile)

    assert [(p.code, p.location.node, p.location.field) for p in problems] == [
        ("run.parallelism-limit", 2, "parallelism"),
        ("run.subtask-limit", None, None),
    ]
    assert problems[0].message == ("Wide runs with parallelism 8; cluster 'small' allows at most 4")
    assert problems[1].message == "the run has 13 subtasks; cluster 'small' runs at most 12 at once"
    assert limit_problems(execution, ClusterProfile("big", "local", 8, 13)) == []


def test_a_profile_gives_spark_the_operators_properties() -> None:
    found = profiles(
        big={
            **REMOTE,
            "bindAddress": "0.0.0.0",
            "driverPort": 7078,
            "blockManagerPort": 7079,
            "eventLogDir": "hdfs://namenode:8020/spark-events",
            "sparkConf": {
                "spark.executor.memory": "2g",
                "spark.executor.cores": 2,
                "spark.x": True,
            },
        }
    )
    assert found["big"].spark_properties() == {
        "spark.executor.cores": "2",
        "spark.executor.memory": "2g",
        "spark.x": "true",
        "spark.pyspark.python": "/opt/py/bin/python",
        "spark.driver.bindAddress": "0.0.0.0",
        "spark.driver.host": "10.0.0.9",
        "spark.driver.port": "7078",
        "spark.blockManager.port": "7079",
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": "hdfs://namenode:8020/spark-events",
    }
    # A local master needs nothing: loopback and the driver's own interpreter.
    assert found["default"].spark_properties() == {}
    assert found["default"].executor_python is None


@pytest.mark.parametrize(
    ("archive", "shipped", "python"),
    [
        ("hdfs:///envs/exec.tar.gz", "hdfs:///envs/exec.tar.gz#environment", "./environment"),
        ("/srv/envs/exec.tgz#env", "/srv/envs/exec.tgz#env", "./env"),
        ("s3a://bucket/e.zip#py-3", "s3a://bucket/e.zip#py-3", "./py-3"),
    ],
)
def test_a_python_archive_is_shipped_and_its_interpreter_run(
    archive: str, shipped: str, python: str
) -> None:
    big = profiles(big={**REMOTE, "python": None, "pythonArchive": archive})["big"]
    assert big.spark_properties()["spark.archives"] == shipped
    assert big.spark_properties()["spark.pyspark.python"] == f"{python}/bin/python"
    # An explicit interpreter wins (one at another place in the archive).
    other = {**REMOTE, "python": "./env/bin/python3", "pythonArchive": archive}
    assert profiles(big=other)["big"].executor_python == "./env/bin/python3"


def test_the_default_profile_takes_properties_but_keeps_its_master() -> None:
    found = cluster_profiles(
        default_master="spark://h:7077",
        clusters={"default": {"host": "studio", "python": "python3", "uiUrl": "http://h:8080/"}},
        max_parallelism=8,
        max_subtasks=32,
    )
    assert found["default"].master == "spark://h:7077"
    assert found["default"].host == "studio"
    assert found["default"].max_parallelism == 8


def test_links_name_the_application() -> None:
    big = profiles(
        big={
            **REMOTE,
            "uiUrl": "http://spark-master:8080/app/?appId={applicationId}",
            "historyUrl": "https://history.example/history/{applicationId}/jobs/",
        }
    )["big"]
    assert big.links("app-20260101-0001") == {
        "ui": "http://spark-master:8080/app/?appId=app-20260101-0001",
        "history": "https://history.example/history/app-20260101-0001/jobs/",
    }
    assert big.links(None) == {}
    assert profiles()["default"].links("local-1") == {}
    fixed = profiles(big={**REMOTE, "uiUrl": "http://driver:4040/jobs/"})["big"]
    assert fixed.links("app-1") == {"ui": "http://driver:4040/jobs/"}


@pytest.mark.parametrize(
    ("profile", "message"),
    [
        # Executors on another host cannot reach a driver on loopback, nor run its interpreter.
        ({"master": "spark://h:7077", "python": "python3"}, 'must reach the driver: give "host"'),
        ({"master": "yarn", "host": "w1"}, 'give "python", the interpreter'),
        ({"master": "k8s://https://kube:6443", "python": "python3"}, 'give "host", the'),
        ({"master": "k8s://kube:6443", "host": "w1"}, 'give "python", the interpreter'),
        ({"master": "local[2]", "pythonArchive": "/e.tar.gz"}, "a local master runs its Python"),
        ({**REMOTE, "pythonArchive": "/srv/env.rar"}, "is not an archive Spark unpacks"),
        ({**REMOTE, "pythonArchive": "/srv/e.zip#a b"}, "is not an archive Spark unpacks"),
        ({**REMOTE, "python": ""}, "python: give an interpreter's path"),
        ({**REMOTE, "python": 3}, "python: give an interpreter's path"),
        ({**REMOTE, "host": "a host"}, "host: 'a host' is not a host name or IP address"),
        ({**REMOTE, "bindAddress": "0.0.0.0/0"}, "is not a host name or IP address"),
        ({**REMOTE, "driverPort": 0}, "driverPort: give a port from 1 to 65535"),
        ({**REMOTE, "blockManagerPort": "7079"}, "blockManagerPort: give a port"),
        ({**REMOTE, "uiUrl": "ftp://h/"}, "uiUrl: 'ftp://h/' is not an http(s) URL"),
        ({**REMOTE, "historyUrl": "http://h/{appId}"}, "is the only placeholder"),
        ({**REMOTE, "eventLogDir": "spark-events"}, "is not a URI"),
        ({**REMOTE, "sparkConf": ["spark.x"]}, "give an object of Spark properties"),
        ({**REMOTE, "sparkConf": {"executor.memory": "1g"}}, "is not a Spark property"),
        ({**REMOTE, "sparkConf": {"spark.x": None}}, "give text, a number or true/false"),
        ({**REMOTE, "sparkConf": {"spark.x": float("inf")}}, "give text, a number"),
        ({**REMOTE, "sparkConf": {"spark.x": "a\nb"}}, "give text, a number"),
        ({**REMOTE, "eventsUrl": "http://:hunter2@h:6379/0"}, "eventsUrl: the scheme is http"),
        ({**REMOTE, "eventsUrl": "redis://:hunter2@/0"}, "eventsUrl: name the Redis host"),
        ({**REMOTE, "eventsUrl": "redis://:hunter2@h:99999/0"}, "eventsUrl: not a URL"),
        ({**REMOTE, "eventsUrl": "redis://h :6379"}, "eventsUrl: give a Redis URL as text"),
        ({**REMOTE, "eventsUrl": 6379}, "eventsUrl: give a Redis URL as text"),
    ],
)
def test_bad_spark_properties_are_named(profile: dict[str, Any], message: str) -> None:
    with pytest.raises(ClusterConfigError) as caught:
        profiles(big=profile)
    assert message in str(caught.value)
    assert str(caught.value).startswith("SPARK_CLUSTERS['big']")
    assert "hunter2" not in str(caught.value)  # a password is never repeated


@pytest.mark.parametrize("key", sorted(OWNED_PROPERTIES))
def test_the_servers_own_properties_stay_its_own(key: str) -> None:
    # Among them the Python workers' memory cap, which no profile may lift.
    with pytest.raises(ClusterConfigError, match=f"{key} is not the profile's to set"):
        profiles(big={**REMOTE, "sparkConf": {key: "x"}})


def test_a_profile_may_point_the_executors_python_path_elsewhere() -> None:
    conf = {"spark.executorEnv.PYTHONPATH": "/opt/libs", "spark.cores.max": 4}
    big = profiles(big={**REMOTE, "sparkConf": conf})["big"]
    assert big.spark_conf == (
        ("spark.cores.max", "4"),
        ("spark.executorEnv.PYTHONPATH", "/opt/libs"),
    )


def test_executors_may_reach_the_events_redis_by_another_url() -> None:
    # A password and TLS options travel in the URL, as redis-py reads it; what logs and the
    # run page show of it has neither.
    url = "rediss://:hunter2@redis.cluster.internal:6380/0?ssl_ca_certs=/etc/ssl/ca.pem"
    big = profiles(big={**REMOTE, "eventsUrl": url})["big"]
    assert big.events_url == url
    assert shown_url(url) == "rediss://redis.cluster.internal:6380/0"
    assert shown_url("redis://studio:pw@[::1]:6379/2") == "redis://studio@[::1]:6379/2"
    assert shown_url("unix:///run/redis.sock?db=1") == "unix:///run/redis.sock"
    # Without one, executors publish where the worker does; no Spark property says it.
    assert profiles(big=REMOTE)["big"].events_url is None
    assert not any("redis" in value for value in big.spark_properties().values())


def test_a_kubernetes_profile_runs_the_driver_in_the_workers_pod() -> None:
    # Client mode: the driver lives in the Celery worker's pod, behind a headless service.
    kube = {
        "master": "k8s://https://kubernetes.default.svc:443",
        "host": "studio-worker-0.studio-worker.studio.svc.cluster.local",
        "bindAddress": "0.0.0.0",
        "driverPort": 7078,
        "blockManagerPort": 7079,
        "python": "/usr/local/bin/python",
        "sparkConf": {
            "spark.kubernetes.container.image": "registry.example/streamgraph-studio:1.4",
            "spark.kubernetes.namespace": "studio",
            "spark.kubernetes.authenticate.executor.serviceAccountName": "studio-executor",
            "spark.kubernetes.driver.pod.name": "studio-worker-0",
            "spark.executor.instances": 2,
        },
    }
    found = profiles(kube=kube)["kube"]
    assert not found.is_local and found.max_attempts == CLUSTER_TASK_ATTEMPTS
    properties = found.spark_properties()
    assert properties["spark.driver.host"] == kube["host"]
    assert properties["spark.pyspark.python"] == "/usr/local/bin/python"
    assert properties["spark.kubernetes.namespace"] == "studio"
    assert properties["spark.executor.instances"] == "2"
