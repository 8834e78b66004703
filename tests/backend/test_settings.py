"""Production is the default: debug, the secret key and HTTPS only as the environment says.

Settings are read once per process, so each case starts a Python process of its own with
the environment it describes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_NAMES = ("DEBUG", "SECRET_KEY", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE",
          "SECURE_HSTS_SECONDS", "SECURE_SSL_REDIRECT", "TRUSTED_PROXIES")  # fmt: skip
_PRINT = (
    "import json, django; from django.conf import settings; django.setup(); "
    f"print(json.dumps({{n: str(getattr(settings, n)) for n in {_NAMES!r}}}))"
)


def _settings(**environment: str) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DJANGO_DEBUG", "SECRET_KEY", "HTTPS", "TRUSTED_PROXIES"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(REPO / "backend"),
        **environment,
    )
    return subprocess.run(
        [sys.executable, "-c", _PRINT], env=env, cwd=REPO, capture_output=True, text=True
    )


def _values(**environment: str) -> dict[str, str]:
    process = _settings(**environment)
    assert process.returncode == 0, process.stderr[-2000:]
    values: dict[str, str] = json.loads(process.stdout)
    return values


def test_without_a_secret_key_production_refuses_to_start() -> None:
    process = _settings()

    assert process.returncode != 0
    assert "SECRET_KEY must be set in the environment" in process.stderr
    assert "DJANGO_DEBUG=true" in process.stderr


def test_debug_is_off_unless_asked_for() -> None:
    assert _values(SECRET_KEY="k" * 50)["DEBUG"] == "False"
    assert _values(SECRET_KEY="k" * 50, DJANGO_DEBUG="false")["DEBUG"] == "False"
    assert _values(DJANGO_DEBUG="true")["DEBUG"] == "True"


def test_debug_uses_a_key_of_the_checkout_never_one_in_the_source() -> None:
    first = _values(DJANGO_DEBUG="true")["SECRET_KEY"]
    second = _values(DJANGO_DEBUG="true")["SECRET_KEY"]

    assert first == second  # kept in var/, so sessions survive a restart
    assert len(first) >= 50
    sources = "".join(p.read_text() for p in (REPO / "backend" / "config").glob("*.py"))
    assert first not in sources
    assert "django-insecure" not in sources


def test_https_makes_cookies_secure_and_sends_hsts() -> None:
    plain = _values(SECRET_KEY="k" * 50)
    served_over_https = _values(SECRET_KEY="k" * 50, HTTPS="true")

    assert (plain["SESSION_COOKIE_SECURE"], plain["CSRF_COOKIE_SECURE"]) == ("False", "False")
    assert plain["SECURE_HSTS_SECONDS"] == "0"
    assert served_over_https["SESSION_COOKIE_SECURE"] == "True"
    assert served_over_https["CSRF_COOKIE_SECURE"] == "True"
    assert served_over_https["SECURE_SSL_REDIRECT"] == "True"
    assert int(served_over_https["SECURE_HSTS_SECONDS"]) >= 365 * 24 * 3600


def test_a_bad_trusted_proxy_is_named() -> None:
    process = _settings(SECRET_KEY="k" * 50, TRUSTED_PROXIES="10.0.0.0/8,not-an-address")

    assert process.returncode != 0
    assert "TRUSTED_PROXIES: 'not-an-address' is not an address or network" in process.stderr


@pytest.mark.parametrize("name", ["Dockerfile", "compose.yaml"])
def test_the_image_runs_production_settings(name: str) -> None:
    text = (REPO / "docker" / name).read_text()

    assert "DJANGO_DEBUG" not in text


def _check(**environment: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **environment}
    return subprocess.run(
        [sys.executable, "manage.py", "check"], env=env, cwd=REPO, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("clusters", "message"),
    [
        ('{"big": {"master": "local[99999999]"}}', "is not a Spark master"),
        ('{"big": {"master": "local", "cores": 8}}', "unknown keys ['cores']"),
        ('{"big": {"master": "spark://h:7077", "python": "python3"}}', 'give "host"'),
        (
            '{"big": {"master": "local", "sparkConf": {"spark.executor.pyspark.memory": "0"}}}',
            "spark.executor.pyspark.memory is not the profile's to set",
        ),
        ("[1, 2]", "SPARK_CLUSTERS must be an object"),
        ("{nope", "SPARK_CLUSTERS is not JSON"),
    ],
)
def test_a_bad_cluster_setting_stops_the_server_saying_what(clusters: str, message: str) -> None:
    process = _check(SECRET_KEY="k" * 50, SPARK_CLUSTERS=clusters)

    assert process.returncode != 0
    assert message in process.stderr


def test_good_cluster_settings_pass_the_checks() -> None:
    clusters = (
        '{"big": {"master": "spark://spark-master:7077", "maxParallelism": 512, '
        '"host": "studio-worker", "pythonArchive": "hdfs:///envs/executor.tar.gz#env"}}'
    )

    assert _check(SECRET_KEY="k" * 50, SPARK_CLUSTERS=clusters).returncode == 0


def test_the_compose_cluster_passes_the_checks_in_both_of_its_workers() -> None:
    import yaml

    services = yaml.safe_load((REPO / "docker" / "compose.yaml").read_text())["services"]
    profiles = {}
    for name in ("web", "worker"):
        clusters = services[name]["environment"]["SPARK_CLUSTERS"]
        process = _check(SECRET_KEY="k" * 50, SPARK_CLUSTERS=clusters)
        assert process.returncode == 0, process.stderr
        profiles[name] = json.loads(clusters)["compose"]
        # Executors connect back to the container whose worker drives the run.
        assert profiles[name]["host"] == name
    assert {**profiles["web"], "host": ""} == {**profiles["worker"], "host": ""}
    master = profiles["web"]["master"]
    assert master == "spark://spark-master:7077" == services["spark-worker"]["command"][-1]
    assert services["worker"]["command"][-3:] == ["run_worker", "--cluster", "compose"]
    # One volume, at the same path wherever a driver or an executor touches the data.
    data = profiles["web"]["dataUri"].removeprefix("file://")
    for name in ("web", "worker", "spark-worker"):
        [(volume, path)] = (mount.split(":") for mount in services[name]["volumes"])
        assert (volume, data.startswith(path + "/")) == ("data", True)
