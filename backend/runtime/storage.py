"""Where a run's files live: its data location, and the file system layer over it.

A data location is a base URI the operator sets (`RUNTIME_DATA_URI`, or a cluster
profile's `dataUri`) with a folder per workspace below it, `<base>/workspaces/<id>`.
`file:` is a folder of this host, or a shared mount every host of a cluster sees at the
same path; any other scheme (`hdfs:`, `s3a:`, `abfs:`, `viewfs:` ...) is storage that
Spark's Hadoop file system layer reaches. Paths in documents stay relative to the location
on every scheme (`runtime.paths.path_problem`: never absolute, no `..`, no scheme), so a
run names nothing outside its workspace's folder; on `file:` symbolic links are followed
and refused when they leave it (`runtime.paths.resolve`). On other schemes the text is
what is checked: links a file system offers (HDFS symlinks, ViewFS mounts) are the
operator's configuration.

`LocalStorage` is the `file:` layer, the local calls sources and sinks make on every
host. The other schemes are reached only through Spark (`runtime.spark.hadoop`): Spark's
Python workers have no JVM to call, so the driver lists and commits through Hadoop's
`FileSystem`, and Spark's own Hadoop readers and output committer move the bytes on the
executors. `Storage` is what both offer the driver.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol

from runtime.paths import PathOutside, is_data_folder_root, list_files, path_problem, resolve

FILE = "file"
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(.*)", re.DOTALL)
_RESERVED = frozenset(",*?[]{}\\#")
"""Characters Hadoop reads as a glob, a list of paths or a URI's fragment: a base URI of
another scheme may not hold them (paths below it may; `hadoop_glob` escapes them)."""


class LocationError(ValueError):
    """A data location that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class DataLocation:
    """A folder that paths in documents are relative to: `scheme://authority/path`."""

    scheme: str
    """Lower-case: `file`, `hdfs`, `s3a`..."""
    authority: str
    """The host or bucket; empty for `file:` and for a scheme's default (`hdfs:///x`)."""
    path: str
    """Absolute, without `.`, `..`, empty segments or a trailing slash (but `/`)."""

    @property
    def uri(self) -> str:
        return f"{self.scheme}://{self.authority}{self.path}"

    @property
    def is_local(self) -> bool:
        """Whether this host reads and writes it with local calls (`file:`)."""
        return self.scheme == FILE

    @property
    def local_path(self) -> Path:
        if not self.is_local:
            raise ValueError(f"{self.uri} is not a folder of this host")
        return Path(self.path)

    def child(self, *segments: str) -> DataLocation:
        """The folder `segments` below this one (names the operator's code chose)."""
        return DataLocation(self.scheme, self.authority, _join(self.path, segments))

    def relative(self, path: str) -> str:
        """A document's path as it is below the location: `a/./b/` is `a/b`, `.` is ``;
        `PathOutside` when its text leaves the location."""
        problem = path_problem(path)
        if problem is not None:
            raise PathOutside(f"{path!r}: {problem}")
        return "/".join(part for part in path.split("/") if part not in ("", "."))

    def uri_of(self, path: str) -> str:
        """The URI a document's path names (checked as `relative`)."""
        relative = self.relative(path)
        if not relative:
            return self.uri
        return f"{self.scheme}://{self.authority}{self.path.rstrip('/')}/{relative}"

    def __str__(self) -> str:
        return self.uri


def data_location(text: str) -> DataLocation:
    """The location `text` names: an absolute folder of this host or a URI
    (`file:///srv/x`, `hdfs://namenode:8020/studio`, `s3a://bucket/studio`).
    `LocationError` says what is wrong with it."""
    if not text or text != text.strip():
        raise LocationError(f"{text!r}: give an absolute folder or a URI, without spaces around")
    if any(ord(ch) < 32 for ch in text):
        raise LocationError(f"{text!r} contains a control character")
    match = _SCHEME.fullmatch(text)
    if match is None:
        scheme, rest = FILE, text
    else:
        scheme, rest = match.group(1).lower(), match.group(2)
    authority = ""
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path if authority or slash else ""
        if authority and not rest:
            rest = "/"  # s3a://bucket: the bucket's root
    if not rest.startswith("/"):
        raise LocationError(
            f"{text!r}: give an absolute folder (/srv/data) or a URI with an absolute path "
            "(file:///srv/data, hdfs://namenode:8020/studio, s3a://bucket/studio)"
        )
    if scheme == FILE:
        if authority not in ("", "localhost"):
            raise LocationError(
                f"{text!r}: a file: location is a folder of this host, or a shared mount "
                "every host sees at the same path; it names no other host"
            )
        authority = ""
    else:
        reserved = sorted(set(text) & _RESERVED)
        if reserved:
            raise LocationError(
                f"{text!r}: Hadoop reads {' '.join(reserved)} in a path as a pattern, a list "
                "or a fragment; a data location may not contain them"
            )
    if ".." in rest.split("/"):
        raise LocationError(f"{text!r}: a data location may not contain '..'")
    return DataLocation(scheme, authority, _join("/", rest.split("/")))


def _join(path: str, segments: tuple[str, ...] | list[str]) -> str:
    parts = [p for p in (*path.split("/"), *segments) if p not in ("", ".")]
    if any(p == ".." or "/" in p for p in parts):
        raise LocationError(f"{segments!r} must name a folder below {path!r}")
    return "/" + "/".join(parts)


def hadoop_glob(text: str) -> str:
    """`text` as a Hadoop glob that matches exactly it: Hadoop reads input paths as globs
    (and `,` as a list of them), so its special characters are escaped."""
    return "".join("\\" + ch if ch in ",*?[]{}\\" else ch for ch in text)


# --- the file system layer -----------------------------------------------------------------


class FileEntry(NamedTuple):
    """A file a source reads."""

    path: str
    """Relative to the location."""
    uri: str
    size: int


class Storage(Protocol):
    """What the driver does with a location's files: list what sources read, and commit
    what sinks wrote. Paths are relative to the location."""

    location: DataLocation

    def list_files(self, path: str) -> list[FileEntry]:
        """The file `path` names, or a folder's visible regular files in name order;
        `PathOutside` / `PathMissing` (`runtime.paths`)."""

    def sink_folder(self, path: str) -> str:
        """The folder a sink's `path` names, relative to the location; `PathOutside` when
        it leaves it or is the location itself."""

    def names(self, folder: str) -> list[str]:
        """The names in a folder (none if it does not exist)."""

    def replace(self, source: str, target: str) -> None:
        """Move `source` to `target`, replacing what was there."""

    def delete(self, path: str) -> None:
        """Remove a file, if there is one."""

    def remove_tree(self, path: str) -> None:
        """Remove a folder and what it holds, if it exists."""


class LocalStorage:
    """A `file:` location, with local calls (symbolic links followed inside it)."""

    def __init__(self, location: DataLocation) -> None:
        self.location = location
        self.root = location.local_path.resolve()

    def list_files(self, path: str) -> list[FileEntry]:
        return [
            FileEntry(file.relative_to(self.root).as_posix(), f"file://{file}", file.stat().st_size)
            for file in list_files(str(self.root), path)
        ]

    def sink_folder(self, path: str) -> str:
        folder = resolve(str(self.root), path, must_exist=False, writes=True)
        return folder.relative_to(self.root).as_posix()

    def names(self, folder: str) -> list[str]:
        try:
            return sorted(os.listdir(self.root / folder))
        except FileNotFoundError:
            return []

    def replace(self, source: str, target: str) -> None:
        os.replace(self.root / source, self.root / target)

    def delete(self, path: str) -> None:
        (self.root / path).unlink(missing_ok=True)

    def remove_tree(self, path: str) -> None:
        shutil.rmtree(self.root / path, ignore_errors=True)


def check_sink_path(location: DataLocation, path: str) -> str:
    """A sink's folder as its text names it below `location` (not the location itself)."""
    folder = location.relative(path)
    if is_data_folder_root(path) or not folder:
        raise PathOutside(f"{path!r} is the data folder itself; a sink needs a folder of its own")
    return folder


__all__ = [
    "DataLocation",
    "FileEntry",
    "LocalStorage",
    "LocationError",
    "Storage",
    "check_sink_path",
    "data_location",
    "hadoop_glob",
]
