"""Key groups, key routing and effective max parallelism against Flink 2.3.0.

`data/fixtures/keygroups.json` holds values printed by Flink's own
`KeyGroupRangeAssignment`, `MathUtils` and `SchedulerBase`; §15.4 of the spec
adds a few more.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import mmh3
import pytest

from compiler.execution import ExecutionJobVertex
from compiler.hashing import to_hex
from compiler.keygroups import (
    JavaKeyType,
    assign_key_to_parallel_operator,
    assign_to_key_group,
    compute_default_max_parallelism,
    compute_operator_index_for_key_group,
    java_hash_code,
    key_group_range,
    murmur_hash,
)
from compiler.pipeline import compile_document

FIXTURES = Path(__file__).resolve().parent / "data" / "fixtures"
FACTS: dict[str, Any] = json.loads((FIXTURES / "keygroups.json").read_text("utf-8"))


def _id(entry: dict[str, Any], *keys: str) -> str:
    return "-".join(f"{k}={entry[k]}" for k in keys)


def test_the_facts_file_is_what_these_tests_expect() -> None:
    assert FACTS["format"] == "keygroups/v1"
    assert FACTS["flinkVersion"] == "2.3.0"
    assert {a["javaType"] for a in FACTS["keyAssignments"]} == {"Integer", "Long", "String"}


@pytest.mark.parametrize(
    "entry",
    FACTS["defaultMaxParallelism"],
    ids=[_id(e, "parallelism") for e in FACTS["defaultMaxParallelism"]],
)
def test_default_max_parallelism(entry: dict[str, Any]) -> None:
    assert compute_default_max_parallelism(entry["parallelism"]) == entry["maxParallelism"]


@pytest.mark.parametrize(
    "entry",
    FACTS["keyGroupRanges"],
    ids=[_id(e, "maxParallelism", "parallelism") for e in FACTS["keyGroupRanges"]],
)
def test_key_group_ranges(entry: dict[str, Any]) -> None:
    max_parallelism, parallelism = entry["maxParallelism"], entry["parallelism"]
    ranges = [list(key_group_range(max_parallelism, parallelism, i)) for i in range(parallelism)]
    assert ranges == entry["ranges"]
    count = entry["operatorIndexOfKeyGroupCount"]
    assert len(entry["operatorIndexOfKeyGroup"]) == count
    indexes = [
        compute_operator_index_for_key_group(max_parallelism, parallelism, g) for g in range(count)
    ]
    assert indexes == entry["operatorIndexOfKeyGroup"]


def _key(entry: dict[str, Any]) -> tuple[object, JavaKeyType]:
    key_type = JavaKeyType(entry["javaType"])
    text = entry["key"]
    return (text if key_type is JavaKeyType.STRING else int(text)), key_type


@pytest.mark.parametrize(
    "entry",
    FACTS["keyAssignments"],
    ids=[
        f"{e['javaType']}:{e['key']!r}-{e['maxParallelism']}-{e['parallelism']}"
        for e in FACTS["keyAssignments"]
    ],
)
def test_key_assignment(entry: dict[str, Any]) -> None:
    key, key_type = _key(entry)
    max_parallelism, parallelism = entry["maxParallelism"], entry["parallelism"]
    assert java_hash_code(key, key_type) == entry["hashCode"]
    assert murmur_hash(entry["hashCode"]) == entry["murmurHash"]
    assert assign_to_key_group(key, max_parallelism, key_type) == entry["keyGroup"]
    operator = assign_key_to_parallel_operator(key, max_parallelism, parallelism, key_type)
    assert operator == entry["operatorIndex"]
    start, end = key_group_range(max_parallelism, parallelism, operator)
    assert start <= entry["keyGroup"] <= end


def _execution_vertices(fixture: str) -> dict[str, ExecutionJobVertex]:
    document = json.loads((FIXTURES / f"{fixture}.streamgraph.json").read_text("utf-8"))
    compilation = compile_document(document)
    assert compilation.ok, [str(d) for d in compilation.diagnostics]
    assert compilation.execution is not None
    return {to_hex(v.id): v for v in compilation.execution.vertices}


@pytest.mark.parametrize(
    "scenario", FACTS["scenarios"], ids=[s["fixture"] for s in FACTS["scenarios"]]
)
def test_scheduler_parallelism_and_key_groups(scenario: dict[str, Any]) -> None:
    vertices = _execution_vertices(scenario["fixture"])
    assert sorted(vertices) == sorted(v["id"] for v in scenario["vertices"])
    for expected in scenario["vertices"]:
        vertex = vertices[expected["id"]]
        assert vertex.job_vertex.name == expected["name"]
        assert vertex.parallelism == expected["parallelism"]
        assert vertex.job_vertex.max_parallelism == expected["jobGraphMaxParallelism"]
        assert vertex.max_parallelism == expected["maxParallelism"]
        assert vertex.max_parallelism_derived == (expected["jobGraphMaxParallelism"] == -1)
        ranges = [list(vertex.key_group_range(i)) for i in range(vertex.parallelism)]
        assert ranges == expected["keyGroupRanges"]


# §15.4 ----------------------------------------------------------------------------------------

# key, Java type, hashCode, murmurHash, key group (128), subtask (128, p=4), key group (32768)
SPEC_TABLE: list[tuple[object, JavaKeyType, int, int, int, int, int]] = [
    (0, JavaKeyType.INTEGER, 0, 593689054, 94, 2, 31198),
    (1, JavaKeyType.INTEGER, 1, 68075478, 86, 2, 16342),
    (1, JavaKeyType.LONG, 1, 68075478, 86, 2, 16342),
    (2, JavaKeyType.INTEGER, 2, 1085422463, 127, 3, 15231),
    (3, JavaKeyType.INTEGER, 3, 847579505, 113, 3, 2417),
    (42, JavaKeyType.INTEGER, 42, 1134849565, 29, 0, 28189),
    (-1, JavaKeyType.INTEGER, -1, 1982413648, 80, 2, 15184),
    (-2147483648, JavaKeyType.INTEGER, -2147483648, 1718298732, 108, 3, 10348),
    (2147483647, JavaKeyType.INTEGER, 2147483647, 1653689534, 62, 1, 19646),
    ("a", JavaKeyType.STRING, 97, 1455541201, 81, 2, 19409),
    ("A", JavaKeyType.STRING, 65, 743412968, 104, 3, 5352),
    ("B", JavaKeyType.STRING, 66, 1669454353, 17, 0, 23057),
    ("hello", JavaKeyType.STRING, 99162322, 1715862179, 35, 1, 31395),
    (True, JavaKeyType.BOOLEAN, 1231, 1090530765, 77, 2, 11725),
]


@pytest.mark.parametrize(
    ("key", "key_type", "hash_code", "murmur", "group_128", "subtask", "group_32768"),
    SPEC_TABLE,
    ids=[f"{row[1].value}:{row[0]!r}" for row in SPEC_TABLE],
)
def test_spec_key_table(
    key: object,
    key_type: JavaKeyType,
    hash_code: int,
    murmur: int,
    group_128: int,
    subtask: int,
    group_32768: int,
) -> None:
    assert java_hash_code(key, key_type) == hash_code
    assert java_hash_code(key) == hash_code  # the inferred Java type gives the same hash
    assert murmur_hash(hash_code) == murmur
    assert assign_to_key_group(key, 128, key_type) == group_128
    assert assign_key_to_parallel_operator(key, 128, 4, key_type) == subtask
    assert assign_to_key_group(key, 32768, key_type) == group_32768


def test_boolean_false_and_long_hash_codes() -> None:
    assert java_hash_code(False) == 1237
    assert java_hash_code(1 << 32, JavaKeyType.LONG) == 1
    assert java_hash_code(-1, JavaKeyType.LONG) == 0
    assert java_hash_code(1 << 40) == java_hash_code(1 << 40, JavaKeyType.LONG) == 256


def test_murmur_hash_is_never_negative() -> None:
    assert all(murmur_hash(code) >= 0 for code in range(-5000, 5000))


@pytest.mark.parametrize(
    ("parallelism", "expected"),
    [
        (1, 128),
        (2, 128),
        (4, 128),
        (10, 128),
        (85, 128),
        (86, 256),
        (100, 256),
        (128, 256),
        (170, 256),
        (171, 256),
        (1000, 2048),
        (21845, 32768),
        (21846, 32768),
        (32768, 32768),
    ],
)
def test_spec_default_max_parallelism(parallelism: int, expected: int) -> None:
    assert compute_default_max_parallelism(parallelism) == expected


@pytest.mark.parametrize("parallelism", [0, -1, 32769])
def test_default_max_parallelism_rejects_out_of_bounds(parallelism: int) -> None:
    with pytest.raises(ValueError, match="not within bounds"):
        compute_default_max_parallelism(parallelism)


@pytest.mark.parametrize(
    ("max_parallelism", "parallelism", "ranges"),
    [
        (128, 2, [(0, 63), (64, 127)]),
        (128, 3, [(0, 42), (43, 85), (86, 127)]),
        (128, 4, [(0, 31), (32, 63), (64, 95), (96, 127)]),
        (128, 5, [(0, 25), (26, 51), (52, 76), (77, 102), (103, 127)]),
        (128, 7, [(0, 18), (19, 36), (37, 54), (55, 73), (74, 91), (92, 109), (110, 127)]),
        (10, 3, [(0, 3), (4, 6), (7, 9)]),
    ],
)
def test_spec_key_group_ranges(
    max_parallelism: int, parallelism: int, ranges: list[tuple[int, int]]
) -> None:
    assert [key_group_range(max_parallelism, parallelism, i) for i in range(parallelism)] == ranges


def test_key_types_are_checked() -> None:
    with pytest.raises(ValueError, match="Integer"):
        java_hash_code(1 << 31, JavaKeyType.INTEGER)
    with pytest.raises(ValueError, match="Long"):
        java_hash_code(1 << 63, JavaKeyType.LONG)
    with pytest.raises(TypeError):
        java_hash_code("1", JavaKeyType.INTEGER)
    with pytest.raises(TypeError):
        java_hash_code(1, JavaKeyType.STRING)
    with pytest.raises(TypeError):
        java_hash_code(1, JavaKeyType.BOOLEAN)
    with pytest.raises(TypeError):
        java_hash_code(1.5)


# Tuple keys -------------------------------------------------------------------------------------
#
# Flink's TupleN.hashCode() is `int result = f0.hashCode(); result = 31 * result +
# f1.hashCode(); ...` in Java int arithmetic (Tuple0: 0), and a key's group is
# murmurHash(hashCode) % maxParallelism. The expected values below are worked out by hand
# from that: the fields' Java hash codes (Integer i -> i, Long v -> (int)(v ^ v >>> 32),
# String -> s.hashCode(), Boolean true -> 1231), the tuple's hash code, then the §15.4 row
# of the same hash code, which real Flink computed for an Integer key of that value. A
# tuple key with hash code h lands where Integer h lands.

# key, the tuple's Java hashCode, key group (128), subtask (128, p=4), key group (32768)
TUPLE_TABLE: list[tuple[tuple[object, ...], int, int, int, int]] = [
    ((), 0, 94, 2, 31198),  # Tuple0.hashCode() is 0: the row of 0
    ((0, 42), 42, 29, 0, 28189),  # 31 * 0 + 42
    ((1, -30), 1, 86, 2, 16342),  # 31 * 1 - 30
    (("A", -2013), 2, 127, 3, 15231),  # 31 * 65 - 2013 ("A".hashCode() is 65)
    ((0, 1 << 32), 1, 86, 2, 16342),  # a Long field: (int)(2^32 ^ 1) = 1
    ((True,), 1231, 77, 2, 11725),  # Tuple1: the field's hash alone (Boolean.TRUE)
    (("hello",), 99162322, 35, 1, 31395),
    (((0, 1), -28), 3, 113, 3, 2417),  # nested: inner 31 * 0 + 1 = 1, outer 31 * 1 - 28
    # 31 * 2147483647 wraps to 2147483617 in Java; + 31 wraps to Integer.MIN_VALUE.
    ((2147483647, 31), -2147483648, 108, 3, 10348),
]


@pytest.mark.parametrize(
    ("key", "hash_code", "group_128", "subtask", "group_32768"),
    TUPLE_TABLE,
    ids=[repr(row[0]) for row in TUPLE_TABLE],
)
def test_tuple_keys_hash_as_flinks_tuples(
    key: tuple[object, ...], hash_code: int, group_128: int, subtask: int, group_32768: int
) -> None:
    assert java_hash_code(key) == java_hash_code(key, JavaKeyType.TUPLE) == hash_code
    assert assign_to_key_group(key, 128) == group_128
    assert assign_key_to_parallel_operator(key, 128, 4) == subtask
    assert assign_to_key_group(key, 32768) == group_32768


def _flink_murmur(code: int) -> int:
    """`MathUtils.murmurHash(int)` is MurmurHash3 x86_32 (seed 0) of the int's four
    little-endian bytes, made non-negative (Integer.MIN_VALUE -> 0): mmh3 computes it
    here independently of `compiler.keygroups`."""
    value = mmh3.hash(struct.pack("<i", code), 0, signed=True)
    return value if value >= 0 else (-value if value != -(1 << 31) else 0)


def test_the_tuple_key_of_the_issue_routes_as_flink_routes_it() -> None:
    # Tuple2(1, 10000001): 31 * Integer(1).hashCode() + Integer(10000001).hashCode().
    key = (1, 10000001)
    assert java_hash_code(key) == 31 * 1 + 10000001 == 10000032
    assert _flink_murmur(10000032) == 15868712
    # Key group 15868712 % 128 = 40; with 4 subtasks 40 * 4 // 128 = 1.
    assert assign_to_key_group(key, 128) == 15868712 % 128 == 40
    assert assign_key_to_parallel_operator(key, 128, 4) == 1
    assert assign_to_key_group(key, 32768) == 15868712 % 32768 == 9000
    # The same independent murmur agrees with the §15.4 rows used above.
    assert [_flink_murmur(code) for code in (0, 42, 1231)] == [593689054, 1134849565, 1090530765]


def test_tuple_keys_are_checked() -> None:
    with pytest.raises(TypeError, match="keys must be int, str, bool or a tuple of them"):
        java_hash_code((1, 1.5))
    with pytest.raises(TypeError):
        java_hash_code((1, None))
    with pytest.raises(ValueError, match="at most 25"):
        java_hash_code(tuple(range(26)))
    assert java_hash_code(tuple([0] * 25)) == 0
    with pytest.raises(TypeError):
        java_hash_code(1, JavaKeyType.TUPLE)
