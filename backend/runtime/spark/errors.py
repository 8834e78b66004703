"""Readable error text from what Spark reports about a failed Python task.

Spark wraps an exception raised in a Python worker in a `PythonException` whose text is
the whole Python traceback followed by a Java stack trace. What a person needs is the
exception line(s) at the end of the Python traceback: `ValueError: boom`. The chain's
own errors already say which operator or edge failed (`Map (node 2): ...`), so their
class name is dropped, as `runtime.local` reports them.

An expression run as Spark SQL raises where its Python raises, in the same words
(`runtime.spark.translate`): from a Java function as an `ExpressionError`, or by SQL's
`raise_error`; those words are read out of Spark's wrapping.
"""

from __future__ import annotations

import re

_TRACEBACK = "Traceback (most recent call last):"
_MAX_CHARS = 2000
_QUALIFIED = re.compile(r"^(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_]\w*: )")
"""`runtime.operators.base.` in front of `OperatorError: ...`."""
_SELF_DESCRIBING = re.compile(r"^(?:OperatorError|RoutingError|InjectedFault): ")


_SQL_RAISED = re.compile(
    r"(?:streamgraph\.spark\.ExpressionError: |\[USER_RAISED_EXCEPTION\] )(.*?)"
    r"(?:\.? SQLSTATE: \w+)?$",
    re.MULTILINE,
)


def python_error_text(text: str) -> str:
    """The exception lines of the last Python traceback in `text`, or what a translated
    expression raised, else its first line."""
    raised = _SQL_RAISED.search(text)
    if raised and _TRACEBACK not in text:
        return _bounded(raised.group(1))
    start = text.rfind(_TRACEBACK)
    if start < 0:
        first = text.strip().splitlines()
        return _bounded(first[0] if first else text.strip())
    lines: list[str] = []
    in_frames = True
    for line in text[start + len(_TRACEBACK) :].splitlines():
        if line.startswith("\tat ") or line.startswith(" SQLSTATE"):
            break
        if in_frames and (not line.strip() or line[:1].isspace()):
            continue  # a frame, its source line or the caret markers under it
        in_frames = False
        lines.append(line)
    found = "\n".join(lines).strip()
    if not found:
        return _bounded(text.strip())
    found = _SELF_DESCRIBING.sub("", _QUALIFIED.sub("", found, count=1), count=1)
    return _bounded(found)


def _bounded(text: str) -> str:
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 1] + "…"
