"""Paths in documents: relative to the run's data folder, and never leaving it.

A source or sink names a file or folder by a relative path (`ParamType.PATH`).
`path_problem` is what the text alone shows (absolute, `..`, a URI's scheme, empty), which
the editor reports on every edit (`runtime.runnability`) and which keeps a path inside its
workspace's folder on every storage (`runtime.storage`); `resolve` is the same check on the
disk of a `file:` location, symbolic links followed, where a run reads and writes
(`runtime.planner`, the operators). A folder means its regular files not starting with `.`
or `_`, in name order.
"""

from __future__ import annotations

import re
from pathlib import Path

_DRIVE = re.compile(r"^[A-Za-z]:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
"""A colon before the first slash: Hadoop's `Path`, like a URI, reads a scheme there."""


class PathError(ValueError):
    """A path that is missing or leaves the data folder."""


class PathOutside(PathError):
    """A path that leads outside the data folder (through a symbolic link, once resolved),
    or to the folder itself where a folder of its own is needed."""


class PathMissing(PathError):
    """A path that leads nowhere in the data folder."""


def path_problem(path: str) -> str | None:
    """Why `path` may not name something in the data folder, or None."""
    if not path.strip():
        return "the path is empty"
    if "\x00" in path:
        return "the path contains a NUL character"
    if path.startswith(("/", "\\")) or _DRIVE.match(path):
        return "the path must be relative to the data folder, not absolute"
    if ".." in re.split(r"[/\\]+", path):
        return "the path must stay inside the data folder ('..' is not allowed)"
    if _SCHEME.match(path):
        scheme = path.split(":", 1)[0]
        return (
            f"the path must be relative to the data folder, not a URI ('{scheme}:'); "
            "a colon may not come before the first '/'"
        )
    return None


def is_data_folder_root(path: str) -> bool:
    """Whether `path` names the data folder itself (`.`, `./`, `./.`)."""
    return all(part in ("", ".") for part in re.split(r"[/\\]+", path))


def resolve(data_dir: str, path: str, *, must_exist: bool = True, writes: bool = False) -> Path:
    """The file or folder `path` names inside `data_dir` (symbolic links followed); raises
    `PathOutside` if it leaves the folder (or, for a sink, `writes`, is the folder itself)
    and `PathMissing` if it must exist and does not."""
    problem = path_problem(path)
    if problem is not None:
        raise PathOutside(f"{path!r}: {problem}")
    root = Path(data_dir).resolve()
    target = (root / path).resolve()
    if target != root and root not in target.parents:
        raise PathOutside(f"{path!r} leads outside the data folder")
    if writes and target == root:
        raise PathOutside(f"{path!r} is the data folder itself; a sink needs a folder of its own")
    if must_exist and not target.exists():
        raise PathMissing(f"{path!r} does not exist in the data folder")
    return target


def list_files(data_dir: str, path: str) -> list[Path]:
    """The files a source path reads: the file, or a folder's visible files by name."""
    target = resolve(data_dir, path)
    if target.is_file():
        return [target]
    root = Path(data_dir).resolve()
    files = []
    for entry in sorted(target.iterdir()):
        if entry.name.startswith((".", "_")) or not entry.is_file():
            continue
        real = entry.resolve()
        if root in real.parents:
            files.append(real)
    return files
