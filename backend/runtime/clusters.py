"""Where runs execute: the Spark clusters the operator configured, each by a name.

A run names a cluster profile, never a Spark master: the master decides the cores and the
address the worker's JVM uses (`local[99999999]` once made it start threads until the host
refused more; a `spark://` address anywhere made the worker connect there), so it is the
operator's setting, as are the limits of what one run may ask of the cluster. `default` is
always there (its master is `SPARK_MASTER`); `SPARK_CLUSTERS` adds others:

    {"big": {"master": "spark://spark-master:7077", "maxParallelism": 512,
             "maxSubtasks": 8192}}

Pure: no Django, no Spark. `runs` reads the settings into profiles and checks each run
against its profile's limits (`limit_problems`) before queueing it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from compiler.diagnostics import Diagnostic, Location
from compiler.execution import ExecutionGraph

DEFAULT = "default"
"""The profile every run uses unless an owner chooses another."""

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_LOCAL = re.compile(r"local(?:\[(\*|[1-9][0-9]{0,3})(?:,([1-9][0-9]{0,2}))?\])?")
_STANDALONE = re.compile(r"spark://[A-Za-z0-9.-]+:[0-9]{1,5}(?:,[A-Za-z0-9.-]+:[0-9]{1,5})*")
_KUBERNETES = re.compile(r"k8s://https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/\S*)?")
_KEYS = frozenset({"master", "maxParallelism", "maxSubtasks"})


class ClusterConfigError(ValueError):
    """The operator's cluster settings are not usable; the message says which and why."""


@dataclass(frozen=True, slots=True)
class ClusterProfile:
    name: str
    master: str
    max_parallelism: int
    """The highest parallelism any vertex of a run may have."""
    max_subtasks: int
    """The most subtasks (Spark tasks) a run may have, over all its vertices."""

    @property
    def is_local(self) -> bool:
        return _LOCAL.fullmatch(self.master) is not None

    @property
    def max_attempts(self) -> int:
        return max_attempts(self.master)


def max_attempts(master: str) -> int:
    """Attempts per task a master allows: F of `local[N,F]`, otherwise 1 for a local master
    (Spark never retries there) and Spark's default 4 for a cluster."""
    match = _LOCAL.fullmatch(master)
    if match is None:
        return 4
    return int(match.group(2) or 1)


def check_master(master: str, *, where: str) -> str:
    """`master` if it is a master URL this server can use; `ClusterConfigError` otherwise."""
    if any(p.fullmatch(master) for p in (_LOCAL, _STANDALONE, _KUBERNETES)) or master == "yarn":
        return master
    raise ClusterConfigError(
        f"{where}: {master!r} is not a Spark master: use local, local[N], local[*], "
        "local[N,F], local[*,F], spark://host:port, k8s://https://host:port or yarn"
    )


def cluster_profiles(
    *,
    default_master: str,
    clusters: Mapping[str, Any],
    max_parallelism: int,
    max_subtasks: int,
) -> dict[str, ClusterProfile]:
    """The profiles by name, `default` first; `ClusterConfigError` names what is wrong."""
    profiles = {
        DEFAULT: ClusterProfile(
            DEFAULT,
            check_master(default_master, where="SPARK_MASTER"),
            _positive(max_parallelism, "RUN_MAX_PARALLELISM"),
            _positive(max_subtasks, "RUN_MAX_SUBTASKS"),
        )
    }
    for name, raw in clusters.items():
        where = f"SPARK_CLUSTERS[{name!r}]"
        if name == DEFAULT:
            raise ClusterConfigError(f"{where}: 'default' is SPARK_MASTER's; name it otherwise")
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ClusterConfigError(
                f"{where}: a name is lower-case letters, digits, '-' and '_' (40 at most)"
            )
        if not isinstance(raw, dict) or not isinstance(raw.get("master"), str):
            raise ClusterConfigError(f'{where}: give an object with a "master"')
        unknown = sorted(set(raw) - _KEYS)
        if unknown:
            raise ClusterConfigError(f"{where}: unknown keys {unknown}; known: {sorted(_KEYS)}")
        profiles[name] = ClusterProfile(
            name,
            check_master(raw["master"], where=where),
            _positive(raw.get("maxParallelism", max_parallelism), f"{where}.maxParallelism"),
            _positive(raw.get("maxSubtasks", max_subtasks), f"{where}.maxSubtasks"),
        )
    return profiles


def _positive(value: object, where: str) -> int:
    if type(value) is not int or value < 1:
        raise ClusterConfigError(f"{where}: give a whole number of at least 1, not {value!r}")
    return value


def limit_problems(execution: ExecutionGraph, profile: ClusterProfile) -> list[Diagnostic]:
    """What in a compiled plan asks more of the cluster than its profile allows, on the
    nodes that set it (a vertex's parallelism is its head's)."""
    problems = []
    for vertex in execution.vertices:
        if vertex.parallelism > profile.max_parallelism:
            job_vertex = vertex.job_vertex
            problems.append(
                Diagnostic(
                    "run.parallelism-limit",
                    f"{job_vertex.name} runs with parallelism {vertex.parallelism}; cluster "
                    f"'{profile.name}' allows at most {profile.max_parallelism}",
                    Location(node=job_vertex.head, field="parallelism"),
                )
            )
    total = execution.total_subtasks
    if total > profile.max_subtasks:
        problems.append(
            Diagnostic(
                "run.subtask-limit",
                f"the run has {total} subtasks; cluster '{profile.name}' runs at most "
                f"{profile.max_subtasks} at once",
                Location(),
            )
        )
    return problems
