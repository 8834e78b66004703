"""The browser app, served by the same server as `/api/` and `/ws/`, through WhiteNoise.

`npm run build` (which `make run` runs when the frontend's sources changed) writes the
app to `FRONTEND_DIST_DIR` (`frontend/dist`): `index.html`, the bundles under `assets/`
(Vite puts a hash of the content in every name there), the files of `frontend/public/`,
and a brotli (`.br`) and gzip (`.gz`) copy of each text file (`scripts/precompress.js`).

- `/assets/<file>`: a bundle, cached by browsers for a year (`immutable`): a new build
  has new names. A missing one is a 404, never the page.
- A file at the top of the build (`/favicon.svg`) is itself, revalidated on every use.
- Every other path that is not the API, the admin, a websocket or Django's static
  files is `index.html` (`no-cache`: revalidated with its ETag on every use), so deep
  links such as `/pipelines/7/diff` open the app, which routes in the browser. A path
  that names an asset-like file that does not exist (`/logo.png`) is a 404 instead.
- WhiteNoise lists the build once and again whenever it changes on disk (a new build is
  served without a restart), and sends the compressed copy the client accepts best.
- Without a build, app paths answer 503 with a page saying how to make one.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any, Final
from wsgiref.headers import Headers

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.utils.html import escape
from whitenoise.base import WhiteNoise
from whitenoise.responders import NOT_MODIFIED_HEADERS, Response, StaticFile

IMMUTABLE: Final = "public, max-age=31536000, immutable"
REVALIDATE: Final = "no-cache"

# Names an app route never has: a missing file with one of these is a 404, not the page.
_FILE_NAME: Final = re.compile(
    r"\.(js|mjs|css|json|map|webmanifest|txt|xml|svg|png|jpe?g|gif|webp|avif|ico|woff2?|ttf|otf|wasm)$",
    re.IGNORECASE,
)
_ENCODINGS: Final = ("br", "gzip")  # the copies the build writes, best first
_SUFFIX: Final = {"br": ".br", "gzip": ".gz"}


def _accepted_encodings(header: str) -> dict[str, float]:
    """`Accept-Encoding` as coding -> weight; `*` stands for any coding not named."""
    weights: dict[str, float] = {}
    for item in header.split(","):
        coding, _, params = item.strip().partition(";")
        coding = coding.strip().lower()
        if not coding:
            continue
        weight = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                weight = float(match.group(1))
            except ValueError:
                weight = 0.0
        weights[coding] = weight
    wildcard = weights.pop("*", None)
    if wildcard is not None:
        for coding in _ENCODINGS:
            weights.setdefault(coding, wildcard)
    return weights


def _etag_matches(header: str, etag: str) -> bool:
    if header.strip() == "*":
        return True
    return any(tag.strip().removeprefix("W/") == etag for tag in header.split(","))


class _BuiltFile(StaticFile):
    """WhiteNoise's file, negotiated as HTTP says rather than by substring.

    WhiteNoise picks an encoding whose name appears in `Accept-Encoding` and gives all
    encodings one ETag. Here `br;q=0` refuses brotli, `*` accepts it, and each encoding
    has its own ETag (the content's hash with the encoding), so a cache never
    revalidates one encoding with another's tag and a rebuild with the same size and
    second still changes the tag.
    """

    def __init__(self, path: str, headers: list[tuple[str, str]], content_hash: str) -> None:
        encodings = {coding: path + _SUFFIX[coding] for coding in _ENCODINGS}
        super().__init__(path, headers, encodings=encodings)
        self.representations: dict[str | None, tuple[str, list[tuple[str, str]]]] = {}
        for _, file_path, file_headers in self.alternatives:
            named = Headers(list(file_headers))
            coding = named["Content-Encoding"]
            named["ETag"] = f'"{content_hash}-{coding}"' if coding else f'"{content_hash}"'
            self.representations[coding] = (file_path, named.items())

    def choose(self, accept_encoding: str) -> tuple[str, list[tuple[str, str]]]:
        accepted = _accepted_encodings(accept_encoding)
        for coding in _ENCODINGS:
            if coding in self.representations and accepted.get(coding, 0.0) > 0:
                return self.representations[coding]
        return self.representations[None]

    def get_response(self, method: str, request_headers: Mapping[str, str]) -> Response:
        path, headers = self.choose(request_headers.get("HTTP_ACCEPT_ENCODING", ""))
        etag = dict(headers)["ETag"]
        if _etag_matches(request_headers.get("HTTP_IF_NONE_MATCH", ""), etag):
            kept = [(name, value) for name, value in headers if name in NOT_MODIFIED_HEADERS]
            return Response(HTTPStatus.NOT_MODIFIED, kept, None)
        if method == "HEAD":
            return Response(HTTPStatus.OK, headers, None)
        return Response(HTTPStatus.OK, headers, open(path, "rb"))


class _Build(WhiteNoise):
    """The files of one build directory, keyed by URL path (`/assets/index-4f2a.js`)."""

    def __init__(self, root: Path) -> None:
        super().__init__(None, allow_all_origins=False, max_age=None)
        self.root = root
        for url, path in _listed(root):
            self.add_file_to_dictionary(url, str(path))

    def add_mime_headers(self, headers: Headers, path: str, url: str) -> None:
        # WhiteNoise's quoted `charset="utf-8"` is valid but unlike every other response.
        media_type = self.media_types.get_type(path)
        text = media_type.startswith("text/")
        headers["Content-Type"] = f"{media_type}; charset=utf-8" if text else media_type

    def add_cache_headers(self, headers: Headers, path: str, url: str) -> None:
        headers["Cache-Control"] = IMMUTABLE if url.startswith("/assets/") else REVALIDATE

    def get_static_file(self, path: str, url: str, stat_cache: Any = None) -> _BuiltFile:
        headers = Headers([])
        self.add_mime_headers(headers, path, url)
        self.add_cache_headers(headers, path, url)
        content_hash = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:24]
        return _BuiltFile(path, headers.items(), content_hash)

    def file(self, url: str) -> _BuiltFile | None:
        found = self.files.get(url)
        return found if isinstance(found, _BuiltFile) else None


def _listed(root: Path) -> Iterator[tuple[str, Path]]:
    """(URL path, file) of every file the build serves.

    Not: hidden files (`.built`), the compressed copies (served in place of their
    file), and anything a symlink leads to outside the build.
    """
    try:
        base = root.resolve(strict=True)
    except (OSError, RuntimeError):
        return
    for folder, folders, names in os.walk(base):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in names:
            path = Path(folder, name)
            if name.startswith(".") or path.suffix in (".br", ".gz"):
                continue
            try:
                resolved = path.resolve(strict=True)
            except (OSError, RuntimeError):  # a dangling link or a loop
                continue
            if resolved.is_relative_to(base) and resolved.is_file():
                yield "/" + path.relative_to(base).as_posix(), path


@dataclass(frozen=True)
class _Listing:
    build: _Build
    stamp: tuple[object, ...]


_listing: _Listing | None = None


def _stamp(root: Path) -> tuple[object, ...]:
    """What changes whenever a build is written: its page's and its bundles' folder's
    modification time and size (Vite rewrites both on every build)."""
    stamps: list[object] = [str(root)]
    for path in (root / "index.html", root / "assets", root):
        try:
            status = path.stat()
        except OSError:
            stamps.append(None)
        else:
            stamps.append((status.st_mtime_ns, status.st_size))
    return tuple(stamps)


def current_build() -> _Build:
    """The build in `FRONTEND_DIST_DIR`, listed again when it changed. Blocking."""
    global _listing
    root = Path(settings.FRONTEND_DIST_DIR)
    stamp = _stamp(root)
    listing = _listing
    if listing is None or listing.stamp != stamp:
        listing = _Listing(_Build(root), stamp)
        _listing = listing
    return listing.build


def _respond(request: HttpRequest, built: _BuiltFile) -> HttpResponse:
    answer = built.get_response(request.method or "GET", request.META)
    if answer.file is None:
        body = b""
    else:
        with answer.file:
            body = answer.file.read()
    response = HttpResponse(body, status=int(answer.status))
    del response["Content-Type"]
    for name, value in answer.headers:
        response[name] = value
    return response


def _not_found(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(
        f"Not found: {request.path}\n", status=404, content_type="text/plain; charset=utf-8"
    )
    response["Cache-Control"] = REVALIDATE
    return response


_NOT_BUILT = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>StreamGraph Studio is not built yet</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}}
code{{background:#f1f3f5;padding:.1rem .3rem;border-radius:3px}}</style></head>
<body>
<h1>The browser app has not been built</h1>
<p>This server serves the app from <code>{dist}</code>, and there is no
<code>index.html</code> there.</p>
<p>Build it: stop the server and run <code>make run</code> (it builds the app whenever its
sources change, then serves), or run <code>npm run build</code> and reload this page.</p>
<p>The API is up meanwhile: <a href="/api/docs/">/api/docs/</a>.</p>
</body>
</html>
"""


def _not_built() -> HttpResponse:
    dist = Path(settings.FRONTEND_DIST_DIR)
    try:
        shown = str(dist.resolve().relative_to(Path(settings.REPO_ROOT).resolve()))
    except ValueError:  # outside the repository: its own name is enough of a hint
        shown = dist.name
    response = HttpResponse(_NOT_BUILT.format(dist=escape(shown)), status=503)
    response["Cache-Control"] = "no-store"
    return response


def _method_not_allowed(request: HttpRequest) -> HttpResponse | None:
    if request.method in ("GET", "HEAD"):
        return None
    return HttpResponseNotAllowed(["GET", "HEAD"])


def _serve_asset(request: HttpRequest, path: str) -> HttpResponse:
    built = current_build().file(f"/assets/{path}")
    return _not_found(request) if built is None else _respond(request, built)


def _serve_app(request: HttpRequest, path: str) -> HttpResponse:
    build = current_build()
    if path and "/" not in path:
        top_level = build.file(f"/{path}")
        if top_level is not None:
            return _respond(request, top_level)
    if _FILE_NAME.search(path):
        return _not_found(request)
    index = build.file("/index.html")
    return _not_built() if index is None else _respond(request, index)


# Listing, hashing and reading files block: off the event loop that carries the sockets.
async def asset(request: HttpRequest, path: str) -> HttpResponse:
    """`/assets/<path>`: a hashed bundle of the build."""
    refused = _method_not_allowed(request)
    if refused is not None:
        return refused
    return await asyncio.to_thread(_serve_asset, request, path)


async def app(request: HttpRequest, path: str = "") -> HttpResponse:
    """Any app route: a top-level file of the build, or else `index.html`."""
    refused = _method_not_allowed(request)
    if refused is not None:
        return refused
    return await asyncio.to_thread(_serve_app, request, path)
