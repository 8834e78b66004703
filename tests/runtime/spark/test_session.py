"""One SparkSession per process: lazy, reused, on loopback, stopped cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from runtime.clusters import ClusterProfile
from runtime.spark.session import (
    DEFAULT_MASTER,
    Session,
    SparkSettings,
    current_session,
    get_session,
)
from tests.runtime.spark.conftest import TEST_SETTINGS

BACKEND = Path(__file__).resolve().parents[3] / "backend"


def test_importing_the_spark_runtime_starts_nothing():
    script = textwrap.dedent(
        """
        import runtime.spark.executor, runtime.spark.hooks, runtime.spark.listener
        import runtime.spark.session, runtime.spark.tasks
        from pyspark import SparkContext
        assert SparkContext._active_spark_context is None
        assert SparkContext._gateway is None
        assert runtime.spark.session.current_session() is None
        """
    )
    env = {**os.environ, "PYTHONPATH": str(BACKEND)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_settings_come_from_the_environment():
    settings = SparkSettings.from_environ(
        {"SPARK_MASTER": "spark://10.0.0.5:7077", "SPARK_LOCAL_IP": "10.0.0.9"}
    )
    assert settings.master == "spark://10.0.0.5:7077"
    assert settings.bind_address == "10.0.0.9"
    assert settings.ui_port is None
    defaults = SparkSettings.from_environ({})
    assert defaults.master == DEFAULT_MASTER == "local[*,3]"
    assert defaults.bind_address == "127.0.0.1"
    assert defaults.python_worker_memory == "1g"
    assert (
        SparkSettings.from_environ({"SPARK_PYTHON_WORKER_MEMORY": "3g"}).python_worker_memory
        == "3g"
    )
    assert (
        SparkSettings.from_environ({"SPARK_PYTHON_WORKER_MEMORY": "none"}).python_worker_memory
        is None
    )


def test_the_spark_properties_bind_to_loopback_and_use_this_python():
    conf = SparkSettings().spark_conf()
    assert conf["spark.driver.host"] == conf["spark.driver.bindAddress"] == "127.0.0.1"
    assert conf["spark.pyspark.python"] == sys.executable
    assert conf["spark.ui.enabled"] == "false"
    # The code is shipped, never found in this host's folders.
    assert "spark.executorEnv.PYTHONPATH" not in conf
    extra = SparkSettings(python_path=("/opt/a", "/opt/b")).spark_conf()
    assert extra["spark.executorEnv.PYTHONPATH"] == os.pathsep.join(("/opt/a", "/opt/b"))
    # Each Python worker's address space is capped: a huge expression fails its task.
    assert conf["spark.executor.pyspark.memory"] == "1g"
    assert (
        "spark.executor.pyspark.memory" not in SparkSettings(python_worker_memory=None).spark_conf()
    )
    ui = SparkSettings(ui_port=4050, conf=(("spark.ui.enabled", "false"),)).spark_conf()
    assert ui["spark.ui.port"] == "4050"
    assert ui["spark.ui.enabled"] == "false"  # explicit properties win


def test_a_cluster_profile_gives_the_session_its_master_and_properties():
    remote = ClusterProfile(
        "big",
        "spark://10.0.0.5:7077",
        8,
        32,
        spark_conf=(("spark.executor.memory", "2g"),),
        python_archive="hdfs:///envs/exec.tar.gz#env",
        host="10.0.0.9",
        driver_port=7078,
    )
    settings = SparkSettings.for_cluster(
        remote, {"SPARK_PYTHON_WORKER_MEMORY": "2g"}, code_cache_dir="/srv/cache"
    )
    assert (settings.master, settings.code_cache_dir) == ("spark://10.0.0.5:7077", "/srv/cache")
    conf = settings.spark_conf()
    assert conf["spark.driver.host"] == "10.0.0.9"
    # Spark binds the advertised host's address: loopback is for local masters only.
    assert "spark.driver.bindAddress" not in conf and settings.bind_address is None
    assert conf["spark.driver.port"] == "7078"
    assert conf["spark.pyspark.python"] == "./env/bin/python"
    assert conf["spark.archives"] == "hdfs:///envs/exec.tar.gz#env"
    assert conf["spark.executor.memory"] == "2g"
    assert conf["spark.executor.pyspark.memory"] == "2g"  # the server's cap, not the profile's

    local = SparkSettings.for_cluster(ClusterProfile("default", "local[2,3]", 8, 32), {})
    conf = local.spark_conf()
    assert conf["spark.driver.host"] == conf["spark.driver.bindAddress"] == "127.0.0.1"
    assert conf["spark.pyspark.python"] == sys.executable
    lan = SparkSettings.for_cluster(
        ClusterProfile("default", "local", 8, 32), {"SPARK_LOCAL_IP": "10.1.1.1"}
    )
    assert lan.spark_conf()["spark.driver.host"] == "10.1.1.1"


def test_the_executors_import_the_shipped_code(spark: Session):
    # Not this host's source folder: the zip the session shipped, as on a cluster.
    def where(_: object) -> list[str]:
        import runtime

        return [runtime.__file__ or ""]

    found = spark.context.parallelize([0], 1).flatMap(where).collect()
    assert spark.code.startswith("streamgraph-code-") and spark.code.endswith(".zip")
    assert len(found) == 1 and f"{spark.code}{os.sep}runtime" in found[0]
    assert not found[0].startswith(str(BACKEND))
    assert not any(spark.code in entry for entry in sys.path)  # the driver keeps its own


def test_one_session_per_process_reused(spark: Session):
    assert get_session() is spark
    assert get_session(TEST_SETTINGS) is spark
    assert current_session() is spark
    with pytest.raises(ValueError, match="other settings"):
        get_session(SparkSettings(master="local[1]"))


def test_the_running_session_is_on_loopback_with_this_interpreter(spark: Session):
    conf = spark.context.getConf()
    assert conf.get("spark.driver.host") == "127.0.0.1"
    assert conf.get("spark.pyspark.python") == sys.executable
    assert conf.get("spark.ui.enabled") == "false"
    assert conf.get("spark.scheduler.mode") == "FAIR"
    assert spark.context.master == "local[4,3]"
    assert os.environ["SPARK_LOCAL_IP"] == "127.0.0.1"
    assert spark.startup_seconds > 0


def test_a_stopped_session_starts_again_and_exits_cleanly():
    """Stop removes the listener before Spark stops (else the JVM logs an error per event),
    a new session may then use another master, and the exit hook stops the last one."""
    script = textwrap.dedent(
        """
        from runtime.spark.session import SparkSettings, current_session, get_session
        from runtime.spark.session import stop_session
        first = get_session(SparkSettings(master="local[1,2]", app_name="restart"))
        assert first.context.parallelize(range(10), 2).sum() == 45
        stop_session()
        assert current_session() is None
        second = get_session(SparkSettings(master="local[2,2]", app_name="restart"))
        assert second is not first and second.context.master == "local[2,2]"
        assert second.listener.active_runs == 0
        assert second.context.parallelize(range(10), 2).sum() == 45
        print("ok")
        """
    )
    env = {**os.environ, "PYTHONPATH": str(BACKEND)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
    assert "Py4J" not in done.stderr, done.stderr[-3000:]
