import os

import pytest
from django.contrib.auth.models import User
from django.db import connection

pytestmark = pytest.mark.both_databases


def test_database_follows_database_url() -> None:
    url = os.environ.get("DATABASE_URL", "sqlite://")
    expected = "postgresql" if url.startswith(("postgres://", "postgresql://")) else "sqlite"

    assert connection.vendor == expected


@pytest.mark.django_db
def test_migrated_database_accepts_writes() -> None:
    User.objects.create_user(username="probe")

    assert User.objects.filter(username="probe").exists()
