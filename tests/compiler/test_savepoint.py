"""The savepoint reader: real Flink 2.3 savepoints, every format version on synthetic files,
and bad files, which raise nothing but `SavepointError`."""

from __future__ import annotations

import contextlib
import json
import struct
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.state.savepoint import (
    MAX_ENTRIES,
    MAX_OPERATOR_STATES,
    SUPPORTED_VERSIONS,
    OperatorState,
    Savepoint,
    SavepointError,
    StateKind,
    _Reader,
    read_savepoint,
)
from tests.compiler.savepoint_writer import CHECKPOINT_PROPERTIES, MetadataWriter, Out, Subtask

DATA = Path(__file__).resolve().parent / "data" / "savepoints"
SAVEPOINTS = sorted(p.name.removesuffix(".v1.savepoint") for p in DATA.glob("*.v1.savepoint"))
FILES = {name: (DATA / f"{name}.v1.savepoint").read_bytes() for name in SAVEPOINTS}
SUM_ID = "c27dcf7b54ef6bfd6cff02ca8870b681"


def _expected(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((DATA / f"{name}.v1.expected.json").read_text("utf-8"))
    return result


def _by_id(operators: tuple[OperatorState, ...]) -> dict[str, OperatorState]:
    return {o.hex_id: o for o in operators}


@pytest.mark.parametrize("name", SAVEPOINTS)
def test_a_real_savepoint_has_every_operator_of_the_job_that_wrote_it(name: str) -> None:
    savepoint = read_savepoint(FILES[name])
    expected = _expected(name)
    document = json.loads((DATA / f"{name}.v1.streamgraph.json").read_text("utf-8"))
    names = {expected["hashes"][str(n["id"])]: n["name"] for n in document["nodes"]}
    uids = {expected["hashes"][str(n["id"])]: n["uid"] for n in document["nodes"]}
    assert savepoint.version == 6
    assert savepoint.size == len(FILES[name])
    operators = _by_id(savepoint.operators)
    assert sorted(operators) == sorted(names)
    for vertex in expected["vertices"]:
        for pair in vertex["operatorIds"]:
            state = operators[pair["generated"]]
            assert state.parallelism == vertex["parallelism"]
            assert state.name == names[pair["generated"]]
            assert state.uid == uids[pair["generated"]]
    assert {o.max_parallelism for o in savepoint.operators} == {128 if name == "counting" else 4}


def test_the_counting_savepoint_holds_the_sums_keys_and_the_sources_splits() -> None:
    savepoint = read_savepoint(FILES["counting"])
    assert savepoint.checkpoint_id == 1
    assert savepoint.master_states == ()
    # The order of the file is the order Flink checks them in.
    assert [o.name for o in savepoint.operators][:2] == ["Sum", "Source: Numbers"]
    sum_state, source = savepoint.operators[0], savepoint.operators[1]
    assert sum_state.hex_id == SUM_ID
    assert sum_state.kinds == (StateKind.KEYED_MANAGED,)
    assert sum_state.is_keyed and sum_state.has_state and sum_state.state_bytes > 0
    assert source.kinds == (StateKind.OPERATOR_LIST, StateKind.COORDINATOR)
    assert source.has_state and not source.is_keyed
    stateless = [o for o in savepoint.operators[2:]]
    assert all(not o.has_state and o.sizes == () and o.subtasks == 2 for o in stateless)


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_supported_version_reads(version: int) -> None:
    data = (
        MetadataWriter(version=version, checkpoint_id=42)
        .master("hook")
        .operator(SUM_ID, name="Sum", uid="sum", subtasks=[Subtask(0, keyed=10), Subtask(1)])
        .build()
    )
    savepoint = read_savepoint(data)
    assert (savepoint.version, savepoint.checkpoint_id, savepoint.master_states) == (
        version,
        42,
        ("hook",),
    )
    (state,) = savepoint.operators
    assert state.hex_id == SUM_ID
    assert (state.name, state.uid) == (("Sum", "sum") if version >= 5 else (None, None))
    assert state.sizes[0].kind is StateKind.KEYED_MANAGED and state.sizes[0].bytes == 10


def test_every_kind_of_state_is_told_apart_with_its_size() -> None:
    subtasks = [
        Subtask(0, keyed=8, keyed_raw=4, operator_modes=(0, 1, 2), operator_bytes=6),
        Subtask(1, incremental=100, operator_raw=3, input_channels=(5,), output_channels=(7,)),
        Subtask(2, changelog=20, merged_input=9),
        Subtask(3, finished=True),
    ]
    data = (
        MetadataWriter(version=6)
        .operator(SUM_ID, parallelism=4, coordinator=11, subtasks=subtasks)
        .build()
    )
    (state,) = read_savepoint(data).operators
    assert {s.kind: s.bytes for s in state.sizes} == {
        StateKind.KEYED_MANAGED: 128,
        StateKind.KEYED_RAW: 4,
        StateKind.OPERATOR_LIST: 6,
        StateKind.OPERATOR_UNION: 0,
        StateKind.OPERATOR_BROADCAST: 0,
        StateKind.OPERATOR_RAW: 3,
        StateKind.COORDINATOR: 11,
        StateKind.INPUT_CHANNEL: 14,
        StateKind.OUTPUT_CHANNEL: 7,
    }
    assert list(state.kinds) == sorted(state.kinds, key=list(StateKind).index)
    assert (state.subtasks, state.finished_subtasks) == (4, 1)


def test_channel_state_of_older_versions_and_reference_ids_of_version_7() -> None:
    for version in (3, 7):
        subtask = Subtask(0, input_channels=(5, 6), ref_checkpoint=3)
        data = MetadataWriter(version=version).operator(SUM_ID, subtasks=[subtask]).build()
        (state,) = read_savepoint(data).operators
        assert state.kinds == (StateKind.INPUT_CHANNEL,) and state.state_bytes == 11


def test_empty_and_finished_state_is_no_state() -> None:
    data = (
        MetadataWriter()
        .operator(SUM_ID, subtasks=[Subtask(0, empty_managed_flag=True), Subtask(1)])
        .operator("00" * 16, fully_finished=True)
        .operator("01" * 16, subtasks=[Subtask(0, finished=True)])
        .operator("02" * 16, coordinator=0, subtasks=[])
        .build()
    )
    empty, fully, finished, coordinator = read_savepoint(data).operators
    assert not empty.has_state and empty.subtasks == 2
    assert fully.fully_finished and not fully.has_state and fully.subtasks == 0
    assert not finished.has_state and finished.finished_subtasks == 1
    assert coordinator.has_state, "a coordinator's state counts, even of 0 bytes"


def test_java_modified_utf8_names() -> None:
    # NUL as C0 80, and the emoji as its two UTF-16 surrogates, each encoded alone.
    out = Out().i32(0x4960672D).i32(6).i64(1).i32(0).i32(1)
    surrogates = "\ud83d\ude00".encode("utf-8", "surrogatepass")
    encoded = "Σ".encode() + b"\xc0\x80" + surrogates
    out.raw(len(encoded).to_bytes(2, "big") + encoded).utf("")
    out.raw(bytes(16)).i32(1).i32(1).u8(0).i32(0).raw(CHECKPOINT_PROPERTIES)
    (state,) = read_savepoint(out.bytes()).operators
    assert state.name == "Σ\x00😀"


# -- bad files ----------------------------------------------------------------------------


def _error(data: bytes) -> SavepointError:
    with pytest.raises(SavepointError) as caught:
        read_savepoint(data)
    return caught.value


def test_not_a_savepoint() -> None:
    error = _error(b'{"format": "streamgraph/v1"}')
    assert error.offset == 0
    assert "0x4960672d" in str(error) and "not a savepoint" in str(error)
    assert "byte 0" in str(_error(b""))


@pytest.mark.parametrize(("version", "words"), [(2, "Flink 1.10 or older"), (8, "found 8")])
def test_an_unknown_version_says_which_versions_are_known(version: int, words: str) -> None:
    error = _error(Out().i32(0x4960672D).i32(version).i64(1).bytes())
    assert error.offset == 4
    assert "3, 4, 5, 6, 7" in str(error) and words in str(error)


def test_a_truncated_file_says_where_it_ends() -> None:
    error = _error(FILES["counting"][:22])
    assert str(error) == (
        "byte 20: expected 4 bytes (the number of operator states), found the file ends after 2"
    )
    # Cut inside a byte stream: its length no longer fits.
    error = _error(FILES["counting"][:1000])
    assert error.offset < 1000 and "fits in the 364 bytes left" in str(error)


def test_a_huge_count_is_refused_before_anything_is_allocated() -> None:
    for count_at in ("operators", "subtasks", "offsets"):
        out = Out().i32(0x4960672D).i32(3).i64(1).i32(0)
        if count_at == "operators":
            out.i32(0x7FFFFFFF)
        elif count_at == "subtasks":
            out.i32(1).raw(bytes(16)).i32(1).i32(1).u8(0).i32(0x7FFFFFFF)
        else:
            out.i32(1).raw(bytes(16)).i32(1).i32(1).u8(0).i32(1).i32(0)
            out.i32(0).i32(0).u8(7).i32(0).i32(0x7FFFFFFF)
        start = time.perf_counter()
        error = _error(out.bytes())
        assert time.perf_counter() - start < 0.5
        assert "fits in the" in str(error) and "2147483647" in str(error)


def test_parallelism_and_subtask_indices_are_held_to_flinks_bounds() -> None:
    # Flink's OperatorState refuses a parallelism above the max parallelism, and a subtask
    # index the parallelism does not have.
    above = MetadataWriter().operator(SUM_ID, parallelism=3, max_parallelism=2).build()
    error = _error(above)
    assert "a parallelism from 0 to the operator's max parallelism 2, found 3" in str(error)
    negative = MetadataWriter().operator(SUM_ID, parallelism=-1, subtasks=[]).build()
    assert "found -1" in str(_error(negative))

    outside = MetadataWriter().operator(SUM_ID, parallelism=2, subtasks=[Subtask(index=2)])
    assert "a subtask index below the parallelism 2, found 2" in str(_error(outside.build()))
    finished = MetadataWriter().operator(
        SUM_ID, parallelism=2, subtasks=[Subtask(index=2, finished=True)]
    )
    assert "a subtask index below the parallelism 2, found -3" in str(_error(finished.build()))
    within = MetadataWriter().operator(
        SUM_ID, parallelism=2, subtasks=[Subtask(index=1), Subtask(index=0, finished=True)]
    )
    assert read_savepoint(within.build()).operators[0].finished_subtasks == 1


def test_nesting_is_bounded() -> None:
    # Key groups over key groups over ...: a stream handle nested far deeper than Flink does.
    out = Out().i32(0x4960672D).i32(3).i64(1).i32(0).i32(1).raw(bytes(16)).i32(1).i32(1)
    out.raw(b"\x03" + bytes(8)).raw((b"\x03" + bytes(8)) * 10_000).u8(0)
    error = _error(out.bytes())
    assert "nested at most" in str(error)


def test_wrong_handle_types_and_trailing_bytes() -> None:
    good = MetadataWriter(version=3).operator(SUM_ID, subtasks=[Subtask(0, keyed=1)]).build()
    assert "the end of the file" in str(_error(good + b"\x00"))
    bad_keyed = good.replace(b"\x07\x00\x00\x00\x00", b"\x63\x00\x00\x00\x00", 1)
    assert "keyed state handle type" in str(_error(bad_keyed))
    no_properties = MetadataWriter(version=4).operator(SUM_ID).build()[:-10]
    assert "checkpoint properties" in str(_error(no_properties))


def test_the_checkpoint_properties_are_read_to_their_end_as_flink_reads_them() -> None:
    real = FILES[SAVEPOINTS[0]]
    properties = real[real.rindex(b"\xac\xed\x00\x05") :]
    body = real[: len(real) - len(properties)]
    # Flink's own object: class descriptions, a nested SavepointType, two enums, a string
    # and a back reference to an earlier class description.
    assert read_savepoint(body + properties).size == len(real)
    # Cut anywhere inside, it does not load (Flink's readObject fails with an EOFException).
    error = _error(body + properties[:-1])
    assert "checkpoint properties" in str(error) and "the file ends" in str(error)
    # Another class, or a reference to a handle that was never given, does not either.
    other = properties.replace(b"CheckpointProperties", b"CheckpointPropertiez")
    assert "CheckpointPropertiez" in str(_error(body + other))
    dangling = properties.replace(b"q\x00~\x00\t", b"q\x00~\x00\x7f")
    assert "a handle to an earlier" in str(_error(body + dangling))
    # What follows the object is not read by Flink, nor here.
    assert read_savepoint(body + properties + b"\x00").size == len(real) + 1


_FUZZ = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("name", SAVEPOINTS)
def test_every_truncation_of_a_real_savepoint_is_a_savepoint_error(name: str) -> None:
    data = FILES[name]
    for length in range(len(data)):
        try:
            read_savepoint(data[:length])
        except SavepointError:
            continue
        raise AssertionError(f"the first {length} of {len(data)} bytes read as a savepoint")


@_FUZZ
@given(
    name=st.sampled_from(SAVEPOINTS),
    flips=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(1, 255)), min_size=1, max_size=8),
)
def test_byte_flips_of_a_real_savepoint_raise_only_savepoint_errors(
    name: str, flips: list[tuple[int, int]]
) -> None:
    data = bytearray(FILES[name])
    for position, mask in flips:
        data[position % len(data)] ^= mask
    with contextlib.suppress(SavepointError):
        read_savepoint(bytes(data))


@_FUZZ
@given(data=st.binary(max_size=400), version=st.sampled_from(SUPPORTED_VERSIONS))
def test_random_bytes_after_a_valid_header_raise_only_savepoint_errors(
    data: bytes, version: int
) -> None:
    with contextlib.suppress(SavepointError):
        read_savepoint(Out().i32(0x4960672D).i32(version).bytes() + data)


_HEADER = Out().i32(0x4960672D).i32(6).i64(1).i32(0).bytes()
_TRAILER = CHECKPOINT_PROPERTIES


def _operator(number: int, parallelism: int, finished: int) -> bytes:
    """An operator state with no name, no coordinator and `finished` finished subtasks."""
    head = Out().utf("").utf("").raw(number.to_bytes(16, "big")).i32(parallelism)
    head.i32(parallelism).u8(0).i32(finished)
    indices = struct.pack(f">{finished}i", *(-(i + 1) for i in range(finished)))
    return head.bytes() + indices


def _metadata(operators: list[bytes]) -> bytes:
    return _HEADER + struct.pack(">i", len(operators)) + b"".join(operators) + _TRAILER


def test_operator_states_are_capped_where_their_number_is_read() -> None:
    at_cap = _metadata([_operator(i, 1, 0) for i in range(MAX_OPERATOR_STATES)])
    assert len(read_savepoint(at_cap).operators) == MAX_OPERATOR_STATES

    error = _error(_metadata([_operator(i, 1, 0) for i in range(MAX_OPERATOR_STATES + 1)]))

    assert error.offset == len(_HEADER)
    assert str(error) == (
        f"byte {len(_HEADER)}: expected at most 65536 operator states "
        "(no Flink job has more operators), found 65537"
    )


def test_every_list_draws_on_one_budget_of_entries() -> None:
    # Ten operator states and their finished subtasks, exactly the budget between them.
    last = MAX_ENTRIES - 10 - 9 * 32768
    assert 0 <= last <= 32768
    operators = [_operator(i, 32768, 32768) for i in range(9)] + [_operator(9, 32768, last)]
    at_cap = read_savepoint(_metadata(operators))
    assert len(at_cap.operators) + sum(o.subtasks for o in at_cap.operators) == MAX_ENTRIES

    operators[-1] = _operator(9, 32768, last + 1)
    error = _error(_metadata(operators))

    last_count_at = len(_HEADER) + 4 + sum(map(len, operators[:-1])) + 2 + 2 + 16 + 4 + 4 + 1
    assert error.offset == last_count_at
    assert str(error) == (
        f"byte {last_count_at}: expected at most {MAX_ENTRIES:,} entries in all lists of the "
        f"file (no Flink job writes more), found {last + 1:,} subtask states after "
        f"{MAX_ENTRIES - last:,}"
    )


def _one_subtask(state: bytes) -> bytes:
    """A savepoint of one operator whose one subtask holds `state` (its handles, from the
    managed operator state on)."""
    head = Out().utf("").utf("").raw(bytes(16)).i32(1).i32(1).u8(0).i32(1).i32(0)
    return _metadata([head.bytes() + state])


_NO_STATE_AFTER_KEYED = b"\x00" + bytes(8)  # no raw keyed state, no channel state


@pytest.mark.parametrize(
    ("shape", "state"),
    [
        (
            "shared files of an incremental handle",
            Out().i32(0).i32(0).u8(5).i64(1).utf("").i32(0).i32(1).u8(0).i32(MAX_ENTRIES)
            .raw(b"\x00\x00\x00" * MAX_ENTRIES).i32(0).raw(_NO_STATE_AFTER_KEYED).bytes(),
        ),
        (
            "named operator states",
            Out().i32(1).u8(4).i32(MAX_ENTRIES).raw((b"\x00" * 7) * MAX_ENTRIES).u8(0)
            .i32(0).u8(0).raw(_NO_STATE_AFTER_KEYED).bytes(),
        ),
        (
            "changes of a changelog increment",
            Out().i32(0).i32(0).u8(9).i32(0).i32(1).i64(0).i64(0).i32(MAX_ENTRIES)
            .raw(bytes(8) * MAX_ENTRIES).utf("").raw(_NO_STATE_AFTER_KEYED).bytes(),
        ),
    ],
)  # fmt: skip
def test_a_list_past_the_budget_is_refused_before_it_is_read(shape: str, state: bytes) -> None:
    data = _one_subtask(state)
    count_at = data.index(MAX_ENTRIES.to_bytes(4, "big"))
    error = _error(data)
    # Refused where the count stands: before the first of its entries is read.
    assert error.offset == count_at
    assert "entries in all lists of the file" in str(error)
    assert f"found {MAX_ENTRIES:,} {shape} after 2" in str(error)


@pytest.mark.parametrize("name", SAVEPOINTS)
def test_what_was_read_is_kept_as_json_and_read_back_the_same(name: str) -> None:
    read = read_savepoint(FILES[name])
    kept = json.loads(json.dumps(read.to_json()))
    assert Savepoint.from_json(kept) == read


def test_every_kind_of_state_and_finished_subtasks_survive_the_round_trip() -> None:
    data = (
        MetadataWriter(version=7)
        .operator(
            SUM_ID,
            name="Sum",
            uid="sum",
            subtasks=[Subtask(0, keyed=10, operator_modes=(0, 1), operator_bytes=3)],
        )
        .operator("00" * 16, parallelism=2, subtasks=[Subtask(index=1, finished=True)])
        .build()
    )
    read = read_savepoint(data)
    assert Savepoint.from_json(json.loads(json.dumps(read.to_json()))) == read


# -- the inline reading of key-groups handles ---------------------------------------------


class _PlainReader(_Reader):
    inline_handles = False


def _outcome(reader: type[_Reader], data: bytes) -> object:
    try:
        return reader(data).savepoint()
    except SavepointError as error:
        return str(error)


_STREAMS = {
    "none": b"\x00",
    "bytes": Out().u8(1).utf("h").i32(3).raw(b"abc").bytes(),
    "file": Out().u8(2).i64(77).utf("s3://b/chk-1/f").bytes(),
    "relative file": Out().u8(6).utf("f").i64(5).bytes(),
    "key groups": Out().u8(3).i32(0).i32(1).i64(0).u8(1).utf("n").i32(1).raw(b"x").bytes(),
    "segment": Out().u8(16).bytes(),
    "unknown": b"\x63",
}


@st.composite
def _keyed_handles(draw: st.DrawFn) -> bytes:
    handle = draw(st.sampled_from([0, 3, 7, 12, 3, 7, 99]))
    if handle == 0:
        return b"\x00"
    offsets = draw(st.sampled_from([0, 1, 4, -1, 1 << 28]))
    out = Out().u8(handle).i32(draw(st.integers(0, 8))).i32(offsets)
    out.raw(bytes(8 * max(0, min(offsets, 4))))
    out.raw(_STREAMS[draw(st.sampled_from(sorted(_STREAMS)))])
    if handle == 12:
        out.utf("id")
    return out.bytes()


@_FUZZ
@given(
    version=st.sampled_from(SUPPORTED_VERSIONS),
    subtasks=st.lists(st.tuples(_keyed_handles(), _keyed_handles()), min_size=1, max_size=4),
    cut=st.one_of(st.none(), st.integers(0, 1 << 12)),
    flip=st.one_of(st.none(), st.tuples(st.integers(0, 1 << 12), st.integers(1, 255))),
)
def test_key_groups_read_inline_read_as_the_plain_reader_reads_them(
    version: int,
    subtasks: list[tuple[bytes, bytes]],
    cut: int | None,
    flip: tuple[int, int] | None,
) -> None:
    out = Out().i32(0x4960672D).i32(version).i64(1).i32(0).i32(1)
    if version >= 5:
        out.utf("").utf("")
    out.raw(bytes(16)).i32(len(subtasks)).i32(128).u8(0).i32(len(subtasks))
    for index, (managed, raw) in enumerate(subtasks):
        out.i32(index).i32(0).i32(0).raw(managed).raw(raw).i32(0).i32(0)
        if version >= 7:
            out.u8(0)
    data = bytearray(out.bytes() + (CHECKPOINT_PROPERTIES if version >= 4 else b""))
    if flip is not None:
        data[flip[0] % len(data)] ^= flip[1]
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    assert _outcome(_Reader, bytes(data)) == _outcome(_PlainReader, bytes(data))


@pytest.mark.parametrize("name", SAVEPOINTS)
def test_real_savepoints_read_inline_read_as_the_plain_reader_reads_them(name: str) -> None:
    data = FILES[name]
    assert _outcome(_Reader, data) == _outcome(_PlainReader, data)
    for length in range(0, len(data), 7):
        assert _outcome(_Reader, data[:length]) == _outcome(_PlainReader, data[:length])
