"""Backend test settings: fast password hashing for the many users tests create."""

from __future__ import annotations

from typing import Any

import pytest

FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    # PBKDF2 costs most of a second per user on this machine; tests only need a hash.
    settings.PASSWORD_HASHERS = FAST_HASHERS
