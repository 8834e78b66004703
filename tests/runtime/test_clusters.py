"""Cluster profiles: the operator's masters and limits by name, and the limits' check."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.pipeline import compile_document
from runtime.clusters import (
    ClusterConfigError,
    ClusterProfile,
    check_master,
    cluster_profiles,
    limit_problems,
    max_attempts,
)
from tests.runtime.builders import Doc


def profiles(**clusters: Any) -> dict[str, ClusterProfile]:
    return cluster_profiles(
        default_master="local[*,3]", clusters=clusters, max_parallelism=8, max_subtasks=32
    )


def test_default_is_always_there_and_first() -> None:
    found = profiles(big={"master": "spark://spark-master:7077", "maxParallelism": 64})
    assert list(found) == ["default", "big"]
    assert found["default"] == ClusterProfile("default", "local[*,3]", 8, 32)
    assert found["big"] == ClusterProfile("big", "spark://spark-master:7077", 64, 32)
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
        "yarn",
    ],
)
def test_masters_spark_knows_are_accepted(master: str) -> None:
    assert check_master(master, where="SPARK_MASTER") == master


@pytest.mark.parametrize(
    "master",
    ["local[0]", "local[99999999]", "local[2", "spark://h", "mesos://h:1", "k8s://x:1", ""],
)
def test_other_masters_are_refused_saying_where(master: str) -> None:
    with pytest.raises(ClusterConfigError, match=r"^SPARK_MASTER: .* is not a Spark master"):
        check_master(master, where="SPARK_MASTER")


@pytest.mark.parametrize(
    ("clusters", "message"),
    [
        ({"default": {"master": "local"}}, "'default' is SPARK_MASTER's"),
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
    ("master", "attempts"), [("local", 1), ("local[4]", 1), ("local[*,3]", 3), ("spark://h:1", 4)]
)
def test_attempts_per_task_follow_the_master(master: str, attempts: int) -> None:
    assert max_attempts(master) == attempts


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
