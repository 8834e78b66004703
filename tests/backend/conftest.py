"""Backend test settings: fast password hashing for the many users tests create, no limit
on sign-in attempts, and no names left in Redis by the session's test database; and the
Spark standalone cluster, started once for the session by the first test that needs it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings

from config.namespacing import forget_namespace, redis_namespace
from tests.backend.spark_cluster import StandaloneCluster, standalone_cluster

FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    # PBKDF2 costs most of a second per user on this machine; tests only need a hash.
    settings.PASSWORD_HASHERS = FAST_HASHERS


@pytest.fixture(autouse=True)
def _no_attempt_limit(settings: Any) -> None:
    # Tests register and fail to sign in far faster than people; the tests of the limit
    # itself set their own (tests/backend/test_auth.py).
    settings.AUTH_ATTEMPTS_PER_MINUTE = 1_000_000


@pytest.fixture(scope="session", autouse=True)
def _forget_the_test_databases_redis_names(django_db_setup: None) -> Iterator[None]:
    yield
    # Every server and worker of the session has stopped; the test database is still the
    # one configured, so this is its namespace.
    forget_namespace(redis_namespace(), redis.Redis.from_url(django_settings.REDIS_URL))


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    """A Spark master and one worker (2 cores, 1 GiB) on loopback, for the whole session:
    two JVMs that take seconds to start and most of a gigabyte."""
    with standalone_cluster(tmp_path_factory.mktemp("spark-cluster")) as cluster:
        yield cluster
