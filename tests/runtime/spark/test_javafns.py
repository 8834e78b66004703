"""The SQL path's Java functions (`make spark-jar`) against Flink's own figures and the
Python runtime's routing: the same hash, key group and subtask for every key."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from compiler.keygroups import assign_key_to_parallel_operator, java_hash_code
from runtime.operators.sources import text_lines
from runtime.spark.javafns import available, text_frame
from runtime.spark.session import Session

FIXTURES = Path(__file__).resolve().parents[2] / "compiler" / "data" / "fixtures"
FACTS: dict[str, Any] = json.loads((FIXTURES / "keygroups.json").read_text("utf-8"))


@pytest.fixture
def sql(spark: Session) -> Any:
    assert available(spark.spark), "the Java functions are missing: make spark-jar"
    return spark.spark


def _literal(key: Any) -> Any:
    """A Spark column of `key` as the SQL path types it: ints are bigint, tuples structs."""
    from pyspark.sql import functions as F

    if isinstance(key, tuple):
        return F.struct(*[_literal(field).alias(f"_{i}") for i, field in enumerate(key)])
    if isinstance(key, (bool, str)):
        return F.lit(key)
    return F.lit(key).cast("bigint")


def test_flink_key_assignments(sql: Any) -> None:
    from pyspark.sql import functions as F

    entries = FACTS["keyAssignments"]
    columns = []
    for index, entry in enumerate(entries):
        text, kind = entry["key"], entry["javaType"]
        key = (
            F.lit(text)
            if kind == "String"
            else F.lit(int(text)).cast("int" if kind == "Integer" else "bigint")
        )
        maxp, p = entry["maxParallelism"], entry["parallelism"]
        columns += [
            F.call_function("sg_key_hash", key, F.lit(False)).alias(f"h{index}"),
            F.call_function("sg_subtask", key, F.lit(False), F.lit(maxp), F.lit(maxp)).alias(
                f"g{index}"
            ),
            F.call_function("sg_subtask", key, F.lit(False), F.lit(maxp), F.lit(p)).alias(
                f"s{index}"
            ),
        ]
    row = sql.range(1).select(*columns).first()
    for index, entry in enumerate(entries):
        assert (row[f"h{index}"], row[f"g{index}"], row[f"s{index}"]) == (
            entry["hashCode"],
            entry["keyGroup"],
            entry["operatorIndex"],
        ), entry


KEYS: list[Any] = [
    0, 1, -1, 7, 2**31 - 1, -(2**31), 2**31, -(2**31) - 1, 2**40 + 3, -(2**63), 2**63 - 1,
    "", "word", "Straße", "ÉTÉ", "naïve", "日本語", "emoji 😀 pair", "a\tb",
    True, False,
    (1, "a"), ("a", 1), (True, 2**40), (1, (2, "x"), False), ("only",),
]  # fmt: skip


@pytest.mark.parametrize("parallelism", [1, 2, 3, 4, 8, 128])
def test_the_runtime_rules_for_every_key_type(sql: Any, parallelism: int) -> None:
    from pyspark.sql import functions as F

    maxp = 128 if parallelism <= 85 else 256
    columns = []
    for index, key in enumerate(KEYS):
        column = _literal(key)
        columns += [
            F.call_function("sg_key_hash", column, F.lit(True)).alias(f"h{index}"),
            F.call_function("sg_subtask", column, F.lit(True), F.lit(maxp), F.lit(parallelism))
            .alias(f"s{index}"),
        ]  # fmt: skip
    row = sql.range(1).select(*columns).first()
    for index, key in enumerate(KEYS):
        assert row[f"h{index}"] == java_hash_code(key), key
        assert row[f"s{index}"] == assign_key_to_parallel_operator(key, maxp, parallelism), key


@pytest.mark.parametrize("partitions", [1, 2, 3, 4, 5, 8, 16])
def test_partition_codes_land_on_their_partition(sql: Any, partitions: int) -> None:
    from pyspark.sql import functions as F

    codes = sql.range(partitions).select(
        F.col("id").cast("int").alias("subtask"),
        F.call_function("sg_partition_code", F.col("id").cast("int"), F.lit(partitions)).alias(
            "code"
        ),
    )
    placed = codes.repartition(partitions, "code").rdd.glom().collect()
    assert [[row.subtask for row in part] for part in placed] == [[i] for i in range(partitions)]


def test_text_ranges_split_lines_as_the_text_source(sql: Any, tmp_path: Path) -> None:
    files = [tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"]
    files[0].write_bytes(b"one two\r\nthree\n\nfour five six\nseven")
    files[1].write_bytes("é ü\nbad \xff byte\nx\n".encode("utf-8", "surrogateescape"))
    files[2].write_bytes(b"")
    for parallelism in (1, 2, 3, 5):
        frame, _ = text_frame(sql, [f.as_uri() for f in files], parallelism)
        parts = frame.rdd.glom().collect()
        assert [[row.subtask for row in part] for part in parts] == [
            [i] * len(part) for i, part in enumerate(parts)
        ]
        assert [[row.value for row in part] for part in parts] == [
            list(text_lines(files, i, parallelism)) for i in range(parallelism)
        ]


def test_text_ranges_replace_bad_utf8_as_python_does(sql: Any, tmp_path: Path) -> None:
    """Every ill-formed sequence becomes the U+FFFD Python's "replace" makes of it (Java's
    decoder makes one of an encoded surrogate, Python three): each lead byte with every
    byte after it, and each multi-byte lead with every second byte and telling thirds
    and fourths, cut short too."""
    tails = (b"", b"\x00", b"A", b"\x80", b"\x8f", b"\x90", b"\xbf", b"\xc0", b"\xff")
    lines = [bytes([lead, second]) for lead in range(0x80, 0x100) for second in range(0x100)]
    lines += [
        bytes([lead, second]) + third + fourth
        for lead in range(0xE0, 0xF5)
        for second in range(0x80, 0xC0)
        for third in tails
        for fourth in tails[:5]
    ]
    text = b"\n".join(
        b"<" + line.replace(b"\n", b"n").replace(b"\r", b"r") + b">" for line in lines
    )
    file = tmp_path / "bad.txt"
    file.write_bytes(text)
    for parallelism in (1, 3):
        frame, _ = text_frame(sql, [file.as_uri()], parallelism)
        got = [[row.value for row in part] for part in frame.rdd.glom().collect()]
        assert got == [list(text_lines([file], i, parallelism)) for i in range(parallelism)]


def _case_texts() -> list[str]:
    """Every code point Python's case tables name (mapped, cased or case-ignorable, and the
    neighbours of each range), a sample of the others, each alone and around a capital
    sigma, and random mixtures of the telling ones."""
    from runtime.spark.casetables import is_case_ignorable, is_cased

    rng = random.Random(25)
    points = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    telling = [
        c
        for c in points
        if chr(c).lower() != chr(c) or chr(c).upper() != chr(c) or is_cased(chr(c))
        or is_case_ignorable(chr(c))
    ]  # fmt: skip
    chosen = sorted(
        set(telling) | {c + d for c in telling for d in (-1, 1)} - set(range(0xD800, 0xE000))
    )
    chosen = [c for c in chosen if 0 <= c < 0x110000] + rng.sample(points, 3000)
    texts = []
    for c in chosen:
        char = chr(c)
        texts += [char, f"A{char}\u03a3", f"{char}\u03a3", f"A\u03a3{char}", f"\u03a3{char}a"]
    alphabet = [chr(c) for c in rng.sample(telling, 200)] + list("ΣσςAa .'\u0345\u1ad0")
    texts += ["".join(rng.choices(alphabet, k=rng.randint(1, 12))) for _ in range(3000)]
    return [*texts, "", "plain ascii Words", "ΟΔΟΣ Σ", "straße ﬁne ŉ ᾳ İstanbul ǅ"]


def test_case_maps_are_pythons(sql: Any) -> None:
    from pyspark.sql import functions as F

    frame = sql.createDataFrame([(t,) for t in _case_texts()], "t string")
    upper = F.call_function("sg_upper", F.col("t"))
    rows = frame.select(
        "t",
        F.call_function("sg_lower", F.col("t")).alias("lower"),
        upper.alias("upper"),
        F.call_function("sg_lower", upper).alias("lower_of_upper"),
    ).collect()
    for row in rows:
        text = row.t
        assert (row.lower, row.upper, row.lower_of_upper) == (
            text.lower(),
            text.upper(),
            text.upper().lower(),
        ), repr(text)


def test_split_is_pythons_split(sql: Any) -> None:
    from pyspark.sql import functions as F

    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    lookalikes = ["\u200b", "\ufeff", "\u180e", "\u00ad", "_", "\x00", "\x7f", "😀"]
    texts = [
        "",
        " ",
        "one",
        "  two  words  ",
        *(f"a{s}b{s}{s}c{s}" for s in spaces),
        *(f"{s}x{s}" for s in lookalikes),
        "mixed\t\n\u3000words\u00a0and😀pairs\u2028end",
    ]
    frame = sql.createDataFrame([(t,) for t in texts], "t string")
    rows = frame.select("t", F.call_function("sg_split", F.col("t")).alias("w")).collect()
    for row in rows:
        assert row.w == row.t.split(), repr(row.t)
