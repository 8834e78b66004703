"""`manage.py serve`: the whole product on one port: ASGI server plus a Celery worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.asgi_server import uvicorn_command
from config.redis_check import RedisUnavailable, require_redis


class Command(BaseCommand):
    help = "Serve HTTP and websockets (uvicorn) and run a Celery worker until interrupted."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-worker", action="store_true", help="do not start Celery")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            require_redis(settings.REDIS_URL)
        except RedisUnavailable as error:
            raise CommandError(str(error)) from error
        # The children import `config` and the apps from the backend folder.
        path = os.pathsep.join(
            filter(None, [str(settings.BACKEND_DIR), os.environ.get("PYTHONPATH")])
        )
        env = {**os.environ, "PYTHONPATH": path}
        children: list[subprocess.Popen[bytes]] = []
        if not options["no_worker"]:
            children.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "celery",
                        "-A",
                        "config",
                        "worker",
                        "--loglevel",
                        "INFO",
                        "--concurrency",
                        "2",
                    ],
                    env=env,
                )
            )
        server = subprocess.Popen(
            uvicorn_command(host=options["host"], port=options["port"]), env=env
        )
        children.append(server)
        self.stdout.write(f"StreamGraph Studio on http://{options['host']}:{options['port']}/")
        try:
            server.wait()
        except KeyboardInterrupt:
            pass
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    child.kill()
