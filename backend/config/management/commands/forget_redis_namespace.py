"""`manage.py forget_redis_namespace`: delete this database's names from Redis.

Everything the project keeps in Redis lives under the namespace of the database it
serves (`config/namespacing.py`). When that database goes away (a dropped database, a
test run's throwaway one), its presence entries, cache entries, queued runs and Celery
queue bindings would stay behind; this deletes them. Run it only once no server or
worker uses the database any more.
"""

from __future__ import annotations

from typing import Any

import redis
from django.conf import settings
from django.core.management.base import BaseCommand

from config.namespacing import forget_namespace, redis_namespace


class Command(BaseCommand):
    help = "Delete what this database's namespace holds in Redis (for a database that is gone)."

    def handle(self, *args: Any, **options: Any) -> None:
        namespace = redis_namespace()
        deleted = forget_namespace(namespace, redis.Redis.from_url(settings.REDIS_URL))
        self.stdout.write(f"Deleted {deleted} keys of namespace {namespace}.")
