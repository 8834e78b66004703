"""Shared pytest configuration; Django settings come from pyproject.toml (pytest-django)."""

import os
from pathlib import Path

import pytest

_VAR = Path(__file__).resolve().parents[1] / "var"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `postgres_only` are skipped on any other database (`make test` runs
    them in its PostgreSQL pass)."""
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return
    skip = pytest.mark.skip(reason="postgres_only: run in the PostgreSQL pass")
    for item in items:
        if item.get_closest_marker("postgres_only") is not None:
            item.add_marker(skip)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove the SQLite test database's WAL side files (Django deletes only the file)."""
    for leftover in _VAR.glob(f"test-db-{os.getpid()}.sqlite3*"):
        leftover.unlink(missing_ok=True)
