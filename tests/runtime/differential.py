"""Random runnable pipelines and their inputs, for differential tests of the executors.

`Generator(seed)` draws pipelines from the operator catalog the way users build them: a
source (text, file, sequence, generator, collection, CSV, JSON lines), a chain of
`map`, `filter` and `flat_map`, an edge (HASH with a key read from the record, a
constant, a tuple of fields, or another partitioner), a consumer (every keyed kind,
every window kind but the processing-time ones, or a plain transform behind the keyed
edge), maybe more operators, and `sink.collect`. Every expression is drawn typed, from
the record's type, so the pipelines are runnable and their Python never raises: half of
what is drawn is in the subset the Spark SQL path translates (`runtime.spark.translate`),
the rest just outside it, so both the SQL path and its refusals are exercised.

A *batch* is several such pipelines side by side in one document (one Spark job runs
them all), with the same runtime mode and the data they read (`write_inputs`). Each
pipeline keeps a `Case` of its own: its nodes, so that a difference found in a batch is
reported as the one pipeline that shows it, as a document that runs alone.

Processing-time windows are left out: they read the clock, so two runs differ by design.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tests.runtime.builders import Doc

# -- types of records --------------------------------------------------------------------

STR, INT, BOOL, FLOAT, STRS = "str", "int", "bool", "float", "strs"
LINE, FIELDS = "line", "fields"
"""A line of `fields.csv` (a str of three comma-separated fields, the middle one text
Python's int() reads), and that line split at its commas (a list of those three str)."""
SCALARS = (STR, INT, BOOL, FLOAT)
KEYABLE = (STR, INT, BOOL, LINE)


@dataclass(frozen=True)
class Dict:
    """A dict record with these fields (JSON lines, CSV with a header)."""

    fields: tuple[tuple[str, Any], ...]


Type = Any
"""A scalar's name, `STRS` (a list of str), `LINE`, `FIELDS`, a tuple of types, or a
`Dict`."""

WIDER = {STR: (STR, LINE), STRS: (STRS, FIELDS)}
"""Where a value of a type is wanted, the narrower types that are one too."""


def hashable(kind: Type) -> bool:
    if isinstance(kind, tuple):
        return bool(kind) and all(hashable(part) for part in kind)
    return kind in KEYABLE


# -- inputs ------------------------------------------------------------------------------

WORDS = (
    *("to", "be", "or", "not", "that", "is", "the", "question", "a", "bb", "ccc"),
    *("Straße", "STRASSE", "straße", "ÉTÉ", "été", "naïve", "日本語", "😀", "İstanbul"),
    *("ΟΔΟΣ", "Σ", "ﬁne", "ǅemal", "x,y", "a,,b", "--", "42", "-7", "3.5", "True", ""),
    *("ab\u00a0cd", "tab\tbed", "e\u2003m", "\u200b", "ﬀ", "ŉ", "Ǆ", "ß", "ᾳ", "K"),
    *("\u1c89\ua7cb", "AΣ\u1ad0", "ΣA", "\U00010d50x"),
)
"""Words whose case maps, splits and lengths differ between naive implementations, and
characters a newer Unicode than Python's cases."""
SEPARATORS = (" ", "  ", "\t", " \u00a0", "\u3000", "\x0b", "\x1c", "\u2028", "\x85", ",")
ENCODED_ODDITIES = (b"\xff", b"\xe2\x82", b"\xed\xa0\x80", b"\xf0\x9f\x98", b"\xc0\xaf")
"""Invalid UTF-8 that decoders replace (and count) differently when done carelessly."""
INT_TEXTS = (
    *("0", "7", "-3", "+12", " 42 ", "\u00a05\u2003", "1_000", "0007", "-0", "\t8\x0b"),
    *("٣", "١٢", "𝟕", "९", "\U00016ac3", "5\x85", "\u3000-99"),
)
"""Text Python's int() reads: Unicode digits (one newer than Java's tables) and spaces,
signs, underscores, leading zeros."""


def write_inputs(folder: Path, rng: random.Random) -> None:
    """The files every generated source reads, under `folder`."""
    (folder / "text").mkdir(parents=True)
    for name in ("a.txt", "b.txt"):
        lines: list[bytes] = []
        for _ in range(rng.randint(40, 160)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(0, 9))]
            line = "".join(word + rng.choice(SEPARATORS) for word in words).encode()
            if rng.random() < 0.05:
                line += rng.choice(ENCODED_ODDITIES)
            if rng.random() < 0.2:
                line += b"\r"
            lines.append(line)
        ending = b"\n" if rng.random() < 0.5 else b""
        (folder / "text" / name).write_bytes(b"\n".join(lines) + ending)
    rows = []
    for index in range(rng.randint(5, 60)):
        rows.append(f"{rng.choice(WORDS[:11])},{index % 7},{rng.choice(('x', 'yy', ''))}")
    (folder / "rows.csv").write_text("\n".join(rows) + "\n", "utf-8")
    (folder / "named.csv").write_text("w,n,t\n" + "\n".join(rows) + "\n", "utf-8")
    records = [
        json.dumps({"w": rng.choice(WORDS), "n": rng.randint(-20, 20)}, ensure_ascii=False)
        for _ in range(rng.randint(5, 60))
    ]
    (folder / "records.jsonl").write_text("\n".join(records) + "\n", "utf-8")
    plain = [word for word in WORDS if "," not in word]
    fields = [
        f"{rng.choice(plain)},{rng.choice(INT_TEXTS)},{rng.choice(plain)}"
        for _ in range(rng.randint(5, 80))
    ]
    (folder / "fields.csv").write_text("\n".join(fields) + "\n", "utf-8")


# -- expressions -------------------------------------------------------------------------


class Expressions:
    """Typed expressions over variables of known types, drawn at random.

    `draw(want, depth)` gives the text of an expression of type `want`. `fast` is the
    share of choices made from what the SQL path translates; the others come from what
    it does not, so the refusals are exercised too. Nothing drawn raises for values of
    the variables' types, and ints stay far inside 64 bits."""

    def __init__(self, rng: random.Random, variables: dict[str, Type], fast: float) -> None:
        self.rng = rng
        self.variables = variables
        self.fast = fast

    def paths(self, want: Type) -> list[str]:
        """The variables and fields of variables that have type `want`."""
        found: list[str] = []

        def walk(text: str, kind: Type, depth: int) -> None:
            if kind in WIDER.get(want, (want,)):
                found.append(text)
            if depth >= 2:
                return
            if isinstance(kind, tuple):
                for index, part in enumerate(kind):
                    walk(f"{text}[{index}]", part, depth + 1)
                    if self.rng.random() < 0.2:
                        walk(f"{text}[{index - len(kind)}]", part, depth + 1)
            elif isinstance(kind, Dict):
                for name, part in kind.fields:
                    walk(f"{text}[{name!r}]", part, depth + 1)

        for name, kind in self.variables.items():
            walk(name, kind, 0)
        return found

    def draw(self, want: Type, depth: int = 0) -> str:
        rng = self.rng
        if isinstance(want, tuple):
            return "(" + "".join(self.draw(part, depth + 1) + ", " for part in want) + ")"
        if isinstance(want, Dict):
            inner = ", ".join(
                f"{name!r}: {self.draw(part, depth + 1)}" for name, part in want.fields
            )
            return "{" + inner + "}"
        paths = self.paths(want)
        if paths and (depth >= 3 or rng.random() < 0.35):
            return rng.choice(paths)
        if depth >= 3:
            return self.literal(want)
        fast = rng.random() < self.fast
        forms = getattr(self, f"_{want}")(depth + 1, fast)
        return rng.choice(forms)()

    def literal(self, want: Type) -> str:
        rng = self.rng
        if want == STR:
            return repr(rng.choice(("a", "", "all", "ß", " x ", "日", "a,b")))
        if want == INT:
            return str(rng.choice((0, 1, 2, 3, 7, -1, -5, 10, 100)))
        if want == BOOL:
            return rng.choice(("True", "False"))
        if want == FLOAT:
            return rng.choice(("0.5", "-1.25", "2.0", "0.1", "-0.0"))
        if want == STRS:
            if rng.random() < self.fast:
                return repr(rng.choice(("a b", "", "x,y"))) + ".split()"
            return repr(rng.choice((["a"], [], ["x", "y"])))
        if want == LINE:
            return repr(f"a,{rng.choice(INT_TEXTS)},b")
        if want == FIELDS:
            return f"{self.literal(LINE)}.split(',')"
        raise AssertionError(want)

    def _line(self, d: int, fast: bool) -> list[Any]:
        return [lambda: self.literal(LINE)]

    def _fields(self, d: int, fast: bool) -> list[Any]:
        x = partial(self.draw, depth=d)
        return [lambda: f"{x(LINE)}.split(',')"]

    def _splits(self) -> bool:
        """Whether a line or its fields are at hand (their forms are drawn only then)."""
        return bool(self.paths(LINE) or self.paths(FIELDS))

    def _str(self, d: int, fast: bool) -> list[Any]:
        x = partial(self.draw, depth=d)
        chars = self.rng.choice(("a", ".,", " x", "ß"))
        if fast:
            return [
                lambda: self.literal(STR),
                lambda: f"{x(STR)}.lower()",
                lambda: f"{x(STR)}.upper()",
                lambda: f"{x(STR)}.strip()",
                lambda: f"{x(STR)}.lstrip()",
                lambda: f"{x(STR)}.rstrip({chars!r})",
                lambda: f"{x(STR)}.replace({chars!r}, 'e')",
                lambda: f"({x(STR)} + {x(STR)})",
                lambda: f"str({x(INT)})",
                lambda: f"str({x(BOOL)})",
                lambda: f"({x(STR)} if {x(BOOL)} else {x(STR)})",
                *self._items(d),
            ]
        return [
            lambda: f"{x(STR)}[:2]",
            lambda: f"{x(STR)}.title()",
            lambda: f"{x(STR)}[::-1]",
            lambda: f"' '.join({x(STRS)})",
            lambda: f"{x(STR)}[1:]",
            lambda: f"str({x(FLOAT)})",
            lambda: f"str({x(INT)} / 8)",
        ]

    def _int(self, d: int, fast: bool) -> list[Any]:
        x = partial(self.draw, depth=d)
        small = self.rng.choice((1, 2, 3, 5, 7, 10))
        if fast:
            return [
                lambda: self.literal(INT),
                lambda: f"len({x(STR)})",
                lambda: f"len({x(STRS)})",
                lambda: f"({x(INT)} + {x(INT)})",
                lambda: f"({x(INT)} - {x(INT)})",
                lambda: f"({x(INT)} * {small})",
                lambda: f"({x(INT)} % {small})",
                lambda: f"(-{x(INT)})",
                lambda: f"abs({x(INT)})",
                lambda: f"({x(INT)} if {x(BOOL)} else {x(INT)})",
                lambda: f"int({x(BOOL)})",
                lambda: f"int({x(FLOAT)} * 3)",
                *self._ints(d),
            ]
        return [
            lambda: f"({x(INT)} // {small})",
            lambda: f"({x(INT)} % -{small})",
            lambda: f"{x(STR)}.count('a')",
            lambda: f"{x(STR)}.find('e')",
            lambda: f"int({x(STR)}.isdigit())",
            lambda: f"max({x(INT)}, {x(INT)})",
            lambda: f"round({x(FLOAT)})",
            lambda: f"sum([{x(INT)}, {x(INT)}])",
        ]

    def _items(self, d: int) -> list[Any]:
        """Fields of a line: by index from either end (there are always three)."""
        if not self._splits():
            return []
        x = partial(self.draw, depth=d)
        index = self.rng.choice((0, 1, 2, -1, -2, -3))
        forms = [lambda: f"{x(FIELDS)}[{index}]", lambda: f"{x(LINE)}.split(',')[{index}]"]
        return forms * 3  # drawn often where there are fields: it is what they are for

    def _ints(self, d: int) -> list[Any]:
        """The middle field of a line read as an int, as CSV pipelines do."""
        if not self._splits():
            return []
        x = partial(self.draw, depth=d)
        index = self.rng.choice((1, -2))
        forms = [lambda: f"int({x(FIELDS)}[{index}])", lambda: f"int({x(FIELDS)}[1].strip())"]
        return forms * 3

    def _bool(self, d: int, fast: bool) -> list[Any]:
        x = partial(self.draw, depth=d)
        op = self.rng.choice(("==", "!=", "<", "<=", ">", ">="))
        kind = self.rng.choice(SCALARS)
        if fast:
            return [
                lambda: self.literal(BOOL),
                lambda: f"({x(kind)} {op} {x(kind)})",
                lambda: f"{x(STR)}.startswith({self.rng.choice(('a', 't', ''))!r})",
                lambda: f"{x(STR)}.endswith({self.rng.choice(('e', 'ß', ''))!r})",
                lambda: f"(not {x(BOOL)})",
                lambda: f"({x(BOOL)} and {x(BOOL)})",
                lambda: f"({x(BOOL)} or {x(BOOL)})",
                lambda: f"({x(INT)} {op} {x(INT)} {op} {x(INT)})",
            ]
        return [
            lambda: f"{x(STR)}.isdigit()",
            lambda: f"{x(STR)}.isalpha()",
            lambda: f"('a' in {x(STR)})",
            lambda: f"({x(INT)} in (1, 2, 3))",
            lambda: f"bool({x(STR)})",
            lambda: f"({x(INT)} == {x(FLOAT)})",
        ]

    def _float(self, d: int, fast: bool) -> list[Any]:
        x = partial(self.draw, depth=d)
        if fast:
            return [
                lambda: self.literal(FLOAT),
                lambda: f"({x(FLOAT)} + {x(FLOAT)})",
                lambda: f"({x(INT)} * 0.5)",
                lambda: f"({x(FLOAT)} - {x(INT)})",
                lambda: f"abs({x(FLOAT)})",
                lambda: f"(-{x(FLOAT)})",
                lambda: f"({x(FLOAT)} if {x(BOOL)} else {x(FLOAT)})",
            ]
        return [
            lambda: f"({x(INT)} / 4)",
            lambda: f"float({x(INT)})",
            lambda: f"round({x(FLOAT)}, 1)",
        ]

    def _strs(self, d: int, fast: bool) -> list[Any]:
        x = partial(self.draw, depth=d)
        if fast:
            return [
                lambda: f"{x(STR)}.split()",
                lambda: f"{x(STR)}.split({self.rng.choice((',', 'a', ' '))!r})",
                lambda: f"{x(STR)}.lower().split()",
            ]
        return [
            lambda: f"{x(STR)}.split()[:3]",
            lambda: f"[{x(STR)}, {x(STR)}]",
            lambda: f"list({x(STR)})",
            lambda: f"{x(STR)}.rsplit(' ', 1)",
            lambda: f"sorted({x(STR)}.split())",
        ]


# -- pipelines ---------------------------------------------------------------------------

KEYED_HEADS = (
    *("reduce", "reduce", "reduce", "sum", "min", "max", "count", "aggregate"),
    *("keyed_process", "window.reduce", "window.aggregate", "window.process"),
    *("window.apply", "map", "filter", "flat_map"),
)
"""What the generator puts behind a keyed edge: folds (often), every other keyed kind,
windows, and plain transforms (a HASH edge into a map is valid)."""
ACCUMULATORS: dict[Type, tuple[str, str]] = {
    INT: ("0", "acc + 1"),
    STR: ("''", "acc[-20:] + 'x'"),
    (INT, STR): ("(0, '')", "(acc[0] + 1, acc[1])"),
    (INT, INT): ("(0, 0)", "(acc[0] + 1, acc[1] + acc[0])"),
}
"""Accumulators of `aggregate` kinds: their zero and a simple `add`."""
ASSIGNERS = (
    *("count_tumbling", "count_sliding", "tumbling_event_time", "sliding_event_time"),
    "event_time_session",
)


@dataclass
class Case:
    """One generated pipeline of a batch."""

    number: int
    nodes: list[int] = field(default_factory=list)
    sinks: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What was drawn, in words: which fold, which key, the producer's kind."""


FOLDS = ("reduce", "reduce", "sum", "min", "max", "count", "window.reduce", "window.aggregate")
"""The heads the SQL path folds, with reduce drawn most (its forms vary most)."""
TIME_WINDOWS = ("tumbling_event_time", "sliding_event_time")
"""The windows the SQL path folds."""


class Generator:
    """Half the pipelines are *aimed* at the SQL path: a text or number source, a chain of the
    expressions it translates (one in a hundred choices outside them), a fold behind the
    keyed edge, BATCH mode for most batches. The others are drawn from everything."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.aimed = False

    @property
    def fast(self) -> float:
        return 0.99 if self.aimed else 0.6

    def batch(self, size: int) -> tuple[dict[str, Any], list[Case]]:
        """A document of `size` pipelines side by side, and their cases."""
        rng = self.rng
        mode = "BATCH" if rng.random() < 0.75 else "STREAMING"
        builder = _Builder(Doc(f"differential-{self.seed}", parallelism=2, mode=mode))
        cases = []
        for number in range(size):
            case = Case(number)
            builder.case = case
            self.pipeline(builder)
            cases.append(case)
        return builder.doc.build(), cases

    def expressions(self, variables: dict[str, Type]) -> Expressions:
        return Expressions(self.rng, variables, self.fast)

    def record_type(self, depth: int = 0) -> Type:
        """A type for a record a map makes: a scalar or a tuple of a few (nested only in
        pipelines not aimed at SQL, which does not fold nested tuples)."""
        rng = self.rng
        if depth < (1 if self.aimed else 2) and rng.random() < 0.55:
            return tuple(self.record_type(depth + 1) for _ in range(rng.randint(1, 3)))
        return rng.choice((STR, STR, INT, INT, BOOL, FLOAT))

    def pipeline(self, b: _Builder) -> None:
        rng = self.rng
        self.aimed = rng.random() < 0.5
        if self.aimed:
            b.note("aimed at SQL")
        source, kind = self.source(b)
        last, parallelism = source, b.parallelism_of(source)
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            last, kind = self.transform(
                b, last, kind, parallelism, rng.choice(("map", "filter", "flat_map"))
            )
        if not self.aimed and rng.random() < 0.12:  # a branch: the producer sends to two places
            b.sink(last, parallelism)
        consumer, kind, parallelism = self.consumer(b, last, kind)
        self.aimed = False
        if rng.random() < 0.2:  # a second keyed stage
            consumer, kind, parallelism = self.consumer(b, consumer, kind)
        for _ in range(rng.choice((0, 0, 1))):
            op = rng.choice(("map", "filter"))
            consumer, kind = self.transform(b, consumer, kind, parallelism, op)
        b.sink(consumer, parallelism)

    def source(self, b: _Builder) -> tuple[int, Type]:
        rng = self.rng
        p = rng.randint(1, 4)
        choice = rng.choices(
            (
                *("text", "file", "sequence", "generator", "collection", "csv", "named csv"),
                *("json", "fields"),
            ),
            weights=(2, 1, 1, 1, 0, 0, 0, 0, 2) if self.aimed else (4, 1, 2, 2, 1, 1, 1, 1, 2),
        )[0]
        b.note(f"source {choice}")
        if choice == "fields":
            return b.node("source.text", {"path": "fields.csv"}, p), LINE
        if choice in ("text", "file"):
            path = rng.choice(("text", "text/a.txt"))
            return b.node(f"source.{choice}", {"path": path}, p), STR
        if choice == "sequence":
            start = rng.randint(-50, 50)
            return b.node(
                "source.sequence", {"from": start, "to": start + rng.randint(0, 600)}, p
            ), INT
        if choice == "generator":
            kind = self.record_type()
            fn = self.expressions({"i": INT}).draw(kind)
            return b.node("source.generator", {"count": rng.randint(0, 500), "fn": fn}, p), kind
        if choice == "collection":
            values = [rng.choice(WORDS) for _ in range(rng.randint(1, 30))]
            if rng.random() < 0.5:
                return b.node("source.collection", {"values": [len(v) for v in values]}, p), INT
            return b.node("source.collection", {"values": values}, p), STR
        if choice == "csv":
            params = {"path": "rows.csv", "header": False}
            return b.node("source.csv", params, p), (STR, STR, STR)
        if choice == "named csv":
            params = {"path": "named.csv", "header": True}
            return b.node("source.csv", params, p), Dict((("w", STR), ("n", STR), ("t", STR)))
        return b.node("source.json", {"path": "records.jsonl"}, p), Dict((("w", STR), ("n", INT)))

    def transform(self, b: _Builder, last: int, kind: Type, p: int, op: str) -> tuple[int, Type]:
        """`op` after `last` (same parallelism, FORWARD, so it chains)."""
        draw = self.expressions({"x": kind})
        if op == "filter":
            node = b.node("filter", {"predicate": draw.draw(BOOL)}, p)
            b.edge(last, node)
            return node, kind
        if op == "map":
            out = FIELDS if kind == LINE and self.rng.random() < 0.5 else self.record_type()
            node = b.node("map", {"fn": draw.draw(out)}, p)
        else:
            if self.aimed or self.rng.random() < 0.6:
                out, fn = STR, draw.draw(STRS)
            else:
                out = self.record_type()
                fn = f"[{draw.draw(out)}, {draw.draw(out)}]"
            node = b.node("flat_map", {"fn": fn}, p)
        b.edge(last, node)
        return node, out

    def key(self, kind: Type) -> tuple[str, Type]:
        """A key expression of records of `kind`, and the key's type."""
        rng = self.rng
        draw = self.expressions({"x": kind})
        choice = rng.random()
        if choice < 0.15:
            literal = rng.choice(("0", "'all'", "True", "(1, 'a')"))
            return literal, {"0": INT, "'all'": STR, "True": BOOL}.get(literal, (INT, STR))
        fields = hashable_fields(kind)
        if choice < 0.65 and fields:
            if len(fields) > 1 and rng.random() < 0.3:
                picked = rng.sample(fields, 2)
                return f"({picked[0][0]}, {picked[1][0]})", (picked[0][1], picked[1][1])
            text, key_type = rng.choice(fields)
            return text, key_type
        key_type = rng.choice((INT, STR, BOOL, (INT, STR)))
        return draw.draw(key_type), key_type

    def consumer(self, b: _Builder, last: int, kind: Type) -> tuple[int, Type, int]:
        """A consumer behind a new edge from `last`: its node, output type, parallelism."""
        rng = self.rng
        p = rng.randint(1, 4)
        max_parallelism = rng.choice((-1, -1, -1, p, 7, 16, 300))
        if max_parallelism != -1 and max_parallelism < p:
            max_parallelism = -1
        if not self.aimed and rng.random() < 0.1:
            return self.window_all(b, last, kind)
        if not self.aimed and rng.random() < 0.1:  # no key at all
            op = rng.choice(("map", "filter"))
            node, out = self.transform(b, last, kind, p, op)
            b.retarget(node, rng.choice(("REBALANCE", "SHUFFLE", "RESCALE", "BROADCAST")))
            return node, out, p
        key, key_type = self.key(kind)
        head = rng.choice(FOLDS if self.aimed else KEYED_HEADS)
        if head in ("sum", "min", "max") and self.field_of(kind, head) is _NO_FIELD:
            head = "reduce"
        b.note(f"key {key} -> {head}")
        params, out = self.head(head, kind, key_type)
        node = b.node(head, params, p, max_parallelism)
        b.edge(last, node, "HASH", key=key)
        return node, out, p

    def head(self, head: str, kind: Type, key_type: Type) -> tuple[dict[str, Any], Type]:
        """The parameters of a consumer's head of kind `head` over records of `kind`."""
        rng = self.rng
        draw = self.expressions({"x": kind})
        if head in ("map", "filter", "flat_map"):
            if head == "filter":
                return {"predicate": draw.draw(BOOL)}, kind
            out = self.record_type()
            if head == "map":
                return {"fn": draw.draw(out)}, out
            return {"fn": f"[{draw.draw(out)}]"}, out
        if head == "reduce":
            return {"fn": self.reduction(kind)}, kind
        if head in ("sum", "min", "max"):
            return {"field": self.field_of(kind, head)}, kind
        if head == "count":
            return {}, (key_type, INT)
        if head == "aggregate":
            params, out = self.aggregation(kind)
            return params, out
        if head == "keyed_process":
            out = self.record_type()
            fn = self.expressions({"x": kind, "key": key_type}).draw(out)
            if rng.random() < 0.3:
                fn = f"({fn} if {draw.draw(BOOL)} else None)"
            return {"fn": fn}, out
        return self.window(head, kind, key_type)

    def reduction(self, kind: Type) -> str:
        """A reduce function of `a`, `b`: a fold field by field, or any function."""
        rng = self.rng
        if rng.random() < (0.1 if self.aimed else 0.35):
            return self.bounded(self.expressions({"a": kind, "b": kind}), kind)

        def fold(path_a: str, path_b: str, part: Type) -> str:
            options = [path_a]
            if part == INT:
                options += [f"{path_a} + {path_b}", f"{path_b} + {path_a}"]
            if part in (INT, STR):
                options += [f"max({path_a}, {path_b})", f"min({path_b}, {path_a})"]
            if part in (FLOAT, BOOL) and not self.aimed:
                options += [f"max({path_a}, {path_b})", path_b]
            return rng.choice(options)

        if isinstance(kind, tuple):
            parts = [fold(f"a[{i}]", f"b[{i}]", part) for i, part in enumerate(kind)]
            return "(" + "".join(part + ", " for part in parts) + ")"
        return fold("a", "b", kind)

    def bounded(self, draw: Expressions, kind: Type) -> str:
        """A value of `kind` that a fold applied thousands of times keeps small: text cut,
        ints modulo a prime, floats and bools picked, never computed."""
        if isinstance(kind, tuple):
            return "(" + "".join(self.bounded(draw, part) + ", " for part in kind) + ")"
        if kind == STR:
            return f"({draw.draw(STR)})[-40:]"
        if kind == INT:
            return f"({draw.draw(INT)}) % 1000003"
        return self.rng.choice(draw.paths(kind) or [draw.literal(kind)])

    def field_of(self, kind: Type, head: str) -> Any:
        """A field `sum`, `min` or `max` can fold (a position, a name, or None or empty for
        the record), or `_NO_FIELD`."""
        rng = self.rng
        if self.aimed:
            wanted: tuple[str, ...] = (INT,) if head == "sum" else (INT, STR)
        else:
            wanted = (INT, FLOAT, STR) if head == "sum" else SCALARS
        if isinstance(kind, tuple):
            positions = [i for i, part in enumerate(kind) if part in wanted]
            if positions:
                return str(rng.choice(positions))
        if isinstance(kind, Dict):
            names = [name for name, part in kind.fields if part in wanted]
            if names:
                return rng.choice(names)
        if kind in wanted:
            return rng.choice((None, ""))
        return _NO_FIELD

    def aggregation(self, kind: Type) -> tuple[dict[str, Any], Type]:
        rng = self.rng
        acc = rng.choice(list(ACCUMULATORS))
        zero, simple = ACCUMULATORS[acc]
        if self.aimed and rng.random() < 0.7:
            add = self.folding_add(acc, kind)
        elif rng.random() < 0.4:
            add = simple
        else:
            add = self.bounded(self.expressions({"acc": acc, "x": kind}), acc)
        out = self.record_type()
        result = self.expressions({"acc": acc}).draw(out)
        return {"zero": zero, "add": add, "result": result}, out

    def folding_add(self, acc: Type, kind: Type) -> str:
        """An `add` that folds the accumulator leaf by leaf with values of the record: a
        sum of ints, the max or min of ints or text, or the leaf kept."""
        rng = self.rng
        draw = self.expressions({"x": kind})

        def leaf(text: str, part: Type) -> str:
            value = draw.draw(part)
            forms = [text, f"max({text}, {value})", f"min({value}, {text})"]
            if part == INT:
                forms += [f"{text} + {value}", f"{value} + {text}", f"{text} + 1"]
            return rng.choice(forms)

        if isinstance(acc, tuple):
            return "(" + "".join(leaf(f"acc[{i}]", p) + ", " for i, p in enumerate(acc)) + ")"
        return leaf("acc", acc)

    def window(self, head: str, kind: Type, key_type: Type) -> tuple[dict[str, Any], Type]:
        rng = self.rng
        assigner = rng.choice(TIME_WINDOWS if self.aimed else ASSIGNERS)
        params: dict[str, Any] = {"assigner": assigner}
        if assigner.startswith("count_"):
            params["size"] = rng.randint(1, 12)
            if assigner == "count_sliding":
                params["slide"] = rng.randint(1, 12)
        else:
            params["timestamp"] = self.expressions({"x": kind}).draw(INT)
            if assigner == "event_time_session":
                params["gapMs"] = rng.randint(1, 20)
            else:
                params["sizeMs"] = rng.randint(1, 30)
                if assigner == "sliding_event_time":
                    params["slideMs"] = rng.randint(1, params["sizeMs"])
        if head == "window.reduce":
            return {**params, "fn": self.reduction(kind)}, kind
        if head == "window.aggregate":
            fold, out = self.aggregation(kind)
            return {**params, **fold}, out
        out = self.record_type()
        variables = {"values": kind, "window": (INT, INT)}
        if key_type is not None:
            variables["key"] = key_type
        fn, out = self.window_function(variables, out)
        return {**params, "fn": fn}, out

    def window_function(self, variables: dict[str, Type], out: Type) -> tuple[str, Type]:
        """`fn(key, values, window)` and its type: `values` is typed as one record while
        drawing, then made the first or last record of the window."""
        draw = self.expressions(variables).draw(out)
        one = draw.replace("values", self.rng.choice(("values[0]", "values[-1]")))
        if self.rng.random() < 0.5:
            return f"(len(values), {one})", (INT, out)
        return one, out

    def window_all(self, b: _Builder, last: int, kind: Type) -> tuple[int, Type, int]:
        head = self.rng.choice(("window_all.reduce", "window_all.aggregate", "window_all.process"))
        b.note(f"-> {head}")
        params, out = self.window(head.replace("window_all", "window"), kind, None)
        node = b.node(head, params, 1)
        b.edge(last, node, "HASH" if self.rng.random() < 0.5 else "REBALANCE")
        return node, out, 1


_NO_FIELD: Any = object()


def hashable_fields(kind: Type) -> list[tuple[str, Type]]:
    """`x` or its fields that can key a HASH edge, with their types."""
    found: list[tuple[str, Type]] = []
    if hashable(kind):
        found.append(("x", kind))
    if isinstance(kind, tuple):
        for index, part in enumerate(kind):
            if hashable(part):
                found.append((f"x[{index}]", part))
            if isinstance(part, tuple):
                for inner, leaf in enumerate(part):
                    if hashable(leaf):
                        found.append((f"x[{index}][{inner}]", leaf))
    if isinstance(kind, Dict):
        found.extend((f"x[{name!r}]", part) for name, part in kind.fields if hashable(part))
    return found


class _Builder:
    """A document's nodes and edges, with the pipeline each node belongs to."""

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        self.next_id = 1
        self.case = Case(0)
        self.parallelism: dict[int, int] = {}
        self.inputs: dict[int, int] = {}
        """Node -> the edge (its index in the document) into it."""

    def note(self, text: str) -> None:
        self.case.notes.append(text)

    def node(self, kind: str, params: dict[str, Any], p: int, max_parallelism: int = -1) -> int:
        node = self.next_id
        self.next_id += 1
        self.doc.node(node, kind, params, parallelism=p, max_parallelism=max_parallelism)
        self.parallelism[node] = p
        self.case.nodes.append(node)
        return node

    def parallelism_of(self, node: int) -> int:
        return self.parallelism[node]

    def edge(self, source: int, target: int, partitioner: str = "FORWARD", **key: Any) -> None:
        if partitioner == "FORWARD" and self.parallelism[source] != self.parallelism[target]:
            partitioner = "REBALANCE"
        self.inputs[target] = len(self.doc.document["edges"])
        self.doc.edge(source, target, partitioner, **key)

    def retarget(self, node: int, partitioner: str) -> None:
        """Another partitioner for the edge into `node`."""
        self.doc.document["edges"][self.inputs[node]]["partitioner"] = partitioner

    def sink(self, last: int, p: int) -> None:
        node = self.node("sink.collect", {}, p)
        self.edge(last, node)
        self.case.sinks.append(node)


def alone(document: dict[str, Any], case: Case) -> dict[str, Any]:
    """The document of `case` alone: its nodes and the edges between them."""
    nodes = set(case.nodes)
    return {
        **document,
        "nodes": [n for n in document["nodes"] if n["id"] in nodes],
        "edges": [e for e in document["edges"] if e["source"] in nodes],
    }
