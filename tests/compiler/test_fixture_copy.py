"""The fixtures under `data/` are a byte-exact copy of the shared oracle fixtures.

The shared folder sits next to the repository in the development checkout; in
a bare clone it is absent and there is nothing to compare with.
"""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(__file__).resolve().parents[2].parent / "shared"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.parametrize("folder", ["fixtures", "perf", "savepoints"])
def test_copy_is_identical_to_the_shared_folder(folder: str) -> None:
    original = SHARED / folder
    if not original.is_dir():
        pytest.skip(f"no shared '{folder}' folder next to the repository to compare the copy with")
    copy = _files(DATA / folder)
    shared = _files(original)
    assert sorted(copy) == sorted(shared)
    different = [name for name in shared if copy[name] != shared[name]]
    assert different == []
