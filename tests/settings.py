"""The settings the test suites run with: the production settings, and a key of their own.

Production is what the suites test (debug off), on production's database: PostgreSQL
unless `DATABASE_URL` says otherwise (`make test` runs a few tests again on SQLite, the
default of `make run`: those marked `both_databases`). A secret key is all that
production asks of its environment that a test machine does not have. The server
processes the tests start inherit `DJANGO_SETTINGS_MODULE`, so they run with these too.
"""

import os

os.environ.setdefault("SECRET_KEY", "tests-only-secret-key-" + "0123456789abcdef" * 3)
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")

from config.settings import *  # noqa: F403
