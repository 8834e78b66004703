"""Flink's checkpoint metadata file (`_metadata` of a savepoint or retained checkpoint).

What a savepoint holds per operator, read without Java or Flink: its OperatorID, name and
uid (written since format 5), parallelism and max parallelism, and for every kind of state
it has (keyed, operator list / union / broadcast, raw, an operator coordinator such as a
source enumerator, in-flight input and output channel data) how many bytes it takes.

The layout is Flink's own (its `Checkpoints` class writes the magic number 0x4960672d and
the format version, then one of these serializers the rest), read from Flink's sources:

* 3 `MetadataV3Serializer` (Flink 1.11 to 1.15): checkpoint id, master states, operator
  states, each with its coordinator state and subtask states laid out by
  `MetadataV2V3SerializerBase` (state handle types 0 to 17: byte streams, files, relative
  files, key groups, incremental and changelog keyed state, file-merging segments);
  channel state by `ChannelStateHandleSerializerV1`;
* 4 `MetadataV4Serializer` (1.16 on): version 3 followed by the checkpoint's properties as
  a Java serialization stream, walked to its end as `readObject` reads it
  (`compiler.state.javaserial`);
* 5 `MetadataV5Serializer`: version 4 with each operator's name and uid before its id;
* 6 `MetadataV6Serializer` (what Flink 2.3 writes): version 5 with channel state handles
  tagged by type (`ChannelStateHandleSerializerV2`, merged handles included);
* 7 `MetadataV7Serializer`: version 6 with an optional reference checkpoint id after each
  subtask state.

A file this cannot read raises `SavepointError`, which says what was expected at which byte
offset; nothing else escapes `read_savepoint`. Every count and length is checked against the
bytes that remain before anything is allocated or looped over, and nesting is bounded, so a
hostile file costs at most time and memory linear in its size. Bytes the reader does not
need (a handle's payload, key-group offsets) are skipped, not copied. And every loop draws
on one budget, `MAX_ENTRIES`, spent when a count is read, before its first iteration: a
file of millions of minimal entries (subtask states, named operator states, shared files,
master states, changelog changes) is refused at once, where reading it entry by entry would
take a minute.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Final, NamedTuple

from compiler.hashing import to_hex
from compiler.model import Hash128
from compiler.state.binary import I32, U16, BinaryFormatError, ByteCursor, modified_utf8
from compiler.state.javaserial import JavaStreamError, read_java_object

MAGIC: Final = 0x4960672D
"""`Checkpoints.HEADER_MAGIC_NUMBER`."""

SUPPORTED_VERSIONS: Final = (3, 4, 5, 6, 7)
READER_VERSION: Final = 2
"""Raised whenever this reader reads a file differently (refuses more, finds more): a read
kept from an older reader is read again from the file (2: the checkpoint properties are
read to their end, and every list draws on `MAX_ENTRIES`)."""

_MASTER_STATE_MAGIC: Final = 0xC96B1696
_CHECKPOINT_PROPERTIES: Final = "org.apache.flink.runtime.checkpoint.CheckpointProperties"
MAX_OPERATOR_STATES: Final = 65_536
"""A Flink job has at most thousands of operators, each with one operator state."""
MAX_ENTRIES: Final = 300_000
"""Entries of every list in the file together: master states, operator states, subtask
states (finished ones included), named operator states, files of incremental and changelog
handles, changelog parts and changes, channel state handles. A job of 150 operators at
parallelism 1,000, each subtask with an operator and a keyed state, writes 300,000; real
jobs stay far below. At a few microseconds an entry, the most a file can cost to read is
about a second."""
_MAX_NESTING: Final = 16
"""Handles inside handles (changelog keyed state, key groups over a stream): Flink nests
them two or three deep; a file that nests deeper is not one Flink wrote."""


class SavepointError(BinaryFormatError):
    """The file is not checkpoint metadata this reader understands: truncated, corrupt, not
    a savepoint at all, or of an unknown version. Says what was expected where."""


class StateKind(Enum):
    """The kinds of state an operator can hold, named as Flink's handles are."""

    KEYED_MANAGED = "keyed"
    KEYED_RAW = "keyed-raw"
    OPERATOR_LIST = "operator-list"
    """Managed operator state redistributed by splitting (`Mode.SPLIT_DISTRIBUTE`)."""
    OPERATOR_UNION = "operator-union"
    OPERATOR_BROADCAST = "operator-broadcast"
    OPERATOR_RAW = "operator-raw"
    COORDINATOR = "coordinator"
    """An operator coordinator's state, such as a FLIP-27 source's split enumerator."""
    INPUT_CHANNEL = "input-channel"
    OUTPUT_CHANNEL = "output-channel"
    """In-flight data of an unaligned checkpoint."""

    # Members are unique objects: hashed as such, in C, not by name (Enum's own, in Python,
    # was a fifth of reading a file of 300,000 subtask states).
    __hash__ = object.__hash__


_OPERATOR_MODES: Final = (
    StateKind.OPERATOR_LIST,
    StateKind.OPERATOR_UNION,
    StateKind.OPERATOR_BROADCAST,
)
"""`OperatorStateHandle.Mode` by ordinal."""
_KIND_ORDER: Final = {kind: index for index, kind in enumerate(StateKind)}


@dataclass(frozen=True, slots=True)
class StateSize:
    kind: StateKind
    bytes: int | None
    """What Flink's handles report as their state size, over all subtasks; None in a
    savepoint predicted before the job ran (`compiler.state.predicted`)."""


class OperatorState(NamedTuple):
    """One operator's entry in the savepoint. A named tuple, not a frozen dataclass: one
    is made for each of up to 65,536 operator states, and a frozen dataclass's setting of
    each field was a tenth of reading the largest file."""

    operator_id: Hash128
    name: str | None
    """Written since format 5; None when absent or empty."""
    uid: str | None
    parallelism: int
    max_parallelism: int
    subtasks: int
    """Subtask entries written (finished ones included): Flink's `getNumberCollectedStates`."""
    finished_subtasks: int
    fully_finished: bool
    """Every subtask had finished when the savepoint was taken (written as -1 subtasks)."""
    sizes: tuple[StateSize, ...]
    """Each kind of state it holds, in `StateKind` order."""
    has_state: bool | None
    """Flink's test for state that must be restored: coordinator state, or any subtask with
    any state handle. An operator without it may be dropped freely (FLINK-7595). None in a
    predicted savepoint when only a running job can tell (`compiler.state.predicted`)."""

    @property
    def kinds(self) -> tuple[StateKind, ...]:
        return tuple(size.kind for size in self.sizes)

    @property
    def state_bytes(self) -> int | None:
        """Over every kind of state; None when a size is not known."""
        sizes = [size.bytes for size in self.sizes]
        return None if None in sizes else sum(size for size in sizes if size is not None)

    @property
    def is_keyed(self) -> bool:
        return any(k in (StateKind.KEYED_MANAGED, StateKind.KEYED_RAW) for k in self.kinds)

    @property
    def hex_id(self) -> str:
        return to_hex(self.operator_id)


@dataclass(frozen=True, slots=True)
class Savepoint:
    version: int
    checkpoint_id: int
    master_states: tuple[str, ...]
    """The names of the master hooks' states."""
    operators: tuple[OperatorState, ...]
    """In the file's order, which is the order Flink checks them in when it restores."""
    size: int
    """Bytes of the metadata file."""

    def to_json(self) -> dict[str, Any]:
        """What was read, to be kept beside the file and read back by `from_json` (a check
        then needs no second read of the file)."""
        return {
            "version": self.version,
            "checkpointId": self.checkpoint_id,
            "masterStates": list(self.master_states),
            "size": self.size,
            "operators": [
                [
                    o.hex_id,
                    o.name,
                    o.uid,
                    o.parallelism,
                    o.max_parallelism,
                    o.subtasks,
                    o.finished_subtasks,
                    o.fully_finished,
                    [[size.kind.value, size.bytes] for size in o.sizes],
                    o.has_state,
                ]
                for o in self.operators
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Savepoint:
        operators = tuple(
            OperatorState(
                operator_id=Hash128(int(hex_id, 16)),
                name=name,
                uid=uid,
                parallelism=parallelism,
                max_parallelism=max_parallelism,
                subtasks=subtasks,
                finished_subtasks=finished,
                fully_finished=fully_finished,
                sizes=tuple(StateSize(StateKind(kind), size) for kind, size in sizes),
                has_state=has_state,
            )
            for (
                hex_id,
                name,
                uid,
                parallelism,
                max_parallelism,
                subtasks,
                finished,
                fully_finished,
                sizes,
                has_state,
            ) in data["operators"]
        )
        return cls(
            version=data["version"],
            checkpoint_id=data["checkpointId"],
            master_states=tuple(data["masterStates"]),
            operators=operators,
            size=data["size"],
        )


def read_savepoint(data: bytes) -> Savepoint:
    """The savepoint in `data` (a whole `_metadata` file); `SavepointError` if it is not one."""
    return _Reader(data).savepoint()


_CHANNEL_HANDLES = tuple(
    (kind, f"{kind.value} state handles")
    for kind in (StateKind.INPUT_CHANNEL, StateKind.OUTPUT_CHANNEL)
)
"""The channel state lists of a subtask, named once: a file may hold 300,000 subtasks."""
_KEYED_KINDS = (StateKind.KEYED_MANAGED, StateKind.KEYED_RAW)
_OPERATOR_HEAD = struct.Struct(">16sii")
"""An operator state's OperatorID, parallelism and max parallelism."""
_NO_CHANNEL_STATE = bytes(8)
"""A subtask's counts of input and output channel state handles, both zero."""
_NO_OPERATOR_STATE = bytes(8)
"""A subtask's flags of managed and raw operator state, both unset."""
_EMPTY_SUBTASK = bytes(4 + 4 + 1 + 1 + 4 + 4)
"""A subtask state with nothing: no managed or raw operator state, no keyed state handles,
no input or output channel state (then, from version 7, no reference checkpoint)."""


def _add(sizes: dict[StateKind, int], kind: StateKind, size: int) -> None:
    sizes[kind] = sizes.get(kind, 0) + size


class _Reader(ByteCursor):
    """The file's grammar over a checked cursor."""

    error = SavepointError
    inline_handles: ClassVar[bool] = True
    """Whether the usual handles are read by the inline paths (their tests compare both)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.version = 0
        self.depth = 0
        self.entries = 0

    def boolean(self, what: str) -> bool:
        return self.u8(what) != 0

    def utf(self, what: str) -> str:
        """`DataInput.readUTF`: a 2-byte length, then Java's modified UTF-8."""
        start = self.pos
        if self.data.startswith(b"\0\0", start):  # empty, as most names and uids are
            self.pos = start + 2
            return ""
        if start + 2 > len(self.data):  # the message made only when it is needed
            self.u16(f"the length of {what}")
        length: int = U16.unpack_from(self.data, start)[0]
        self.pos = start + 2
        raw = self.take(length, what)
        try:
            return modified_utf8(raw)
        except UnicodeError:
            raise SavepointError(start, f"{what} as modified UTF-8", "bytes that are not") from None

    def count(self, what: str, element_bytes: int) -> int:
        """A non-negative int32 count of list entries of at least `element_bytes` bytes each,
        no more than the rest of the file can hold, spent from the budget of entries."""
        start = self.pos
        value = self.length(what, element_bytes)
        self.spend(value, what, start)
        return value

    def spend(self, entries: int, what: str, start: int) -> None:
        self.entries += entries
        if self.entries > MAX_ENTRIES:
            raise SavepointError(
                start,
                f"at most {MAX_ENTRIES:,} entries in all lists of the file (no Flink job "
                "writes more)",
                f"{entries:,} {what} after {self.entries - entries:,}",
            )

    def length(self, what: str, element_bytes: int) -> int:
        """A non-negative int32 length of elements of `element_bytes` bytes each (bytes, or
        an array read in one piece), no more than the rest of the file can hold."""
        start = self.pos
        if start + 4 > len(self.data):  # the message made only when it is needed
            self.i32(f"the number of {what}")
        value: int = I32.unpack_from(self.data, start)[0]
        self.pos = start + 4
        if value < 0:
            raise SavepointError(start, f"a number of {what}", str(value))
        if value * element_bytes > self.remaining():
            raise SavepointError(
                start,
                f"a number of {what} that fits in the {self.remaining()} bytes left",
                str(value),
            )
        return value

    def enter(self, what: str) -> None:
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise SavepointError(self.pos, f"{what} nested at most {_MAX_NESTING} deep")

    def leave(self) -> None:
        self.depth -= 1

    # -- the file -----------------------------------------------------------------------

    def savepoint(self) -> Savepoint:
        magic = self.i32("the magic number") & 0xFFFFFFFF
        if magic != MAGIC:
            raise SavepointError(
                0,
                f"Flink's checkpoint metadata magic number 0x{MAGIC:08x}",
                f"0x{magic:08x}: this is not a savepoint's _metadata file",
            )
        version = self.i32("the metadata version")
        if version not in SUPPORTED_VERSIONS:
            known = ", ".join(map(str, SUPPORTED_VERSIONS))
            older = " (written by Flink 1.10 or older)" if version in (1, 2) else ""
            raise SavepointError(4, f"metadata version {known}", f"{version}{older}")
        self.version = version
        checkpoint_id = self.i64("the checkpoint ID")
        if checkpoint_id < 0:
            raise SavepointError(8, "a checkpoint ID of 0 or more", str(checkpoint_id))
        masters = self.count("master states", 8)
        master_states = tuple(self.master_state() for _ in range(masters))
        # An operator state takes at least 16 + 4 + 4 + 1 + 4 bytes (more with a name).
        operators_at = self.pos
        count = self.count("operator states", 29)
        if count > MAX_OPERATOR_STATES:
            raise SavepointError(
                operators_at,
                f"at most {MAX_OPERATOR_STATES} operator states (no Flink job has more operators)",
                str(count),
            )
        operators = tuple(self.operator_state() for _ in range(count))
        self.trailer()
        return Savepoint(version, checkpoint_id, master_states, operators, len(self.data))

    def master_state(self) -> str:
        start = self.pos
        magic = self.i32("a master state's magic number") & 0xFFFFFFFF
        if magic != _MASTER_STATE_MAGIC:
            raise SavepointError(
                start,
                f"a master state's magic number 0x{_MASTER_STATE_MAGIC:08x}",
                f"0x{magic:08x}",
            )
        length_at = self.pos
        length = self.i32("a master state's length")
        if length <= 0 or length > self.remaining():
            raise SavepointError(
                length_at, f"a master state length from 1 to {self.remaining()}", str(length)
            )
        end = self.pos + length
        self.i32("a master state's version")
        name = self.utf("a master state's name")
        self.skip(self.length("bytes of a master state", 1), "a master state's bytes")
        if self.pos != end:
            raise SavepointError(self.pos, f"the end of the master state at byte {end}")
        return name

    def trailer(self) -> None:
        if self.version >= 4:
            # The checkpoint's properties, a Java object Flink reads with `readObject`: a file
            # in which it is cut short or malformed does not load.
            what = "the checkpoint properties (a Java serialization stream)"
            try:
                properties = read_java_object(self.data, self.pos)
            except JavaStreamError as error:
                found = (
                    error.expected if error.found is None else f"{error.expected}, {error.found}"
                )
                raise SavepointError(error.offset, what, found) from None
            if properties.class_name != _CHECKPOINT_PROPERTIES:
                raise SavepointError(
                    self.pos, f"{what} of {_CHECKPOINT_PROPERTIES}", properties.class_name
                )
            self.pos = properties.end
        elif self.remaining():
            raise SavepointError(self.pos, "the end of the file", f"{self.remaining()} more bytes")

    # -- operators and subtasks ------------------------------------------------------------

    def operator_state(self) -> OperatorState:
        name = uid = None
        if self.version >= 5:
            name = self.utf("an operator's name") or None
            uid = self.utf("an operator's uid") or None
        parallelism_at = self.pos + 16
        if parallelism_at + 8 <= len(self.data):  # read in one step, as most are
            raw_id, parallelism, max_parallelism = _OPERATOR_HEAD.unpack_from(self.data, self.pos)
            self.pos = parallelism_at + 8
        else:
            raw_id = self.take(16, "an OperatorID")
            parallelism = self.i32("an operator's parallelism")
            max_parallelism = self.i32("an operator's max parallelism")
        operator_id = Hash128(int.from_bytes(raw_id, "big"))
        if not 0 <= parallelism <= max_parallelism:
            # Flink's OperatorState refuses these when it reads the file.
            raise SavepointError(
                parallelism_at,
                f"a parallelism from 0 to the operator's max parallelism {max_parallelism}",
                str(parallelism),
            )
        sizes: dict[StateKind, int] = {}
        has_state = False
        coordinator_at = self.pos
        if coordinator_at < len(self.data) and self.data[coordinator_at] == 0:
            self.pos = coordinator_at + 1
            coordinator = None
        else:
            coordinator = self.stream_handle("an operator's coordinator state")
        if coordinator is not None:
            if coordinator[0] != "bytes":
                raise SavepointError(
                    coordinator_at, "coordinator state as inline bytes", f"a {coordinator[0]}"
                )
            sizes[StateKind.COORDINATOR] = coordinator[1]
            has_state = True
        subtasks_at = self.pos
        subtasks = self.i32("an operator's number of subtask states")
        finished = 0
        fully_finished = subtasks < 0
        if fully_finished:
            if coordinator is not None:
                raise SavepointError(
                    subtasks_at, "no coordinator state for an operator whose subtasks all finished"
                )
            subtasks = 0
        elif subtasks * 4 > self.remaining():
            raise SavepointError(
                subtasks_at,
                f"a number of subtask states that fits in the {self.remaining()} bytes left",
                str(subtasks),
            )
        self.spend(subtasks, "subtask states", subtasks_at)
        # A subtask without state is the same bytes every time; passed over in one step.
        empty = _EMPTY_SUBTASK + (b"\x00" if self.version >= 7 else b"")
        data = self.data
        for _ in range(subtasks):
            index_at = self.pos
            if index_at + 4 > len(data):
                self.i32("a subtask index")
            index: int = I32.unpack_from(data, index_at)[0]
            self.pos = index_at + 4
            # A finished subtask's index is stored as -(index + 1).
            if (index if index >= 0 else -index - 1) >= parallelism:
                raise SavepointError(
                    index_at, f"a subtask index below the parallelism {parallelism}", str(index)
                )
            if index < 0:
                finished += 1
            elif data.startswith(empty, index_at + 4):
                self.pos = index_at + 4 + len(empty)
            elif self.subtask_state(sizes):
                has_state = True
        return OperatorState(
            operator_id=operator_id,
            name=name,
            uid=uid,
            parallelism=parallelism,
            max_parallelism=max_parallelism,
            subtasks=subtasks,
            finished_subtasks=finished,
            fully_finished=fully_finished,
            sizes=tuple(
                StateSize(kind, sizes[kind]) for kind in sorted(sizes, key=_KIND_ORDER.__getitem__)
            )
            if sizes
            else (),
            has_state=has_state,
        )

    def subtask_state(self, sizes: dict[StateKind, int]) -> bool:
        """One subtask's handles, their sizes added to `sizes` (which every subtask of the
        operator shares): whether it had any."""
        # The absent parts (a zero flag, type or count) are passed over inline, and so is
        # the usual keyed state, a key-groups handle: a file may hold 300,000 subtask
        # states, each read field by field.
        data = self.data
        pos = self.pos
        has_state = False
        if data.startswith(_NO_OPERATOR_STATE, pos):
            self.pos = pos + 8
        else:
            if self.i32("whether a subtask has managed operator state") != 0:
                has_state = self.operator_handle(sizes, managed=True)
            if self.i32("whether a subtask has raw operator state") != 0:
                has_state = self.operator_handle(sizes, managed=False) or has_state
        for kind in _KEYED_KINDS:
            pos = self.pos
            if pos < len(data) and data[pos] == 0:
                self.pos = pos + 1
                continue
            size = self.inline_key_groups(pos) if self.inline_handles else None
            if size is None:
                size = self.keyed_handle()
            if size is not None:
                sizes[kind] = sizes.get(kind, 0) + size
                has_state = True
        pos = self.pos
        if data.startswith(_NO_CHANNEL_STATE, pos):
            self.pos = pos + 8
        else:
            for kind, what in _CHANNEL_HANDLES:
                for _ in range(self.count(what, 1)):
                    _add(sizes, kind, self.channel_handle(kind))
                    has_state = True
        if self.version >= 7 and self.u8("whether a reference checkpoint ID follows") == 1:
            self.i64("a reference checkpoint ID")
        return has_state

    def inline_key_groups(self, pos: int) -> int | None:
        """A keyed state handle of key groups (types 3 and 7) at `pos` whose fields all fit,
        read as `keyed_handle` reads it: its state size, or None (nothing read) for any
        other handle or a handle that does not fit, which `keyed_handle` then reads or
        refuses with its words."""
        data = self.data
        if pos + 10 > len(data) or data[pos] not in (3, 7):
            return None
        offsets: int = I32.unpack_from(data, pos + 5)[0]
        stream_at = pos + 9 + 8 * offsets
        if offsets < 0 or stream_at >= len(data):
            return None
        if data[stream_at] == 0:
            self.pos = stream_at + 1
            return 0
        # The stream is read as `keyed_handle` reads it, one handle deeper.
        self.pos = stream_at
        self.depth += 1
        try:
            return self.sized_stream_handle("a keyed state handle")
        finally:
            self.depth -= 1

    # -- state handles --------------------------------------------------------------------

    def stream_handle(self, what: str) -> tuple[str, int] | None:
        """A `StreamStateHandle`: None, or what it is and its state size."""
        start = self.pos
        kind = self.u8(f"the type of {what}")
        if kind == 0:
            return None
        self.enter(what)
        try:
            if kind == 1:
                self.utf("a byte stream handle's name")
                length = self.length("bytes of a byte stream handle", 1)
                self.skip(length, "a byte stream handle's bytes")
                return ("bytes", length)
            if kind == 2:
                size = self.i64("a file's state size")
                self.utf("a file's path")
                return ("file", size)
            if kind == 6:
                self.utf("a relative file's path")
                return ("file", self.i64("a relative file's state size"))
            if kind == 3:
                return ("key groups", self.key_groups("a key-groups stream handle"))
            if kind == 15:
                self.i64("a file segment's start")
                size = self.i64("a file segment's state size")
                self.i32("a file segment's scope")
                self.utf("a file segment's path")
                self.utf("a file segment's logical file id")
                return ("file segment", size)
            if kind == 16:
                return ("file segment", 0)
        finally:
            self.leave()
        raise SavepointError(
            start, f"a stream state handle type (0-3, 6, 15, 16) for {what}", str(kind)
        )

    def sized_stream_handle(self, what: str) -> int:
        handle = self.stream_handle(what)
        return 0 if handle is None else handle[1]

    def key_groups(self, what: str) -> int:
        """Key-group range and offsets, then the stream that holds them: its size."""
        self.i32("the first key group of a key-groups handle")
        offsets = self.length("key groups of a key-groups handle", 8)
        self.skip(8 * offsets, "the key-group offsets of a key-groups handle")
        return self.sized_stream_handle(what)

    def operator_handle(self, sizes: dict[StateKind, int], *, managed: bool) -> bool:
        """An `OperatorStateHandle` (its size added to `sizes`): whether there was one."""
        start = self.pos
        kind = self.u8("the type of an operator state handle")
        if kind == 0:
            return False
        if kind not in (4, 17):
            raise SavepointError(start, "an operator state handle type (0, 4 or 17)", str(kind))
        modes: list[StateKind] = []
        for _ in range(self.count("named operator states", 7)):
            self.utf("an operator state's name")
            mode_at = self.pos
            mode = self.u8("an operator state's distribution mode")
            if mode >= len(_OPERATOR_MODES):
                raise SavepointError(mode_at, "a distribution mode (0, 1 or 2)", str(mode))
            modes.append(_OPERATOR_MODES[mode])
            self.skip(8 * self.length("operator state offsets", 8), "operator state offsets")
        if kind == 17:
            self.utf("a file-merging handle's task-owned directory")
            self.utf("a file-merging handle's shared directory")
            self.boolean("whether a file-merging handle is empty")
        size = self.sized_stream_handle("an operator state's stream")
        if not managed:
            _add(sizes, StateKind.OPERATOR_RAW, size)
            return True
        kinds = list(dict.fromkeys(modes)) or [StateKind.OPERATOR_LIST]
        # One stream holds every named state; its size goes to the first kind, the rest
        # are listed with no bytes of their own.
        for index, mode_kind in enumerate(kinds):
            _add(sizes, mode_kind, size if index == 0 else 0)
        return True

    def keyed_handle(self) -> int | None:
        """A `KeyedStateHandle`: its state size, or None when there is none."""
        start = self.pos
        handle = self.u8("the type of a keyed state handle")
        if handle == 0:
            return None
        self.enter("a keyed state handle")
        try:
            return self.keyed_handle_body(handle, start)
        finally:
            self.leave()

    def keyed_handle_body(self, handle: int, start: int) -> int:
        if handle in (3, 7, 12):  # key groups: plain, of a savepoint, with a handle id
            size = self.key_groups("a keyed state handle")
            if handle == 12:
                self.utf("a keyed state handle's id")
            return size
        if handle in (5, 11):  # incremental (RocksDB)
            self.i64("an incremental handle's checkpoint ID")
            self.utf("an incremental handle's backend id")
            self.i32("an incremental handle's first key group")
            self.i32("an incremental handle's number of key groups")
            if handle == 11:
                self.i64("an incremental handle's checkpointed size")
            size = self.sized_stream_handle("an incremental handle's metadata")
            for part in ("shared", "private"):
                for _ in range(self.count(f"{part} files of an incremental handle", 3)):
                    self.utf(f"a {part} file's local path")
                    size += self.sized_stream_handle(f"a {part} file")
            if handle == 11:
                self.utf("an incremental handle's id")
            return size
        if handle in (8, 14):  # changelog: materialized and not yet materialized parts
            self.i32("a changelog handle's first key group")
            self.i32("a changelog handle's number of key groups")
            self.i64("a changelog handle's checkpointed size")
            size = 0
            for part in ("materialized", "non-materialized"):
                for _ in range(self.count(f"{part} parts of a changelog handle", 1)):
                    size += self.keyed_handle() or 0
            self.i64("a changelog handle's materialization ID")
            if handle == 14:
                self.i64("a changelog handle's checkpoint ID")
            self.utf("a changelog handle's id")
            return size
        if handle == 9:  # changelog increment held in memory
            self.i32("a changelog increment's first key group")
            self.i32("a changelog increment's number of key groups")
            self.i64("a changelog increment's first sequence number")
            self.i64("a changelog increment's last sequence number")
            size = 0
            for _ in range(self.count("changes of a changelog increment", 8)):
                self.i32("a change's key group")
                length = self.length("bytes of a change", 1)
                self.skip(length, "a change's bytes")
                size += length
            self.utf("a changelog increment's id")
            return size
        if handle in (10, 13):  # changelog increment in files
            self.i32("a changelog increment's first key group")
            self.i32("a changelog increment's number of key groups")
            for _ in range(self.count("files of a changelog increment", 9)):
                self.i64("an offset in a changelog file")
                self.sized_stream_handle("a changelog file")
            size = self.i64("a changelog increment's state size")
            self.i64("a changelog increment's checkpointed size")
            self.utf("a changelog increment's id")
            if handle == 13:
                self.utf("a changelog increment's storage id")
            return size
        raise SavepointError(start, "a keyed state handle type (0, 3, 5, 7-14)", str(handle))

    def channel_handle(self, kind: StateKind) -> int:
        """One input-channel or result-subpartition handle: its state size."""
        if self.version < 6:
            return self.plain_channel_handle()
        start = self.pos
        tag = self.u8(f"the type of an {kind.value} state handle")
        plain, merged = (1, 3) if kind is StateKind.INPUT_CHANNEL else (2, 4)
        if tag == plain:
            return self.plain_channel_handle()
        if tag == merged:
            self.i32("a merged channel handle's subtask index")
            size = self.i64("a merged channel handle's state size")
            self.sized_stream_handle("a merged channel handle's stream")
            self.skip(self.length("bytes of channel offsets", 1), "channel offsets")
            return size
        raise SavepointError(
            start, f"an {kind.value} state handle type ({plain} or {merged})", str(tag)
        )

    def plain_channel_handle(self) -> int:
        self.i32("a channel handle's subtask index")
        self.i32("a channel handle's gate or partition index")
        self.i32("a channel handle's channel or subpartition index")
        self.skip(8 * self.length("channel handle offsets", 8), "channel handle offsets")
        size = self.i64("a channel handle's state size")
        self.sized_stream_handle("a channel handle's stream")
        return size
