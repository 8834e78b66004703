"""How sources split their records over subtasks."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.operators import sources
from runtime.operators.sources import number_splits, text_lines
from runtime.paths import PathError, list_files, resolve


@pytest.mark.parametrize(
    ("first", "last", "parallelism", "expected"),
    [
        (1, 10, 1, [range(1, 11)]),
        (1, 10, 3, [range(1, 5), range(5, 8), range(8, 11)]),  # the first n % p one longer
        (0, 1, 4, [range(0, 1), range(1, 2), range(2, 2), range(2, 2)]),
        (5, 4, 2, [range(0), range(0)]),
        (-3, 3, 2, [range(-3, 1), range(1, 4)]),
    ],
)
def test_number_splits_are_flinks_number_sequence_splits(
    first: int, last: int, parallelism: int, expected: list[range]
):
    assert number_splits(first, last, parallelism) == expected


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.text(alphabet="ab \r\tü😀", max_size=9), max_size=12),
    ending=st.sampled_from(["", "\n", "\r\n"]),
    parallelism=st.integers(1, 6),
    block=st.integers(1, 9),
)
def test_text_byte_ranges_read_every_line_exactly_once(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    ending: str,
    parallelism: int,
    block: int,
):
    folder = tmp_path_factory.mktemp("text")
    text = "\n".join(lines) + (ending if lines else "")
    (folder / "f.txt").write_bytes(text.encode())
    expected = text.split("\n")
    if text.endswith("\n") or not text:
        expected = expected[:-1]
    expected = [line[:-1] if line.endswith("\r") else line for line in expected]
    original, sources.BLOCK = sources.BLOCK, block
    try:
        read = [
            line
            for subtask in range(parallelism)
            for line in text_lines([folder / "f.txt"], subtask, parallelism)
        ]
    finally:
        sources.BLOCK = original
    assert read == expected


def test_folders_list_their_visible_files_in_name_order(tmp_path: Path):
    for name in ("b.txt", "a.txt", ".hidden", "_meta", "c.txt"):
        (tmp_path / name).write_text(name)
    (tmp_path / "sub").mkdir()
    assert [p.name for p in list_files(str(tmp_path), ".")] == ["a.txt", "b.txt", "c.txt"]


@pytest.mark.parametrize("path", ["/etc/passwd", "../x", "a/../../x", "", "C:\\x"])
def test_paths_outside_the_data_folder_are_refused(tmp_path: Path, path: str):
    with pytest.raises(PathError):
        resolve(str(tmp_path), path, must_exist=False)


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.text(alphabet="ab \rü😀", max_size=9), max_size=12),
    ending=st.sampled_from(["", "\n", "\r\n"]),
    parallelism=st.integers(1, 6),
    cuts=st.lists(st.integers(0, 200), max_size=4),
)
def test_lines_read_in_any_pieces_reach_the_subtasks_that_read_them_from_disk(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    ending: str,
    parallelism: int,
    cuts: list[int],
):
    text = ("\n".join(lines) + (ending if lines else "")).encode()
    if not text:
        return
    file = tmp_path_factory.mktemp("text") / "f.txt"
    file.write_bytes(text)
    # What Hadoop's reader gives: each line with its offset, its `\r` kept, in pieces.
    offsets = [0] + [i + 1 for i, byte in enumerate(text) if byte == 10 and i + 1 < len(text)]
    read = [(o, text[o:].split(b"\n", 1)[0].decode()) for o in offsets]
    pieces = [read[a:b] for a, b in itertools.pairwise([0, *sorted(cuts), len(read)])]
    got: dict[int, list[str]] = {s: [] for s in range(parallelism)}
    for piece in pieces:
        for subtask, _, batch in sources.split_lines(piece, len(text), parallelism):
            got[subtask].extend(batch)
    for subtask in range(parallelism):
        assert got[subtask] == list(text_lines([file], subtask, parallelism))
    whole = {s: [] for s in range(parallelism)}
    for subtask, _, batch in sources.split_text(text, parallelism):
        whole[subtask].extend(batch)
    assert whole == got
