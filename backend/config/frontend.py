"""The browser app, served by the same server as `/api/` and `/ws/`.

`npm run build` (which `make run` runs when the frontend's sources changed) writes the
app to `FRONTEND_DIST_DIR` (`frontend/dist`): `index.html`, the bundles under `assets/`
(Vite puts a hash of the content in every name there) and the files of `frontend/public/`.

- `/assets/<file>`: a bundle, cached by browsers for a year (`immutable`): a new build
  has new names. A missing one is a 404, never the page.
- A file at the top of the build (`/favicon.svg`) is itself, revalidated on every use.
- Every other path that is not the API, the admin, a websocket or Django's static
  files is `index.html` (`no-cache`: revalidated with its ETag on every use), so deep
  links such as `/pipelines/7/diff` open the app, which routes in the browser. A path
  that names an asset-like file that does not exist (`/logo.png`) is a 404 instead.
- Text is sent brotli- or gzip-compressed to a client that accepts it. Each file is read,
  hashed and compressed once per process, in a worker thread (never on the event loop
  that carries the co-editing websockets), and kept until the file changes on disk.
- Without a build, app paths answer 503 with a page saying how to make one.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

import brotli
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.utils.html import escape

IMMUTABLE: Final = "public, max-age=31536000, immutable"
REVALIDATE: Final = "no-cache"

# Explicit, so the answer does not depend on the machine's MIME database.
_CONTENT_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".ico": "image/x-icon",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".wasm": "application/wasm",
}
_COMPRESSIBLE: Final = re.compile(
    r"^(text/|application/(json|manifest\+json|xml|wasm)|image/(svg\+xml|x-icon)|font/(ttf|otf))"
)
# Names an app route never has: a missing file with one of these is a 404, not the page.
_FILE_SUFFIXES: Final = frozenset(_CONTENT_TYPES) - {".html"}
_MIN_COMPRESS_BYTES: Final = 512
# Brotli quality 6: on a 1.6 MB bundle about 100 ms and within 15 % of the best
# quality (11), which would take seconds on first request.
_BROTLI_QUALITY: Final = 6
_GZIP_LEVEL: Final = 9


@dataclass(frozen=True)
class Representation:
    body: bytes
    etag: str
    encoding: str | None  # the Content-Encoding; None for the file as it is


@dataclass(frozen=True)
class BuiltFile:
    """One file of the build, as sent: its type and every encoding worth sending."""

    content_type: str
    identity: Representation
    encoded: tuple[Representation, ...]  # brotli first, then gzip; only smaller ones
    stamp: tuple[int, int]  # (mtime_ns, size) when it was read

    def representation(self, accept_encoding: str) -> Representation:
        accepted = _accepted_encodings(accept_encoding)
        best = max(
            self.encoded,
            key=lambda r: accepted.get(r.encoding or "", 0.0),
            default=self.identity,
        )
        return best if accepted.get(best.encoding or "", 0.0) > 0 else self.identity


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
        for coding in ("br", "gzip"):
            weights.setdefault(coding, wildcard)
    return weights


def _content_type(path: Path) -> str:
    known = _CONTENT_TYPES.get(path.suffix.lower())
    if known is not None:
        return known
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"


def _read(path: Path, stamp: tuple[int, int]) -> BuiltFile:
    """Read, hash and compress one file (blocking: call it off the event loop)."""
    data = path.read_bytes()
    content_type = _content_type(path)
    tag = hashlib.sha256(data).hexdigest()[:24]
    identity = Representation(body=data, etag=f'"{tag}"', encoding=None)
    encoded: list[Representation] = []
    if len(data) >= _MIN_COMPRESS_BYTES and _COMPRESSIBLE.match(content_type):
        for encoding, body in (
            ("br", brotli.compress(data, quality=_BROTLI_QUALITY)),
            ("gzip", gzip.compress(data, compresslevel=_GZIP_LEVEL, mtime=0)),
        ):
            if len(body) < len(data):
                encoded.append(Representation(body, f'"{tag}-{encoding}"', encoding))
    return BuiltFile(content_type, identity, tuple(encoded), stamp)


# Keyed by resolved path; an entry is used only while the file's mtime and size match.
# The build is a few files of bounded size, so the cache needs no eviction.
_cache: dict[Path, BuiltFile] = {}


def built_file(root: Path, relative: str) -> BuiltFile | None:
    """The file at `relative` (a URL path) inside the build, or None.

    None for anything outside the build (`..`, absolute paths, symlinks leading
    out), hidden files (`.built`) and directories. Blocking.
    """
    if relative.startswith("/") or "\0" in relative or "\\" in relative:
        return None
    parts = PurePosixPath(relative).parts
    if not parts or any(part in (".", "..") or part.startswith(".") for part in parts):
        return None
    try:
        base = root.resolve(strict=True)
        path = base.joinpath(*parts).resolve(strict=True)
        if not path.is_relative_to(base) or not path.is_file():
            return None
        status = path.stat()
    except (OSError, RuntimeError):  # missing, unreadable, or a symlink loop
        return None
    stamp = (status.st_mtime_ns, status.st_size)
    cached = _cache.get(path)
    if cached is not None and cached.stamp == stamp:
        return cached
    try:
        built = _read(path, stamp)
    except OSError:
        return None
    _cache[path] = built
    return built


def _dist_dir() -> Path:
    return Path(settings.FRONTEND_DIST_DIR)


def _etag_matches(header: str, etag: str) -> bool:
    if header.strip() == "*":
        return True
    return any(tag.strip().removeprefix("W/") == etag for tag in header.split(","))


def _respond(request: HttpRequest, built: BuiltFile, cache_control: str) -> HttpResponse:
    chosen = built.representation(request.headers.get("Accept-Encoding", ""))
    if _etag_matches(request.headers.get("If-None-Match", ""), chosen.etag):
        response = HttpResponse(status=304)
        del response["Content-Type"]
    else:
        body = b"" if request.method == "HEAD" else chosen.body
        response = HttpResponse(body, content_type=built.content_type)
        response["Content-Length"] = str(len(chosen.body))
        if chosen.encoding is not None:
            response["Content-Encoding"] = chosen.encoding
    response["ETag"] = chosen.etag
    response["Cache-Control"] = cache_control
    if built.encoded:
        response["Vary"] = "Accept-Encoding"
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
    dist = _dist_dir()
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


async def asset(request: HttpRequest, path: str) -> HttpResponse:
    """`/assets/<path>`: a hashed bundle of the build."""
    refused = _method_not_allowed(request)
    if refused is not None:
        return refused
    built = await asyncio.to_thread(built_file, _dist_dir(), f"assets/{path}")
    if built is None:
        return _not_found(request)
    return _respond(request, built, IMMUTABLE)


async def app(request: HttpRequest, path: str = "") -> HttpResponse:
    """Any app route: a top-level file of the build, or else `index.html`."""
    refused = _method_not_allowed(request)
    if refused is not None:
        return refused
    dist = _dist_dir()
    if path and "/" not in path:
        top_level = await asyncio.to_thread(built_file, dist, path)
        if top_level is not None:
            return _respond(request, top_level, REVALIDATE)
    if PurePosixPath(path).suffix.lower() in _FILE_SUFFIXES:
        return _not_found(request)
    index = await asyncio.to_thread(built_file, dist, "index.html")
    if index is None:
        return _not_built()
    return _respond(request, index, REVALIDATE)
