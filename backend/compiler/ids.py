"""Flink's id arithmetic: Java `String.hashCode` and `IntermediateDataSetID`."""

from __future__ import annotations

from compiler.model import Hash128

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF


def to_int32(value: int) -> int:
    """Wrap to a Java `int`."""
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def java_string_hash(text: str) -> int:
    """`String.hashCode()`: `31*h + c` over UTF-16 code units, Java int overflow."""
    h = 0
    if text.isascii():
        for char in text.encode("ascii"):
            h = (31 * h + char) & _MASK32
    else:
        units = text.encode("utf-16-be", "surrogatepass")
        for i in range(0, len(units), 2):
            h = (31 * h + ((units[i] << 8) | units[i + 1])) & _MASK32
    return to_int32(h)


def intermediate_data_set_id(producer: Hash128, edge_hash: int) -> Hash128:
    """`new IntermediateDataSetID(JobVertexID producer, int hash)` (Flink 2.3).

    The constructor swaps the halves of the producer id and adds the
    sign-extended hash to each, wrapping at 64 bits.
    """
    lower = producer >> 64
    upper = producer & _MASK64
    return Hash128((((upper + edge_hash) & _MASK64) << 64) | ((lower + edge_hash) & _MASK64))
