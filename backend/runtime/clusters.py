"""Where runs execute: the Spark clusters the operator configured, each by a name.

A run names a cluster profile, never a Spark master: the master decides the cores and the
address the worker's JVM uses (`local[99999999]` once made it start threads until the host
refused more; a `spark://` address anywhere made the worker connect there), so it is the
operator's setting, as are the limits of what one run may ask of the cluster. `default` is
always there (its master is `SPARK_MASTER`); `SPARK_CLUSTERS` adds others:

    {"big": {"master": "spark://spark-master:7077", "maxParallelism": 512,
             "maxSubtasks": 8192, "host": "studio-worker.internal",
             "pythonArchive": "hdfs:///envs/streamgraph-executor.tar.gz#env",
             "sparkConf": {"spark.executor.memory": "2g"},
             "dataUri": "hdfs://namenode:8020/studio"}}

A profile also says how Spark reaches the cluster and back: the executors' interpreter
(`python`, or a packed virtualenv shipped with `pythonArchive`), the address the driver
binds and the one it advertises (`bindAddress`, `host`) and its ports, where the event log
goes (`eventLogDir`), links to the Spark UI and History Server for the run page (`uiUrl`,
`historyUrl`), the Redis its executors publish subtask events to, as they reach it
(`eventsUrl`, default `RUN_EVENTS_URL`), and further Spark properties (`sparkConf`), except
those the server owns.
A `default` entry gives the default profile's (its master stays `SPARK_MASTER`).

A cluster that cannot see the server's disk names the data location its runs read and
write (`dataUri`, `runtime.storage`); without one its runs use the server's.

Pure: no Django, no Spark. `runs` reads the settings into profiles and checks each run
against its profile's limits (`limit_problems`) before queueing it; `runtime.spark.session`
starts a worker's session from its profile (`ClusterProfile.spark_properties`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from compiler.diagnostics import Diagnostic, Location
from compiler.execution import ExecutionGraph
from runtime.events import EventsUrlError, check_events_url
from runtime.storage import LocationError, data_location

DEFAULT = "default"
"""The profile every run uses unless an owner chooses another."""

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_LOCAL = re.compile(r"local(?:\[(\*|[1-9][0-9]{0,3})(?:,([1-9][0-9]{0,2}))?\])?")
_STANDALONE = re.compile(r"spark://[A-Za-z0-9.-]+:[0-9]{1,5}(?:,[A-Za-z0-9.-]+:[0-9]{1,5})*")
# Spark takes `k8s://host:port` for `k8s://https://host:port`; an API server's host may be
# an IPv6 address in brackets.
_KUBERNETES = re.compile(
    r"k8s://(?:https?://)?(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?:/\S*)?"
)
_LIMIT_KEYS = frozenset({"maxParallelism", "maxSubtasks"})
_SPARK_KEYS = frozenset(
    {
        "sparkConf",
        "python",
        "pythonArchive",
        "bindAddress",
        "host",
        "driverPort",
        "blockManagerPort",
        "uiUrl",
        "historyUrl",
        "eventLogDir",
        "eventsUrl",
    }
)
_KEYS = frozenset({"master", "dataUri"}) | _LIMIT_KEYS | _SPARK_KEYS
_DEFAULT_KEYS = _SPARK_KEYS
"""`SPARK_CLUSTERS["default"]`: its master is `SPARK_MASTER`, its limits `RUN_MAX_*`."""

_PROPERTY = re.compile(r"spark\.[A-Za-z0-9_.-]+")
_ADDRESS = re.compile(r"[A-Za-z0-9.-]+|\[?[0-9A-Fa-f:.]+\]?")
_URL = re.compile(r"https?://[^\s{}\"<>]+")
_URI_OR_PATH = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*:|/)\S*")
_ARCHIVE = re.compile(r"(\S+\.(?:tar\.gz|tgz|tar|zip|jar))(?:#([A-Za-z0-9_-]{1,40}))?")
_ALIAS = "environment"
"""Where Spark unpacks a `pythonArchive` without `#alias` in the executors' folder."""
PLACEHOLDER = "{applicationId}"
"""Replaced by the run's Spark application id in `uiUrl` and `historyUrl`."""

OWNED_PROPERTIES = frozenset(
    {
        # Set from the profile's own keys, or by the server for every run.
        "spark.master",
        "spark.app.name",
        "spark.submit.deployMode",
        "spark.submit.pyFiles",
        "spark.pyspark.python",
        "spark.pyspark.driver.python",
        "spark.executorEnv.PYSPARK_PYTHON",
        "spark.archives",
        "spark.driver.host",
        "spark.driver.bindAddress",
        "spark.driver.port",
        "spark.blockManager.port",
        "spark.driver.blockManager.port",
        "spark.eventLog.enabled",
        "spark.eventLog.dir",
        # The cap on each Python worker's memory is the server's (`SPARK_PYTHON_WORKER_MEMORY`):
        # a profile may not lift it.
        "spark.executor.pyspark.memory",
        # Concurrent runs share a session's task slots only under the FAIR scheduler.
        "spark.scheduler.mode",
        "spark.scheduler.allocation.file",
    }
)
"""Spark properties a profile's `sparkConf` may not set."""


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
    spark_conf: tuple[tuple[str, str], ...] = ()
    """The operator's further Spark properties, sorted by name."""
    python: str | None = None
    """The executors' interpreter; None: the driver's own (local masters only)."""
    python_archive: str | None = None
    """A packed virtualenv Spark ships and unpacks beside each executor (`spark.archives`),
    as `path-or-uri#alias`."""
    bind_address: str | None = None
    """The address the driver listens on; None: loopback (local masters) or `host`."""
    host: str | None = None
    """The address executors connect back to; None: loopback (local masters only)."""
    driver_port: int | None = None
    block_manager_port: int | None = None
    ui_url: str | None = None
    """A link to the run's application in a Spark UI (`PLACEHOLDER` replaced)."""
    history_url: str | None = None
    """A link to the application in a Spark History Server (`PLACEHOLDER` replaced)."""
    event_log_dir: str | None = None
    """Where Spark writes the application's event log, for a History Server."""
    data_uri: str | None = None
    """The base of the data location its runs read and write; None: the server's."""
    events_url: str | None = None
    """The Redis of run events (`RUN_EVENTS_URL`) as the cluster's executors reach it, with
    its password and TLS options; None: the URL the workers use."""

    @property
    def is_local(self) -> bool:
        return _LOCAL.fullmatch(self.master) is not None

    @property
    def max_attempts(self) -> int:
        return max_attempts(self.master, self.spark_conf)

    @property
    def executor_python(self) -> str | None:
        """The interpreter the executors run: `python`, the archive's, or None (the
        driver's own, which only a local master can use)."""
        if self.python is not None:
            return self.python
        if self.python_archive is not None:
            alias = self.python_archive.rpartition("#")[2]
            return f"./{alias}/bin/python"
        return None

    def spark_properties(self) -> dict[str, str]:
        """The Spark properties the profile stands for (the master aside)."""
        properties = dict(self.spark_conf)
        python = self.executor_python
        if python is not None:
            properties["spark.pyspark.python"] = python
        if self.python_archive is not None:
            properties["spark.archives"] = self.python_archive
        if self.bind_address is not None:
            properties["spark.driver.bindAddress"] = self.bind_address
        if self.host is not None:
            properties["spark.driver.host"] = self.host
        if self.driver_port is not None:
            properties["spark.driver.port"] = str(self.driver_port)
        if self.block_manager_port is not None:
            properties["spark.blockManager.port"] = str(self.block_manager_port)
        if self.event_log_dir is not None:
            properties["spark.eventLog.enabled"] = "true"
            properties["spark.eventLog.dir"] = self.event_log_dir
        return properties

    def links(self, application_id: str | None) -> dict[str, str]:
        """`ui` and `history`: the profile's links for a Spark application, those it has."""
        if not application_id:
            return {}
        found = {"ui": self.ui_url, "history": self.history_url}
        return {k: v.replace(PLACEHOLDER, application_id) for k, v in found.items() if v}


CLUSTER_TASK_ATTEMPTS = 3
"""Attempts per task on a cluster master (`spark.task.maxFailures`, which the worker's
session sets) unless its profile's `sparkConf` says otherwise."""


def max_attempts(master: str, spark_conf: tuple[tuple[str, str], ...] = ()) -> int:
    """Attempts per task a master allows: F of `local[N,F]`, otherwise 1 for a local master
    (Spark never retries there), and for a cluster the profile's `spark.task.maxFailures`
    or `CLUSTER_TASK_ATTEMPTS`."""
    match = _LOCAL.fullmatch(master)
    if match is None:
        configured = dict(spark_conf).get("spark.task.maxFailures")
        return int(configured) if configured is not None else CLUSTER_TASK_ATTEMPTS
    return int(match.group(2) or 1)


def check_master(master: str, *, where: str) -> str:
    """`master` if it is a master URL this server can use; `ClusterConfigError` otherwise."""
    if any(p.fullmatch(master) for p in (_LOCAL, _STANDALONE, _KUBERNETES)) or master == "yarn":
        return master
    raise ClusterConfigError(
        f"{where}: {master!r} is not a Spark master: use local, local[N], local[*], "
        "local[N,F], local[*,F], spark://host:port, k8s://https://host:port (or "
        "k8s://host:port) or yarn"
    )


def cluster_profiles(
    *,
    default_master: str,
    clusters: Mapping[str, Any],
    max_parallelism: int,
    max_subtasks: int,
) -> dict[str, ClusterProfile]:
    """The profiles by name, `default` first; `ClusterConfigError` names what is wrong."""
    default_master = check_master(default_master, where="SPARK_MASTER")
    default_limits = (
        _positive(max_parallelism, "RUN_MAX_PARALLELISM"),
        _positive(max_subtasks, "RUN_MAX_SUBTASKS"),
    )
    default = clusters.get(DEFAULT, {})
    where = f"SPARK_CLUSTERS[{DEFAULT!r}]"
    if not isinstance(default, dict):
        raise ClusterConfigError(f"{where}: give an object of the default cluster's properties")
    if "master" in default:
        raise ClusterConfigError(f"{where}: its master is SPARK_MASTER's; give the others only")
    _known(default, _DEFAULT_KEYS, where)
    profiles = {DEFAULT: _profile(DEFAULT, default_master, default_limits, default, where)}
    for name, raw in clusters.items():
        if name == DEFAULT:
            continue
        where = f"SPARK_CLUSTERS[{name!r}]"
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ClusterConfigError(
                f"{where}: a name is lower-case letters, digits, '-' and '_' (40 at most)"
            )
        if not isinstance(raw, dict) or not isinstance(raw.get("master"), str):
            raise ClusterConfigError(f'{where}: give an object with a "master"')
        _known(raw, _KEYS, where)
        limits = (
            _positive(raw.get("maxParallelism", max_parallelism), f"{where}.maxParallelism"),
            _positive(raw.get("maxSubtasks", max_subtasks), f"{where}.maxSubtasks"),
        )
        master = check_master(raw["master"], where=where)
        profiles[name] = _profile(name, master, limits, raw, where)
    return profiles


def _known(raw: Mapping[str, Any], keys: frozenset[str], where: str) -> None:
    unknown = sorted(set(raw) - keys)
    if unknown:
        raise ClusterConfigError(f"{where}: unknown keys {unknown}; known: {sorted(keys)}")


def _profile(
    name: str, master: str, limits: tuple[int, int], raw: Mapping[str, Any], where: str
) -> ClusterProfile:
    profile = ClusterProfile(
        name,
        master,
        *limits,
        spark_conf=_spark_conf(raw.get("sparkConf", {}), f"{where}.sparkConf"),
        python=_text(raw.get("python"), f"{where}.python", "an interpreter's path"),
        python_archive=_archive(raw.get("pythonArchive"), f"{where}.pythonArchive"),
        bind_address=_address(raw.get("bindAddress"), f"{where}.bindAddress"),
        host=_address(raw.get("host"), f"{where}.host"),
        driver_port=_port(raw.get("driverPort"), f"{where}.driverPort"),
        block_manager_port=_port(raw.get("blockManagerPort"), f"{where}.blockManagerPort"),
        ui_url=_link(raw.get("uiUrl"), f"{where}.uiUrl"),
        history_url=_link(raw.get("historyUrl"), f"{where}.historyUrl"),
        event_log_dir=_location(raw.get("eventLogDir"), f"{where}.eventLogDir"),
        data_uri=_data_uri(raw.get("dataUri"), f"{where}.dataUri"),
        events_url=_events_url(raw.get("eventsUrl"), f"{where}.eventsUrl"),
    )
    if profile.is_local:
        if profile.python_archive is not None:
            raise ClusterConfigError(
                f"{where}.pythonArchive: a local master runs its Python workers on this "
                'host, where Spark unpacks no archive for them; give "python" instead'
            )
        return profile
    if profile.host is None:
        raise ClusterConfigError(
            f'{where}: executors on {master} must reach the driver: give "host", the '
            "address of this worker they connect back to (loopback is for local masters)"
        )
    if profile.executor_python is None:
        raise ClusterConfigError(
            f'{where}: give "python", the interpreter on the cluster\'s hosts (with '
            'requirements/executor.txt installed), or "pythonArchive", a packed '
            "virtualenv (make executor-env)"
        )
    return profile


def _data_uri(value: object, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ClusterConfigError(f"{where}: give a URI as text, not {value!r}")
    try:
        return data_location(value).uri
    except LocationError as error:
        raise ClusterConfigError(f"{where}: {error}") from error


def _events_url(value: object, where: str) -> str | None:
    if value is None:
        return None
    try:
        return check_events_url(value, where=where)
    except EventsUrlError as error:
        raise ClusterConfigError(str(error)) from error


def _spark_conf(raw: object, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, dict):
        raise ClusterConfigError(f'{where}: give an object of Spark properties, {{"spark.x": "v"}}')
    properties = []
    for key, value in raw.items():
        if not isinstance(key, str) or not _PROPERTY.fullmatch(key):
            raise ClusterConfigError(f"{where}: {key!r} is not a Spark property (spark.*)")
        if key in OWNED_PROPERTIES:
            raise ClusterConfigError(
                f"{where}: {key} is not the profile's to set (see docs/RUNTIME.md, "
                "Running on a cluster)"
            )
        text = _property_text(value, f"{where}[{key!r}]")
        if key == "spark.task.maxFailures" and not (text.isdigit() and 1 <= int(text) <= 100):
            raise ClusterConfigError(f"{where}[{key!r}]: give attempts from 1 to 100, not {text}")
        properties.append((key, text))
    return tuple(sorted(properties))


def _property_text(value: object, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return str(value)
    if isinstance(value, str) and value and value.isprintable():
        return value
    raise ClusterConfigError(f"{where}: give text, a number or true/false, not {value!r}")


def _text(value: object, where: str, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or not value.isprintable():
        raise ClusterConfigError(f"{where}: give {what}, not {value!r}")
    return value


def _archive(value: object, where: str) -> str | None:
    text = _text(value, where, "a path or URI of a .tar.gz, .tgz, .tar or .zip")
    if text is None:
        return None
    match = _ARCHIVE.fullmatch(text)
    if match is None:
        raise ClusterConfigError(
            f"{where}: {text!r} is not an archive Spark unpacks (.tar.gz, .tgz, .tar, .zip), "
            "optionally with #alias (letters, digits, '-', '_')"
        )
    return f"{match.group(1)}#{match.group(2) or _ALIAS}"


def _address(value: object, where: str) -> str | None:
    text = _text(value, where, "a host name or IP address")
    if text is not None and not _ADDRESS.fullmatch(text):
        raise ClusterConfigError(f"{where}: {text!r} is not a host name or IP address")
    return text


def _port(value: object, where: str) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= 65535:
        raise ClusterConfigError(f"{where}: give a port from 1 to 65535, not {value!r}")
    return value


def _link(value: object, where: str) -> str | None:
    text = _text(value, where, "an http(s) URL")
    if text is not None and not _URL.fullmatch(text.replace(PLACEHOLDER, "app")):
        raise ClusterConfigError(
            f"{where}: {text!r} is not an http(s) URL ({PLACEHOLDER} is the only placeholder)"
        )
    return text


def _location(value: object, where: str) -> str | None:
    text = _text(value, where, "a URI or an absolute path")
    if text is not None and not _URI_OR_PATH.fullmatch(text):
        raise ClusterConfigError(
            f"{where}: {text!r} is not a URI (hdfs://, s3a://, file:/...) or an absolute path"
        )
    return text


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
