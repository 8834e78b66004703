"""A `redis-server` of a test's own on a free port, keeping nothing on disk: plain, or
with a password and TLS only (certificates of a throwaway CA made with `openssl`)."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from config.asgi_server import free_port
from tests.backend.runs_support import wait_for

PASSWORD = "events-secret"


class PrivateRedis:
    """Started by `start`, gone with everything it held by `kill`."""

    def __init__(self, folder: Path, *, tls: bool = False) -> None:
        self.port = free_port()
        self.folder = folder
        self.tls = tls
        if tls:
            self.ca = _certificates(folder)
            self.url = (
                f"rediss://:{PASSWORD}@127.0.0.1:{self.port}/0?ssl_ca_certs={self.ca}"
                "&ssl_cert_reqs=required"
            )
        else:
            self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        listen = ["--port", str(self.port)]
        if self.tls:
            listen = [
                "--port", "0", "--tls-port", str(self.port),
                "--tls-cert-file", str(self.folder / "server.pem"),
                "--tls-key-file", str(self.folder / "server.key"),
                "--tls-ca-cert-file", str(self.ca),
                "--tls-auth-clients", "no",
                "--requirepass", PASSWORD,
            ]  # fmt: skip
        self.process = subprocess.Popen(
            ["redis-server", *listen, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = self.client()
        wait_for(lambda: _answers(client), 10, "the private Redis starting")
        client.close()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)

    def kill(self) -> None:
        """Gone at once, with everything it held (subscriptions, presence, queues)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None


@contextmanager
def private_redis_server(folder: Path, *, tls: bool = False) -> Iterator[PrivateRedis]:
    """A `PrivateRedis` started in `folder`, killed at the end unless it is down already."""
    server = PrivateRedis(folder, tls=tls)
    server.start()
    try:
        yield server
    finally:
        if server.process is not None:
            server.kill()


def _answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


def _certificates(folder: Path) -> Path:
    """A CA and a server certificate for 127.0.0.1 signed by it; the CA's path."""

    def openssl(*arguments: str) -> None:
        subprocess.run(["openssl", *arguments], cwd=folder, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            "/CN=test events CA", "-keyout", "ca.key", "-out", "ca.pem")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
            "-keyout", "server.key", "-out", "server.csr")  # fmt: skip
    (folder / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "san.cnf",
            "-out", "server.pem")  # fmt: skip
    return folder / "ca.pem"
