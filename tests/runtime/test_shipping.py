"""The zip of the code Spark ships: what is in it, the same bytes every time, cached once."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from runtime.shipping import PREFIX, SOURCE_ROOT, code_zip, code_zip_bytes


def make_tree(root: Path) -> None:
    for package in ("runtime", "compiler"):
        (root / package / "sub" / "__pycache__").mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
        (root / package / "sub" / "b.py").write_text("B = 1\n")
        (root / package / "a.py").write_text("A = 1\n")
        (root / package / "sub" / "__pycache__" / "b.cpython-311.pyc").write_bytes(b"\0")
        (root / package / "notes.md").write_text("not code")
    (root / "other").mkdir()
    (root / "other" / "__init__.py").write_text("")


def test_the_zip_holds_the_two_packages_python_files_in_order(tmp_path: Path) -> None:
    make_tree(tmp_path)
    with zipfile.ZipFile(code_zip(tmp_path / "cache", tmp_path)) as archive:
        assert archive.namelist() == [
            "compiler/__init__.py",
            "compiler/a.py",
            "compiler/sub/b.py",
            "runtime/__init__.py",
            "runtime/a.py",
            "runtime/sub/b.py",
        ]
        assert {entry.date_time for entry in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert archive.read("runtime/sub/b.py") == b"B = 1\n"


def test_the_same_code_gives_the_same_file_and_other_code_another(tmp_path: Path) -> None:
    make_tree(tmp_path)
    cache = tmp_path / "cache"
    first = code_zip(cache, tmp_path)
    written = first.stat().st_mtime_ns
    (tmp_path / "runtime" / "a.py").touch()  # a newer file time changes nothing
    again = code_zip(cache, tmp_path)
    assert again == first and again.stat().st_mtime_ns == written
    assert first.name.startswith(PREFIX) and first.suffix == ".zip"

    (tmp_path / "compiler" / "a.py").write_text("A = 2\n")
    changed = code_zip(cache, tmp_path)
    assert changed != first
    assert sorted(p.name for p in cache.iterdir()) == sorted([first.name, changed.name])


def test_the_real_code_is_all_there() -> None:
    content = code_zip_bytes()
    assert content == code_zip_bytes()
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        names = set(archive.namelist())
    expected = {
        path.relative_to(SOURCE_ROOT).as_posix()
        for package in ("runtime", "compiler")
        for path in (SOURCE_ROOT / package).rglob("*.py")
    }
    assert names == expected
    assert {"runtime/spark/hooks.py", "compiler/keygroups.py"} <= names
