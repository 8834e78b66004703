"""The browser app served beside the API: bundles, the page for every app route, no build."""

from __future__ import annotations

import gzip
import os
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import brotli
import pytest
from django.test import Client

from config.asgi_server import free_port, uvicorn_command, wait_until_listening

REPO = Path(__file__).resolve().parents[2]
INDEX = (
    b"<!doctype html><html><head><title>StreamGraph Studio</title>"
    b'<script type="module" src="/assets/index-4f2a9c1b.js"></script></head>'
    b'<body><div id="root"></div></body></html>\n'
)
# Large and repetitive enough to be worth compressing, as real bundles are.
SCRIPT = b"".join(b"export const operator%d = () => 'map %d';\n" % (i, i) for i in range(400))
STYLE = b"body { margin: 0; }\n" * 60
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
FAVICON = b'<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"/>\n'

APP_ROUTES = ["/", "/signin", "/pipelines/7", "/pipelines/7/diff", "/any/deep/link", "/index.html"]


def write_dist(dist: Path) -> Path:
    """A build as `npm run build` writes it: text files have a .br and a .gz copy."""
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_bytes(INDEX)
    (dist / "assets" / "index-4f2a9c1b.js").write_bytes(SCRIPT)
    (dist / "assets" / "index-4f2a9c1b.js.br").write_bytes(brotli.compress(SCRIPT))
    (dist / "assets" / "index-4f2a9c1b.js.gz").write_bytes(gzip.compress(SCRIPT))
    (dist / "assets" / "index-77e0d3aa.css").write_bytes(STYLE)
    (dist / "assets" / "index-77e0d3aa.css.br").write_bytes(brotli.compress(STYLE))
    (dist / "assets" / "logo-1c2d3e4f.png").write_bytes(PNG)
    (dist / "favicon.svg").write_bytes(FAVICON)
    (dist / ".built").write_bytes(b"stamp")
    return dist


@pytest.fixture
def dist(tmp_path: Path, settings: Any) -> Path:
    built = write_dist(tmp_path / "dist")
    settings.FRONTEND_DIST_DIR = built
    return built


def _body(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


# The page for every app route --------------------------------------------------------


@pytest.mark.parametrize("path", APP_ROUTES)
def test_every_app_route_is_the_page(client: Client, dist: Path, path: str) -> None:
    response = client.get(path)

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response["Cache-Control"] == "no-cache"
    assert response["ETag"].startswith('"')
    assert _body(response) == INDEX


def test_the_page_is_revalidated_by_its_etag(client: Client, dist: Path) -> None:
    etag = client.get("/pipelines/3").headers["ETag"]

    again = client.get("/pipelines/3", headers={"If-None-Match": etag})

    assert again.status_code == 304
    assert _body(again) == b""
    assert again["ETag"] == etag


def test_a_new_build_is_served_without_a_restart(client: Client, dist: Path) -> None:
    first = client.get("/")
    (dist / "index.html").write_bytes(INDEX.replace(b"4f2a9c1b", b"90ab12cd"))
    stat = (dist / "index.html").stat()
    os.utime(dist / "index.html", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))

    second = client.get("/", headers={"If-None-Match": first["ETag"]})

    assert second.status_code == 200
    assert b"90ab12cd" in _body(second)
    assert second["ETag"] != first["ETag"]


def test_a_top_level_file_of_the_build_is_itself(client: Client, dist: Path) -> None:
    response = client.get("/favicon.svg")

    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response["Cache-Control"] == "no-cache"
    assert _body(response) == FAVICON


@pytest.mark.parametrize("path", ["/robots.txt", "/favicon.ico", "/pipelines/7/bundle.js"])
def test_a_missing_file_is_404_not_the_page(client: Client, dist: Path, path: str) -> None:
    response = client.get(path)

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/plain")


def test_hidden_files_of_the_build_are_not_served(client: Client, dist: Path) -> None:
    response = client.get("/.built")

    assert _body(response) == INDEX


def test_only_get_and_head(client: Client, dist: Path) -> None:
    assert client.post("/pipelines/7").status_code == 405
    assert client.head("/pipelines/7").status_code == 200


# Bundles -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content_type", "content"),
    [
        ("index-4f2a9c1b.js", "text/javascript; charset=utf-8", SCRIPT),
        ("index-77e0d3aa.css", "text/css; charset=utf-8", STYLE),
        ("logo-1c2d3e4f.png", "image/png", PNG),
    ],
)
def test_bundles_are_cached_for_a_year(
    client: Client, dist: Path, name: str, content_type: str, content: bytes
) -> None:
    response = client.get(f"/assets/{name}")

    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response["Content-Length"] == str(len(content))
    assert "Content-Encoding" not in response
    assert _body(response) == content


@pytest.mark.parametrize(
    ("accept", "encoding"),
    [
        ("gzip, deflate, br, zstd", "br"),
        ("br", "br"),
        ("gzip", "gzip"),
        ("gzip;q=1.0, br;q=0", "gzip"),
        ("*", "br"),
        ("identity", None),
        ("br;q=0, gzip;q=0", None),
    ],
)
def test_text_bundles_are_compressed_as_the_client_accepts(
    client: Client, dist: Path, accept: str, encoding: str | None
) -> None:
    response = client.get("/assets/index-4f2a9c1b.js", headers={"Accept-Encoding": accept})

    body = _body(response)
    assert response.get("Content-Encoding") == encoding
    assert response["Vary"] == "Accept-Encoding"
    assert response["Content-Length"] == str(len(body))
    decoded = {"br": brotli.decompress, "gzip": gzip.decompress, None: bytes}[encoding](body)
    assert decoded == SCRIPT
    if encoding is not None:
        assert len(body) < len(SCRIPT) / 4


def test_each_encoding_has_its_own_etag(client: Client, dist: Path) -> None:
    url = "/assets/index-4f2a9c1b.js"
    plain = client.get(url)["ETag"]
    compressed = client.get(url, headers={"Accept-Encoding": "br"})["ETag"]

    assert plain != compressed
    assert client.get(url, headers={"If-None-Match": plain}).status_code == 304
    assert (
        client.get(url, headers={"If-None-Match": plain, "Accept-Encoding": "br"}).status_code
        == 200
    )


def test_images_are_not_compressed(client: Client, dist: Path) -> None:
    response = client.get("/assets/logo-1c2d3e4f.png", headers={"Accept-Encoding": "br, gzip"})

    assert "Content-Encoding" not in response
    assert "Vary" not in response


@pytest.mark.parametrize(
    "path",
    [
        "/assets/missing-0000.js",
        "/assets/",
        "/assets",
        "/assets/..%2f..%2fsecret.txt",
        "/assets/%2e%2e/%2e%2e/secret.txt",
        "/assets/../secret.txt",
        "/assets/.hidden",
    ],
)
def test_nothing_outside_the_bundles_is_an_asset(client: Client, dist: Path, path: str) -> None:
    (dist.parent / "secret.txt").write_text("do not serve")
    (dist / "assets" / ".hidden").write_text("do not serve")

    response = client.get(path)

    assert response.status_code == 404
    assert b"do not serve" not in _body(response)


def test_a_symlink_out_of_the_build_is_not_followed(client: Client, dist: Path) -> None:
    (dist.parent / "secret.txt").write_text("do not serve")
    (dist / "assets" / "link.js").symlink_to(dist.parent / "secret.txt")

    assert client.get("/assets/link.js").status_code == 404


# What stays the API's ------------------------------------------------------------------


def test_unknown_api_paths_stay_the_json_404(client: Client, dist: Path) -> None:
    response = client.get("/api/pipelines/7/nothing-here/")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not-found"


def test_api_and_admin_without_a_slash_are_redirected(client: Client, dist: Path) -> None:
    assert client.get("/api")["Location"] == "/api/"
    assert client.get("/admin")["Location"] == "/admin/"


def test_the_api_still_answers(client: Client, dist: Path) -> None:
    assert client.get("/api/health/").json() == {"status": "ok"}


@pytest.mark.parametrize("path", ["/static/admin/css/base.css", "/ws/pipelines/1/"])
def test_static_and_websocket_paths_are_not_the_page(client: Client, dist: Path, path: str) -> None:
    assert _body(client.get(path)) != INDEX


# No build ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/pipelines/7/diff"])
def test_without_a_build_the_page_says_how_to_make_one(
    client: Client, tmp_path: Path, settings: Any, path: str
) -> None:
    settings.FRONTEND_DIST_DIR = tmp_path / "no-such-dist"

    response = client.get(path)

    assert response.status_code == 503
    assert response["Cache-Control"] == "no-store"
    text = response.content.decode()
    assert "make run" in text
    assert "npm run build" in text
    assert "no-such-dist" in text
    assert str(tmp_path) not in text


def test_without_a_build_assets_are_404_and_the_api_works(
    client: Client, tmp_path: Path, settings: Any
) -> None:
    settings.FRONTEND_DIST_DIR = tmp_path / "no-such-dist"

    assert client.get("/assets/index-4f2a9c1b.js").status_code == 404
    assert client.get("/api/health/").status_code == 200


# Through uvicorn, as `make run` serves it ---------------------------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    dist = write_dist(tmp_path_factory.mktemp("live") / "dist")
    port = free_port()
    env = {
        **os.environ,
        "FRONTEND_DIST_DIR": str(dist),
        "PYTHONPATH": os.pathsep.join([str(REPO / "backend"), str(REPO)]),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    process = subprocess.Popen(
        uvicorn_command(host="127.0.0.1", port=port, log_level="warning"),
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until_listening(process, host="127.0.0.1", port=port)
    except RuntimeError as error:
        process.kill()
        output = process.stdout.read().decode() if process.stdout else ""
        pytest.fail(f"uvicorn did not start ({error}):\n{output}")
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=10)


def _fetch(url: str, method: str = "GET", **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_uvicorn_serves_the_page_the_bundles_and_the_api(live: str) -> None:
    status, headers, body = _fetch(f"{live}/pipelines/7/diff")
    assert (status, headers["content-type"], body) == (200, "text/html; charset=utf-8", INDEX)

    status, headers, body = _fetch(f"{live}/assets/index-4f2a9c1b.js", **{"Accept-Encoding": "br"})
    assert status == 200
    assert headers["content-encoding"] == "br"
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert brotli.decompress(body) == SCRIPT

    status, headers, body = _fetch(f"{live}/assets/index-4f2a9c1b.js", method="HEAD")
    assert (status, headers["content-length"], body) == (200, str(len(SCRIPT)), b"")

    status, headers, body = _fetch(f"{live}/api/no-such-endpoint/")
    assert status == 404
    assert headers["content-type"] == "application/json"
