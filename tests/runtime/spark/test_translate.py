"""Expressions translated to Spark SQL give what the Python chain gives, value for value,
and the ones whose meaning could differ are refused."""

from __future__ import annotations

import random
from typing import Any

import pytest

from runtime.expressions import compile_expression
from runtime.spark.errors import python_error_text
from runtime.spark.session import Session
from runtime.spark.translate import Col, Tup, Untranslatable, leaves, python_value, translate

TEXTS = [
    "Hello World", "  leading and trailing  ", "", "tabs\tand\nnewlines\r\n", "a,b,,c,",
    "Straße ÉTÉ naïve", "ΟΔΟΣ Σ", "a.b|c\\\\d..e||", "ßaß", "İstanbul", "日本語 テキスト",
    "emoji 😀 pair",
    "nbsp\u00a0and\u3000ideographic\u2028line", "x", "a--b--", ",", "ǅ titlecase",
    "ﬁne ŉ ᾳ", "\u1c89\ua7cb\U00010d50 newer Unicode", "AΣ\u1ad0 mark",
    "abß\u2028", "x,,\n", "ß,\r\n", "\u0085,a,", ",a\u2029",
]  # fmt: skip
INTS = [0, 1, -1, 7, -13, 2**31, -(2**31) - 5, 10**15, 123456789]

TEXT_EXPRESSIONS = [
    "x.lower()", "x.upper()", "x.strip()", "x.lstrip()", "x.rstrip()", "x.strip(' ,')",
    "x.split()", "x.split(',')", "x.split('--')", "x.lower().split()", "len(x)",
    "len(x.split())", "x + '!'", "x.replace('a', 'AA')", "x.startswith('a')",
    "x.endswith(',')", "(x, 1)", "(x.lower(), len(x), len(x) > 3)", "x == 'x'",
    "x < 'b'", "x >= 'a' and x != ''", "not x.startswith(' ')", "'big' if len(x) > 5 else x",
    "(x, (len(x), x.upper()))[1][0]", "str(len(x))", "str(len(x) > 2)",
    "x.upper().lower()", "x.lower().upper()", "len(x.upper())", "x.rstrip('ß')",
    "x.lstrip(',')", "x.strip(',ß')", "x.rstrip()", "x.split('.')", "x.split('|')",
    "x.split('ß')", "x.split('\\\\')", "x.split('😀')", "x.split('a')", "x.split('\\n')",
]  # fmt: skip
INT_EXPRESSIONS = [
    "x + 1", "x - 3", "x * 2", "x * 2.5", "x % 7", "x % 2 == 0", "-x", "abs(x)",
    "(x, x % 3)", "str(x)", "x > 3 and x < 100", "x if x > 0 else -x", "1 < x <= 7",
    "x + 0.5 > 2.0",
]  # fmt: skip
REFUSED = [
    ("x / 2", "int"), ("x // 2", "int"), ("x % y", "int"), ("x % -3", "int"), ("x[0]", "str"),
    ("[w for w in x]", "str"), ("x.title()", "str"), ("sorted(x)", "str"), ("x == 1", "str"),
    ("x + 1", "str"), ("len(x, 2)", "str"), ("x.split(sep=',')", "str"),
    ("x.replace('', 'a')", "str"), ("max(x, 'a')", "str"), ("(x, 1)[2]", "str"),
    ("x + 0.5 > 2", "int"), ("x * 'ab'", "int"), ("x % 2", "str"), ("x.lower()", "int"),
    ("x.split()[i]", "str"), ("x.split()[1:]", "str"), ("x[0]", "int"), ("int(x, 16)", "str"),
    ("int(x.split())", "str"), ("int(x) > 1 and False", "str"), ("True or x[0] == 'a'", "strs"),
]  # fmt: skip
FIELDS = [
    "a,1,b", "Straße, 42 ,ÉTÉ", ",-7,", "x,+3,y,z", "日本語,١٢,😀", "a,\u00a05\u2003,b",
    "a,1_000,b", "a,0007,b", "q,𝟕,r", "a,\U00016ac3,b", "a,-0,b", "a,9223372036854775807,b",
    "a,-9223372036854775808,b", "a,\x0b5\x0c,b", "a,5\x85,b",
]  # fmt: skip
"""CSV lines whose second field Python's int() reads: Unicode digits (one newer than
Java's own tables) and spaces, signs, underscores, the ends of 64 bits."""
FIELD_EXPRESSIONS = [
    "x.split(',')[0]", "x.split(',')[-1]", "x.split(',')[-3]", "int(x.split(',')[1])",
    "(x.split(',')[0], int(x.split(',')[1]) % 10)", "int(x.split(',')[1].strip())",
    "len(x.split(',')[2])", "int(len(x) > 8)", "int(len(x) * 0.7)", "int(-len(x) * 0.7)",
    "int(len(x))", "x.split(',')[1].split()",
]  # fmt: skip


def _python(value: Any) -> Any:
    """Spark's row values as Python's: arrays as lists, rows as tuples."""
    if isinstance(value, tuple):
        return tuple(_python(v) for v in value)
    if isinstance(value, list):
        return [_python(v) for v in value]
    return value


def _check(spark: Any, column_type: str, values: list[Any], expressions: list[str]) -> None:
    from pyspark.sql import functions as F

    frame = spark.createDataFrame([(v,) for v in values], f"x {column_type}")
    source = Col(F.col("x"), "str" if column_type == "string" else "int")
    translated = [translate(text, {"x": source}) for text in expressions]
    columns = []
    for index, value in enumerate(translated):
        columns += [leaf.column.alias(f"e{index}_{n}") for n, leaf in enumerate(leaves(value))]
    rows = frame.select(F.col("x"), *columns).collect()
    for row in rows:
        cells = list(row)[1:]
        for text, value in zip(expressions, translated, strict=True):
            count = len(leaves(value))
            got = _python(python_value(value, cells[:count]))
            cells = cells[count:]
            expected = compile_expression(text, ("x",)).function(row["x"])
            assert got == expected, (text, row["x"])
            if isinstance(value, Col) and value.kind != "strs":
                assert type(got) is type(expected), (text, row["x"])


def test_text_expressions(spark: Session) -> None:
    _check(spark.spark, "string", TEXTS, TEXT_EXPRESSIONS)


def test_int_expressions(spark: Session) -> None:
    _check(spark.spark, "bigint", INTS, INT_EXPRESSIONS)


def test_items_of_a_split_and_ints_of_text(spark: Session) -> None:
    _check(spark.spark, "string", FIELDS, FIELD_EXPRESSIONS)


def _int_texts(rng: random.Random) -> list[str]:
    """Texts made of what Python's int() reads or refuses: digits of many scripts (Java's
    own tables lack some), spaces (ASCII's and others), signs, underscores, look-alikes."""
    pieces = [
        *"0123456789", *"0123456789", "_", "+", "-", " ", "\t", "\x0b", "\x1c", "\x85",
        "\u00a0", "\u2003", "\u3000", "٣", "۷", "९", "𝟕", "\U00016ac3", "\U0001e950",
        "²", "½", "Ⅻ", "a", "e", "x", ".", "0x", "\u200b", "\ufeff",
    ]  # fmt: skip
    texts = ["", " ", "_", "+", "-", "1_000_000", "1__0", "_1", "1_", "+_1", "- 5", "٣٣٣"]
    texts += ["9223372036854775807", "-9223372036854775808", "0" * 40 + "12", "0_0"]
    for _ in range(3000):
        texts.append("".join(rng.choice(pieces) for _ in range(rng.randint(1, 7))))
    return texts


def test_int_of_text_reads_what_pythons_int_reads(spark: Session) -> None:
    """`sg_int` against Python's int() text by text: the same int, or both refuse it;
    an int beyond 64 bits is refused by name."""
    parse = spark.context._jvm.streamgraph.spark.PythonInt.parse
    texts = _int_texts(random.Random(7))
    texts += ["9223372036854775808", "-9223372036854775809", "1" * 30, "+" + "9" * 19]
    for text in texts:
        try:
            expected: int | None = int(text)
        except ValueError:
            expected = None
        if expected is not None and not -(1 << 63) <= expected < 1 << 63:
            with pytest.raises(Exception, match="beyond 64 bits"):
                parse(text)
            continue
        assert parse(text) == expected, repr(text)


_NOT_AN_INT = "ValueError: invalid literal for int() with base 10"


@pytest.mark.parametrize(
    ("line", "expression", "words"),
    [
        ("a,b", "x.split(',')[2]", "IndexError: list index out of range"),
        ("a,b", "x.split(',')[-3]", "IndexError: list index out of range"),
        ("a,x7,b", "int(x.split(',')[1])", f"{_NOT_AN_INT}: 'x7'"),
        ("a,²,b", "int(x.split(',')[1])", f"{_NOT_AN_INT}: '²'"),
        ("it's", "int(x)", f'{_NOT_AN_INT}: "it\'s"'),
    ],
)  # fmt: skip
def test_what_python_raises_fails_the_query_with_pythons_words(
    spark: Session, line: str, expression: str, words: str
) -> None:
    from pyspark.sql import functions as F

    with pytest.raises(Exception) as raised:
        compile_expression(expression, ("x",)).function(line)
    assert f"{raised.type.__name__}: {raised.value}" == words
    frame = spark.spark.createDataFrame([(line,)], "x string")
    value = translate(expression, {"x": Col(F.col("x"), "str")}, "Map (node 2)")
    assert isinstance(value, Col)
    with pytest.raises(Exception) as failed:
        frame.select(value.column).collect()
    assert python_error_text(str(failed.value)) == f"Map (node 2): {words}"


@pytest.mark.parametrize(("text", "kind"), REFUSED)
def test_what_could_mean_something_else_is_refused(spark: Session, text: str, kind: str) -> None:
    from pyspark.sql import functions as F

    with pytest.raises(Untranslatable):
        translate(text, {"x": Col(F.col("x"), kind), "y": Col(F.col("y"), "int")})


def test_tuples_stay_apart_field_by_field(spark: Session) -> None:
    from pyspark.sql import functions as F

    record = Tup((Col(F.col("w"), "str"), Col(F.col("n"), "int")))
    value = translate("(x[1] + 1, x[0])", {"x": record})
    assert isinstance(value, Tup) and [leaf.kind for leaf in leaves(value)] == ["int", "str"]
