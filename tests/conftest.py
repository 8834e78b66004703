"""Shared pytest configuration; Django settings come from pyproject.toml (pytest-django)."""

import os
from pathlib import Path

import pytest

_VAR = Path(__file__).resolve().parents[1] / "var"


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove the SQLite test database's WAL side files (Django deletes only the file)."""
    for leftover in _VAR.glob(f"test-db-{os.getpid()}.sqlite3*"):
        leftover.unlink(missing_ok=True)
