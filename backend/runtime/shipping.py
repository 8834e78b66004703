"""The code Spark ships to its executors: the `runtime` and `compiler` packages as one zip.

Executors on other hosts share nothing with the driver but the cluster, so they get the
code the Spark way (`SparkContext.addPyFile`): a zip of the packages' `.py` files, built
from this process's own source, named by the hash of its content and kept in a cache
folder, so every process of one code version ships the same file and a new version a new
one. The zip is deterministic: entries sorted by name, fixed times and modes, so the same
sources always give the same bytes (and the same name).

Pure apart from the files it reads and writes: no Spark, no Django.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
import zipfile
from pathlib import Path

PACKAGES = ("compiler", "runtime")
"""What executors import: the runtime, and the compiler it uses (key groups, ids)."""
SOURCE_ROOT = Path(__file__).resolve().parents[1]
"""The folder that holds both packages (this process's own code)."""
PREFIX = "streamgraph-code-"
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip can hold: no build time in the bytes."""
_MODE = 0o100644 << 16
"""A regular file, rw-r--r--, whoever built it."""


def code_zip_bytes(root: Path = SOURCE_ROOT) -> bytes:
    """The zip of `PACKAGES` under `root`: their `.py` files only, sorted, with fixed times."""
    sources = sorted(
        (path.relative_to(root).as_posix(), path)
        for package in PACKAGES
        for path in (root / package).rglob("*.py")
        if "__pycache__" not in path.parts
    )
    if not any(name == f"{package}/__init__.py" for package in PACKAGES for name, _ in sources):
        raise FileNotFoundError(f"no {' or '.join(PACKAGES)} package under {root}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, path in sources:
            entry = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            entry.external_attr = _MODE
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, path.read_bytes(), compresslevel=6)
    return buffer.getvalue()


def code_zip(cache_dir: Path, root: Path = SOURCE_ROOT) -> Path:
    """The zip of this code version in `cache_dir`, written there if it is not yet.

    Its name holds the hash of its bytes, so a file of that name is this version's: it is
    written once (to a temporary name, then renamed, so concurrent workers never ship half
    a file) and reused by every later session."""
    content = code_zip_bytes(root)
    digest = hashlib.sha256(content).hexdigest()[:20]
    path = cache_dir / f"{PREFIX}{digest}.zip"
    if path.is_file() and path.stat().st_size == len(content):
        return path
    cache_dir.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=cache_dir, prefix=".writing-", suffix=".zip")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(content)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
