"""Writes checkpoint metadata files for tests, in the layout `compiler.state.savepoint` reads.

    data = MetadataWriter(version=6).operator(
        "c27dcf7b54ef6bfd6cff02ca8870b681", name="Sum", subtasks=[Subtask(keyed=100)]
    ).build()

Only what the tests need: one byte-stream handle per piece of state, of the given size,
and the handle types named by the fields of `Subtask`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

MAGIC = 0x4960672D
MASTER_MAGIC = 0xC96B1696


class Out:
    """Java `DataOutputStream`'s primitives."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def u8(self, value: int) -> Out:
        self.parts.append(struct.pack(">B", value & 0xFF))
        return self

    def i32(self, value: int) -> Out:
        self.parts.append(struct.pack(">I", value & 0xFFFFFFFF))
        return self

    def i64(self, value: int) -> Out:
        self.parts.append(struct.pack(">q", value))
        return self

    def utf(self, text: str) -> Out:
        raw = text.encode("utf-8")
        self.parts.append(struct.pack(">H", len(raw)) + raw)
        return self

    def raw(self, data: bytes) -> Out:
        self.parts.append(data)
        return self

    def bytes(self) -> bytes:
        return b"".join(self.parts)


def byte_stream(out: Out, size: int, name: str = "h") -> None:
    out.u8(1).utf(name).i32(size).raw(b"\x01" * size)


@dataclass
class Subtask:
    """One subtask's state: sizes in bytes, None for none."""

    index: int = 0
    finished: bool = False
    keyed: int | None = None
    keyed_raw: int | None = None
    incremental: int | None = None
    """Managed keyed state as an incremental (RocksDB) handle with one shared file."""
    changelog: int | None = None
    """Managed keyed state as a changelog handle over one materialized key-groups handle."""
    operator_modes: tuple[int, ...] = ()
    """Managed operator state: one named state per distribution mode ordinal."""
    operator_bytes: int = 0
    operator_raw: int | None = None
    empty_managed_flag: bool = False
    """Write the managed operator state flag with a null handle (Flink's "no state")."""
    input_channels: tuple[int, ...] = ()
    output_channels: tuple[int, ...] = ()
    merged_input: int | None = None
    ref_checkpoint: int | None = None


@dataclass
class _Operator:
    operator_id: str
    name: str
    uid: str
    parallelism: int
    max_parallelism: int
    coordinator: int | None
    subtasks: list[Subtask] | None
    """None: fully finished."""


@dataclass
class MetadataWriter:
    version: int = 6
    checkpoint_id: int = 1
    masters: list[str] = field(default_factory=list)
    operators: list[_Operator] = field(default_factory=list)

    def master(self, name: str) -> MetadataWriter:
        self.masters.append(name)
        return self

    def operator(
        self,
        operator_id: str,
        *,
        name: str = "",
        uid: str = "",
        parallelism: int = 2,
        max_parallelism: int = 128,
        coordinator: int | None = None,
        subtasks: list[Subtask] | None = None,
        fully_finished: bool = False,
    ) -> MetadataWriter:
        if subtasks is None and not fully_finished:
            subtasks = [Subtask(index=i) for i in range(parallelism)]
        self.operators.append(
            _Operator(
                operator_id,
                name,
                uid,
                parallelism,
                max_parallelism,
                coordinator,
                None if fully_finished else subtasks,
            )
        )
        return self

    def build(self) -> bytes:
        out = Out().i32(MAGIC).i32(self.version).i64(self.checkpoint_id)
        out.i32(len(self.masters))
        for name in self.masters:
            inner = Out().i32(1).utf(name).i32(3).raw(b"abc").bytes()
            out.i32(MASTER_MAGIC).i32(len(inner)).raw(inner)
        out.i32(len(self.operators))
        for op in self.operators:
            self._operator(out, op)
        if self.version >= 4:
            out.raw(CHECKPOINT_PROPERTIES)
        return out.bytes()

    def _operator(self, out: Out, op: _Operator) -> None:
        if self.version >= 5:
            out.utf(op.name).utf(op.uid)
        out.raw(bytes.fromhex(op.operator_id)).i32(op.parallelism).i32(op.max_parallelism)
        if op.coordinator is None:
            out.u8(0)
        else:
            byte_stream(out, op.coordinator, "coordinator")
        if op.subtasks is None:
            out.i32(-1)
            return
        out.i32(len(op.subtasks))
        for subtask in op.subtasks:
            if subtask.finished:
                out.i32(-(subtask.index + 1))
                continue
            out.i32(subtask.index)
            self._subtask(out, subtask)

    def _subtask(self, out: Out, s: Subtask) -> None:
        if s.operator_modes:
            out.i32(1).u8(4).i32(len(s.operator_modes))
            for number, mode in enumerate(s.operator_modes):
                out.utf(f"state-{number}").u8(mode).i32(1).i64(0)
            byte_stream(out, s.operator_bytes)
        elif s.empty_managed_flag:
            out.i32(1).u8(0)
        else:
            out.i32(0)
        if s.operator_raw is not None:
            out.i32(1).u8(4).i32(0)
            byte_stream(out, s.operator_raw)
        else:
            out.i32(0)
        if s.incremental is not None:
            out.u8(11).i64(1).utf("backend").i32(0).i32(4).i64(s.incremental)
            out.u8(0)  # no metadata stream
            out.i32(1).utf("000001.sst")
            out.u8(2).i64(s.incremental).utf("file:///sst")  # a file handle
            out.i32(0).utf("handle-id")
        elif s.changelog is not None:
            out.u8(14).i32(0).i32(2).i64(s.changelog)
            out.i32(1)
            self._key_groups(out, s.changelog)
            out.i32(0).i64(1).i64(1).utf("changelog-id")
        elif s.keyed is not None:
            self._key_groups(out, s.keyed)
        else:
            out.u8(0)
        if s.keyed_raw is not None:
            self._key_groups(out, s.keyed_raw)
        else:
            out.u8(0)
        inputs = list(s.input_channels)
        out.i32(len(inputs) + (s.merged_input is not None))
        for size in inputs:
            self._channel(out, size, tag=1)
        if s.merged_input is not None:
            out.u8(3).i32(s.index).i64(s.merged_input)
            byte_stream(out, s.merged_input)
            out.i32(2).raw(b"\x00\x01")
        out.i32(len(s.output_channels))
        for size in s.output_channels:
            self._channel(out, size, tag=2)
        if self.version >= 7:
            if s.ref_checkpoint is None:
                out.u8(0)
            else:
                out.u8(1).i64(s.ref_checkpoint)

    def _key_groups(self, out: Out, size: int) -> None:
        out.u8(7).i32(0).i32(2).i64(0).i64(size // 2)
        byte_stream(out, size)

    def _channel(self, out: Out, size: int, *, tag: int) -> None:
        if self.version >= 6:
            out.u8(tag)
        out.i32(0).i32(0).i32(1).i32(1).i64(0).i64(size)
        byte_stream(out, size)


def _properties() -> bytes:
    """A Java serialization stream of one `CheckpointProperties` with one boolean field, as
    `ObjectOutputStream.writeObject` lays it out (Flink's has eight fields and a nested
    `SnapshotType`; the reader walks both alike)."""
    out = Out().raw(b"\xac\xed\x00\x05").u8(0x73).u8(0x72)
    out.utf("org.apache.flink.runtime.checkpoint.CheckpointProperties").i64(2)
    out.u8(0x02).raw(struct.pack(">H", 1)).u8(ord("Z")).utf("forced")
    return out.u8(0x78).u8(0x70).u8(0).bytes()


CHECKPOINT_PROPERTIES = _properties()
"""What Flink writes after the operator states from format 4 on, minimally."""
