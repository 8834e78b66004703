"""Redis names are scoped to the database a process serves."""

from __future__ import annotations

import pytest
from django.db import connections
from django.test import override_settings

from config.namespacing import redis_namespace
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
