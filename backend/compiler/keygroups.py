"""Key groups and key -> subtask routing (`KeyGroupRangeAssignment`, `MathUtils`).

This is the function the Spark runtime uses to send each keyBy record to the
subtask whose key-group range holds it, so it must equal Flink's for every key:
Java's `hashCode` of the key, Flink's 32-bit murmur finaliser, then key groups.
"""

from __future__ import annotations

from enum import Enum

from compiler.ids import java_string_hash, to_int32
from compiler.model import UPPER_BOUND_MAX_PARALLELISM

DEFAULT_LOWER_BOUND_MAX_PARALLELISM = 128
_MASK32 = 0xFFFFFFFF


MAX_TUPLE_ARITY = 25
"""`Tuple.MAX_ARITY`: Flink has Tuple0 to Tuple25."""


class JavaKeyType(Enum):
    """The Java class a key has in the JVM (PyFlink `Types.INT()`, `LONG()`, ...)."""

    INTEGER = "Integer"
    LONG = "Long"
    STRING = "String"
    BOOLEAN = "Boolean"
    TUPLE = "Tuple"
    """Flink's `TupleN` (PyFlink `Types.TUPLE([...])`), its fields typed as keys are."""


def java_hash_code(key: object, key_type: JavaKeyType | None = None) -> int:
    """`key.hashCode()` as Java computes it for Integer, Long, String, Boolean and Tuple.

    Without `key_type`, Python `bool` is a Boolean, `int` an Integer when it fits
    32 bits and a Long otherwise, `str` a String, and `tuple` a Flink `TupleN` whose
    fields are typed the same way (nested tuples included).
    """
    if key_type is None:
        key_type = _infer_type(key)
    if key_type is JavaKeyType.TUPLE:
        if not isinstance(key, tuple):
            raise TypeError(f"a Tuple key must be a tuple, got {key!r}")
        return tuple_hash_code(key)
    if key_type is JavaKeyType.BOOLEAN:
        if not isinstance(key, bool):
            raise TypeError(f"a Boolean key must be true or false, got {key!r}")
        return 1231 if key else 1237
    if key_type is JavaKeyType.STRING:
        if not isinstance(key, str):
            raise TypeError(f"a String key must be a string, got {key!r}")
        return java_string_hash(key)
    if isinstance(key, bool) or not isinstance(key, int):
        raise TypeError(f"an {key_type.value} key must be an integer, got {key!r}")
    if key_type is JavaKeyType.INTEGER:
        if not -(1 << 31) <= key < (1 << 31):
            raise ValueError(f"{key} does not fit a Java Integer")
        return key
    if not -(1 << 63) <= key < (1 << 63):
        raise ValueError(f"{key} does not fit a Java Long")
    unsigned = key & 0xFFFFFFFFFFFFFFFF
    return to_int32(unsigned ^ (unsigned >> 32))


def tuple_hash_code(fields: tuple[object, ...]) -> int:
    """`TupleN.hashCode()`: `31 * result + field.hashCode()` over the fields in order,
    starting from the first field's hash, in Java int arithmetic (Tuple0 hashes to 0).

    Flink's tuples have no null fields as keys (its tuple serializer refuses them), so
    None is not a field here.
    """
    if len(fields) > MAX_TUPLE_ARITY:
        raise ValueError(
            f"a tuple key has {len(fields)} fields; Flink's tuples have at most {MAX_TUPLE_ARITY}"
        )
    result = 0
    for field in fields:
        result = to_int32(31 * result + java_hash_code(field))
    return result


def _infer_type(key: object) -> JavaKeyType:
    if isinstance(key, bool):
        return JavaKeyType.BOOLEAN
    if isinstance(key, int):
        return JavaKeyType.INTEGER if -(1 << 31) <= key < (1 << 31) else JavaKeyType.LONG
    if isinstance(key, str):
        return JavaKeyType.STRING
    if isinstance(key, tuple):
        return JavaKeyType.TUPLE
    raise TypeError(f"keys must be int, str, bool or a tuple of them, got {type(key).__name__}")


def _rotl32(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (32 - shift))) & _MASK32


def murmur_hash(code: int) -> int:
    """`MathUtils.murmurHash(int)`: non-negative, Java int arithmetic."""
    h = code & _MASK32
    h = (h * 0xCC9E2D51) & _MASK32
    h = _rotl32(h, 15)
    h = (h * 0x1B873593) & _MASK32
    h = _rotl32(h, 13)
    h = (h * 5 + 0xE6546B64) & _MASK32
    h ^= 4
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK32
    h ^= h >> 16
    signed = to_int32(h)
    if signed >= 0:
        return signed
    return -signed if signed != -(1 << 31) else 0


def compute_key_group_for_key_hash(key_hash: int, max_parallelism: int) -> int:
    return murmur_hash(key_hash) % max_parallelism


def assign_to_key_group(
    key: object, max_parallelism: int, key_type: JavaKeyType | None = None
) -> int:
    return compute_key_group_for_key_hash(java_hash_code(key, key_type), max_parallelism)


def compute_operator_index_for_key_group(
    max_parallelism: int, parallelism: int, key_group: int
) -> int:
    return key_group * parallelism // max_parallelism


def assign_key_to_parallel_operator(
    key: object, max_parallelism: int, parallelism: int, key_type: JavaKeyType | None = None
) -> int:
    """The subtask index that processes `key` behind a keyBy (HASH) edge."""
    return compute_operator_index_for_key_group(
        max_parallelism, parallelism, assign_to_key_group(key, max_parallelism, key_type)
    )


def key_group_range(max_parallelism: int, parallelism: int, index: int) -> tuple[int, int]:
    """`computeKeyGroupRangeForOperatorIndex`: inclusive [start, end] of subtask `index`."""
    start = (index * max_parallelism + parallelism - 1) // parallelism
    end = ((index + 1) * max_parallelism - 1) // parallelism
    return start, end


def _round_up_to_power_of_two(x: int) -> int:
    return 1 << (x - 1).bit_length() if x > 1 else 1


def compute_default_max_parallelism(parallelism: int) -> int:
    """`computeDefaultMaxParallelism`: 1.5 x parallelism rounded up to a power of two,
    at least 128 and at most 32768."""
    if not 0 < parallelism <= UPPER_BOUND_MAX_PARALLELISM:
        raise ValueError(f"Operator parallelism not within bounds: {parallelism}")
    return min(
        max(
            _round_up_to_power_of_two(parallelism + parallelism // 2),
            DEFAULT_LOWER_BOUND_MAX_PARALLELISM,
        ),
        UPPER_BOUND_MAX_PARALLELISM,
    )
