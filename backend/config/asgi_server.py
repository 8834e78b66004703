"""How the product's servers are started and stopped: one command line for `serve`,
tests and benchmarks."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings


def uvicorn_command(*, host: str, port: int, log_level: str = "info") -> list[str]:
    """uvicorn serving `config.asgi` (HTTP and websockets).

    Per-message deflate is off: compressing each broadcast once per client costs more
    server CPU than the small plan deltas save in bytes. Forwarded headers are not believed
    here: `config.proxies` decides whom to believe, from `TRUSTED_PROXIES`. A websocket
    message far beyond what the consumers read (`config.socket_input`) closes the socket.
    """
    return [
        sys.executable, "-m", "uvicorn", "config.asgi:application",
        "--host", host, "--port", str(port),
        "--ws", "websockets-sansio", "--ws-per-message-deflate", "false",
        "--no-proxy-headers",
        "--ws-max-size", str(2 * settings.WEBSOCKET_MAX_MESSAGE_BYTES),
        "--no-access-log", "--log-level", log_level,
    ]  # fmt: skip


def serve_command(*, port: int) -> list[str]:
    """`manage.py serve` (uvicorn and a Celery worker) on `port`, run from the repository."""
    return [sys.executable, "manage.py", "serve", "--port", str(port)]


def stop_serving(process: subprocess.Popen[bytes], *, timeout: float) -> None:
    """Stop a `manage.py serve` (or `run_worker`) as `docker stop` does, by SIGTERM (not
    Ctrl+C's SIGINT, which a process started in the background of a script ignores): it
    stops uvicorn and its workers, whose Spark sessions go with them. If it takes longer
    than `timeout` seconds it is killed, with every process of its group when it leads one
    (started with `start_new_session`), so that no worker outlives it to take the runs of
    a later server on its queues."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        if os.getpgid(process.pid) == process.pid:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        process.wait()


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def wait_until_listening(
    process: subprocess.Popen[bytes], *, host: str, port: int, timeout: float = 30.0
) -> None:
    """Return once the server accepts connections; raise if it exits or takes too long."""
    deadline = time.monotonic() + timeout
    while not _accepts(host, port):
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server did not listen on {host}:{port} in {timeout} s")
        time.sleep(0.1)


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False
