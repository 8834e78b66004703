"""Redis names are scoped to the database a process serves."""

from __future__ import annotations

import io
import secrets
from collections.abc import Iterator

import pytest
import redis
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.test import override_settings

from config.namespacing import forget_namespace, redis_namespace
from pipelines.events import pipeline_group


def test_namespace_follows_the_database(monkeypatch: pytest.MonkeyPatch) -> None:
    ours = redis_namespace()
    database = connections["default"].settings_dict
    monkeypatch.setitem(database, "NAME", f"{database['NAME']}-another")
    theirs = redis_namespace()
    assert ours != theirs
    assert theirs.startswith("studio-")
    # Group names of the channel layer: letters, digits, '-', '_' and '.' only.
    assert all(c.isalnum() or c in "-_." for c in pipeline_group(1))


@override_settings(REDIS_NAMESPACE="shared-by-hand")
def test_an_explicit_namespace_wins() -> None:
    assert redis_namespace() == "shared-by-hand"
    assert pipeline_group(7) == "shared-by-hand.pipeline.7"


@pytest.fixture
def client() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(settings.REDIS_URL)
    yield client
    client.close()


def _names(namespace: str) -> list[str]:
    """What a server of `namespace` leaves in Redis, as the project and Celery name it."""
    return [
        f"{namespace}:presence:1",
        f"{namespace}:cache::1:auth-attempts:sign-in:10.0.0.1:1",
        f"{namespace}.runs",
        f"_kombu.binding.{namespace}.runs",
        f"_kombu.binding_permanent.{namespace}.runs",
    ]


def test_forgetting_a_namespace_deletes_its_names_only(client: redis.Redis) -> None:
    gone, kept = f"test-gone-{secrets.token_hex(4)}", f"test-kept-{secrets.token_hex(4)}"
    # A namespace that merely starts like the forgotten one is another namespace.
    others = [*_names(kept), f"{gone}x:presence:1"]
    for name in [*_names(gone), *others]:
        client.set(name, "1", ex=60)

    assert forget_namespace(gone, client) == len(_names(gone))

    assert [name for name in _names(gone) if client.exists(name)] == []
    assert [name for name in others if client.exists(name)] == others
    client.delete(*others)


def test_glob_characters_in_a_namespace_are_taken_literally(client: redis.Redis) -> None:
    plain = f"test-{secrets.token_hex(4)}"
    client.set(f"{plain}:presence:1", "1", ex=60)

    assert forget_namespace(f"{plain[:-1]}?", client) == 0
    assert forget_namespace("*", client) == 0

    assert client.exists(f"{plain}:presence:1")
    client.delete(f"{plain}:presence:1")


def test_the_command_forgets_the_namespace_this_server_would_use(client: redis.Redis) -> None:
    # Not the test database's own: the rest of the session still uses that one.
    namespace = f"test-command-{secrets.token_hex(4)}"
    names = _names(namespace)
    for name in names:
        client.set(name, "1", ex=60)
    out = io.StringIO()

    with override_settings(REDIS_NAMESPACE=namespace):
        call_command("forget_redis_namespace", stdout=out)

    assert [name for name in names if client.exists(name)] == []
    assert out.getvalue().strip() == f"Deleted {len(names)} keys of namespace {namespace}."
