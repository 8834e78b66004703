"""Shared pytest configuration; Django settings come from pyproject.toml (pytest-django).

Under pytest-xdist (`make test` runs `-n 2 --dist loadgroup`), tests go to the workers in
groups (`GroupScheduling`): a module is one group, so its servers start once, on one
worker; the modules that share a session's JVM are one group between them, so it starts
once too. The longest groups are handed out first, so that none of them is left running
alone at the end.
"""

import os
from pathlib import Path
from typing import Any

import pytest

_VAR = Path(__file__).resolve().parents[1] / "var"

SHARED_JVMS = {
    "tests/runtime/spark/": "the Spark session of tests/runtime/spark",
    "tests/backend/test_runs_cluster.py": "the Spark standalone cluster",
    "tests/backend/test_runs_two_workers.py": "the Spark standalone cluster",
}
"""Modules (or folders) whose session fixture starts JVMs, by the group they share."""
FIRST = (
    "the Spark session of tests/runtime/spark",
    "tests/backend/test_api_fuzz.py",
    "the Spark standalone cluster",
    "tests/backend/test_socket_fuzz.py",
    "tests/backend/test_faults.py",
    "tests/backend/test_runs_events_url.py",
)
"""The longest groups, handed out in this order before the others."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `postgres_only` are skipped on any other database; the longest groups
    come first (every worker collects, so every worker sorts alike)."""
    from django.conf import settings

    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        skip = pytest.mark.skip(reason="postgres_only: what it checks is PostgreSQL's")
        for item in items:
            if item.get_closest_marker("postgres_only") is not None:
                item.add_marker(skip)
    order = {group: position for position, group in enumerate(FIRST)}
    items.sort(key=lambda item: order.get(group_of(item.nodeid), len(FIRST)))


def group_of(nodeid: str) -> str:
    """The group a test runs in: its module's, or the JVM's its module shares."""
    module = nodeid.split("::", 1)[0]
    for prefix, group in SHARED_JVMS.items():
        if module.startswith(prefix):
            return group
    return module


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup` by `group_of` (xdist's own reads `xdist_group` marks, which it
    cannot attach to a test id under this pytest), the groups in collection order."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    config.option.loadscopereorder = False
    return GroupScheduling(config, log)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove the SQLite test database's WAL side files (Django deletes only the file)."""
    for leftover in _VAR.glob(f"test-db-{os.getpid()}.sqlite3*"):
        leftover.unlink(missing_ok=True)
