"""Backend test settings: fast password hashing for the many users tests create."""

from __future__ import annotations

from typing import Any

import pytest

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
