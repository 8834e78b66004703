"""The image's entry point (`docker/entrypoint.sh`): any command passes through, and
`executor`, as Spark on Kubernetes starts its executor pods, starts Spark's Kubernetes
executor backend from the installed pyspark with what the pod's environment says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from config.asgi_server import free_port

REPO = Path(__file__).resolve().parents[2]
ENTRYPOINT = REPO / "docker" / "entrypoint.sh"


def _environment(**extra: str) -> dict[str, str]:
    # The image's `python` is the one with pyspark; here it is the test's.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    return {**env, "PATH": path, **extra}


def test_a_command_runs_as_given() -> None:
    process = subprocess.run(
        [str(ENTRYPOINT), "printf", "%s|", "a b", "c"],
        env=_environment(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert process.stdout == "a b|c|"


def test_executor_starts_sparks_kubernetes_executor_for_the_driver_it_is_given() -> None:
    port = free_port()  # nothing listens there: the executor fails to reach its driver
    env = _environment(
        SPARK_DRIVER_URL=f"spark://CoarseGrainedScheduler@127.0.0.1:{port}",
        SPARK_EXECUTOR_ID="3",
        SPARK_EXECUTOR_CORES="1",
        SPARK_EXECUTOR_MEMORY="256m",
        SPARK_APPLICATION_ID="spark-application-1",
        SPARK_EXECUTOR_POD_IP="127.0.0.1",
        SPARK_EXECUTOR_POD_NAME="studio-exec-3",
        SPARK_RESOURCE_PROFILE_ID="0",
        SPARK_JAVA_OPT_0="-Dspark.driver.port=1",
        # Split at its space, "words" would be taken for the class to run.
        SPARK_JAVA_OPT_1="-Dstudio.words=two words",
        SPARK_LOCAL_IP="127.0.0.1",
    )
    process = subprocess.run(
        [str(ENTRYPOINT), "executor"], env=env, capture_output=True, text=True, timeout=120
    )
    output = process.stdout + process.stderr
    assert process.returncode != 0
    assert "KubernetesExecutorBackend: Started daemon" in output
    assert f"Failed to connect to /127.0.0.1:{port}" in output
