"""Python's character tables for the SQL path's Java `lower`, `upper` and `int`.

Spark's own `lower` and `upper` follow the Unicode version of the ICU it ships, newer
than this Python's: they map characters Python leaves alone and skip marks Python's final
sigma rule does not. The Java functions (`jvm/streamgraph/spark/PythonCase.java`) read
these tables instead, written from this interpreter by `make spark-jar` into the jar, so
they give what the executors' Python gives (the same interpreter; `make executor-env`).

Per code point: `L` its `str.lower()` where that is not itself, `U` its `str.upper()`
likewise; ranges of the code points that are *cased* (`C`) and *case-ignorable* (`I`),
the two properties of Python's final sigma rule (`'ΟΔΟΣ'.lower()` ends in `ς`). Python
does not expose case-ignorable, so it is read off what `lower()` does around a sigma.
And `D` the decimal value of every non-ASCII character that has one, which `int()`
reads as that digit (`PythonInt.java`): Java's own table is an older Unicode's.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterator

SIGMA = "\u03a3"
FINAL_SIGMA = "\u03c2"


def _code_points() -> Iterator[int]:
    for code in range(0x110000):
        if not 0xD800 <= code <= 0xDFFF:
            yield code


def is_cased(char: str) -> bool:
    """Unicode's Cased: Lowercase, Uppercase or a titlecase letter (Lt)."""
    return char.islower() or char.isupper() or char.istitle()


def is_case_ignorable(char: str) -> bool:
    """Whether Python's final sigma rule looks through `char`: a sigma after a cased
    letter and `char` is final exactly when it does (for a cased `char`, a sigma right
    after it is not final exactly when it does, as nothing cased comes before)."""
    if char == SIGMA:
        return False
    if is_cased(char):
        return (char + SIGMA).lower()[-1] != FINAL_SIGMA
    return ("A" + char + SIGMA).lower()[-1] == FINAL_SIGMA


def _ranges(codes: list[int]) -> Iterator[tuple[int, int]]:
    start = previous = None
    for code in codes:
        if previous is not None and code == previous + 1:
            previous = code
            continue
        if start is not None and previous is not None:
            yield start, previous
        start = previous = code
    if start is not None and previous is not None:
        yield start, previous


def tables() -> str:
    lines = [f"# Python {sys.version.split()[0]}, Unicode {_unicode_version()}"]
    for table, method in (("L", str.lower), ("U", str.upper)):
        for code in _code_points():
            char = chr(code)
            mapped = method(char)
            if mapped != char:
                lines.append(f"{table} {code:x} " + " ".join(f"{ord(c):x}" for c in mapped))
    for table, test in (("C", is_cased), ("I", is_case_ignorable)):
        codes = [code for code in _code_points() if test(chr(code))]
        lines.extend(f"{table} {start:x} {end:x}" for start, end in _ranges(codes))
    for code in range(128, 0x110000):
        value = unicodedata.decimal(chr(code), None)
        if value is not None:
            lines.append(f"D {code:x} {value}")
    return "\n".join(lines) + "\n"


def _unicode_version() -> str:
    return unicodedata.unidata_version


if __name__ == "__main__":
    with open(sys.argv[1], "w", encoding="ascii") as out:
        out.write(tables())
