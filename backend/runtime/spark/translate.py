"""Expressions of the expression language as Spark SQL columns, where the meaning is the same.

`translate(text, variables)` returns the value of an expression over values that are
Spark columns: a `Col` (a column and the Python type its values have: `int`, `float`,
`str`, `bool`, `strs` for a list of str) or a `Tup` (a Python tuple of values, kept
apart field by field, so `x[0]` of a tuple is resolved here and never reaches Spark).
Anything whose Spark meaning could differ from Python's raises `Untranslatable` with the
reason, and the vertex runs its Python chain instead (`runtime.spark.sqlpath`).

The subset, and why it is exact:

- literals (int within 64 bits, float, str, bool); the variables; tuple displays; a
  tuple's field by a constant index (negative too), resolved here;
- `+ - *` on ints (Spark's bigint arithmetic; ANSI mode fails a run on overflow, where
  Python would go on with a big int), on floats and an int with a float (IEEE doubles
  both); `+` of two str; `%` of an int by a positive int constant (`pmod`, Python's sign
  rule); unary `-` and `+` on numbers, `not` on bools;
- comparisons of two values of the same type (str by code point, which is Spark's
  binary order of UTF-8); `and` / `or` of bools; `a if c else b` of one type;
- `lower()`, `upper()` (Python's own case tables, by the Java functions `sg_lower` and
  `sg_upper`: `javafns`); `strip()`, `lstrip()`,
  `rstrip()` without arguments (Python's whitespace, all of it) or with a str literal;
  `split()` without arguments (runs of Python's whitespace, no empty words) or with a
  non-empty str literal; `replace` of non-empty str literals; `startswith` and
  `endswith` of a str literal (`split()` by the Java function `sg_split`, `javafns`);
- an item of a list of str by a constant index (negative too; Python's IndexError
  fails the run when the list is shorter); `len` of a str (code points) or of a split;
  `str` of an int, str or bool; `int` of a str (Python's reading of text: Unicode digits
  and spaces, underscores between digits, by the Java function `sg_int`, failing the run
  where Python raises), an int, a bool or a float (toward zero); `abs` of a number.

An expression that fails fails the run in SQL too, with Python's words where the
expression raises them (`IndexError`, `int()`'s `ValueError`), Spark's otherwise (an
overflow). Division, subscripts of text, comprehensions, other methods and builtins, and
values of mixed types are not translated.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import Column

INT_KINDS = ("int",)
NUMBER_KINDS = ("int", "float")
SCALAR_KINDS = ("int", "float", "str", "bool")
_LONG = 1 << 63


class Untranslatable(ValueError):
    """The expression has no Spark SQL form with the same meaning (the message says why)."""


@dataclass(frozen=True, slots=True)
class Col:
    column: Column
    kind: str
    """`int`, `float`, `str`, `bool`, or `strs` (a list of str)."""


@dataclass(frozen=True, slots=True)
class Tup:
    items: tuple[Value, ...]


Value = Col | Tup


@lru_cache(maxsize=1)
def whitespace() -> str:
    """Python's whitespace: `str.isspace`, what `split()` and `strip()` use."""
    return "".join(chr(code) for code in range(0x3001) if chr(code).isspace())


def whitespace_class() -> str:
    """`whitespace()` as a Java regular expression character class."""
    return "[" + "".join(f"\\u{ord(c):04x}" for c in whitespace()) + "]"


_REGEX_SPECIAL = frozenset(".$|()[{^?*+\\")


def _literal_pattern(text: str) -> str:
    """A Java regular expression matching `text` literally. One character is written so
    that Java's `String.split`, which Spark's `split` calls, takes its path without a
    regular expression (one character that is not special, or a backslash and one that
    is not a letter or digit); longer text compiles a pattern for every row."""
    if len(text) == 1 and (ord(text) < 0xD800 or 0xE000 <= ord(text) < 0x10000):
        return "\\" + text if text in _REGEX_SPECIAL else text
    return "".join(f"\\x{{{ord(c):x}}}" for c in text)


def _literal_class(chars: str) -> str:
    return "[" + "".join(f"\\x{{{ord(c):x}}}" for c in chars) + "]"


def translate(
    text: str,
    variables: Mapping[str, Value],
    where: str = "",
    fallible: list[Column] | None = None,
) -> Value:
    """The expression `text` (already checked by `compile_expression`) over `variables`;
    `where` names it in what it raises (an operator's label, as the Python chain does).
    When a part of it fails where Python raises, its value's columns are added to
    `fallible`: Python computes the expression for every record (the parts a conditional
    or `and` / `or` passes over excepted, which Spark passes over alike), so the caller
    has Spark compute them too (`sqlpath`), even where no one reads them."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise Untranslatable(f"not an expression: {error.msg}") from None
    translator = _Translator(variables, where)
    value = translator.value(tree)
    if fallible is not None and translator.fallible:
        fallible.extend(leaf.column for leaf in leaves(value))
    return value


class _Translator:
    def __init__(self, variables: Mapping[str, Value], where: str) -> None:
        self.variables = variables
        self.where = where
        self.fallible = False
        """Whether a part fails where Python raises."""

    def value(self, node: ast.expr) -> Value:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise Untranslatable(f"{type(node).__name__.lower()} is not translated")
        result: Value = method(node)
        return result

    def col(self, node: ast.expr, *kinds: str) -> Col:
        value = self.value(node)
        if not isinstance(value, Col):
            raise Untranslatable("a tuple where a single value is needed")
        if kinds and value.kind not in kinds:
            raise Untranslatable(f"a {value.kind} where {' or '.join(kinds)} is needed")
        return value

    # nodes -------------------------------------------------------------------------------

    def _Constant(self, node: ast.Constant) -> Value:
        from pyspark.sql import functions as F

        value = node.value
        if isinstance(value, bool):
            return Col(F.lit(value), "bool")
        if isinstance(value, int):
            if not -_LONG <= value < _LONG:
                raise Untranslatable("an int beyond 64 bits")
            return Col(F.lit(value).cast("bigint"), "int")
        if isinstance(value, float):
            return Col(F.lit(value).cast("double"), "float")
        if isinstance(value, str):
            return Col(F.lit(value), "str")
        raise Untranslatable(f"a {type(value).__name__} literal")

    def _Name(self, node: ast.Name) -> Value:
        if node.id not in self.variables:
            raise Untranslatable(f"{node.id} is not translated")
        return self.variables[node.id]

    def _Tuple(self, node: ast.Tuple) -> Value:
        return Tup(tuple(self.value(item) for item in node.elts))

    def _Subscript(self, node: ast.Subscript) -> Value:
        from pyspark.sql import functions as F

        base = self.value(node.value)
        index = node.slice
        if isinstance(base, Col) and base.kind != "strs":
            raise Untranslatable(f"a subscript of a {base.kind}")
        if (
            isinstance(index, ast.UnaryOp)
            and isinstance(index.op, ast.USub)
            and isinstance(index.operand, ast.Constant)
            and type(index.operand.value) is int
        ):
            position = -index.operand.value
        elif isinstance(index, ast.Constant) and type(index.value) is int:
            position = index.value
        else:
            raise Untranslatable("an index that is not an int literal")
        if isinstance(base, Col):
            # A list's item, or Python's IndexError, which fails the run as Python's does.
            items = F.size(base.column)
            present = items > position if position >= 0 else items >= -position
            item = F.element_at(base.column, position + 1 if position >= 0 else position)
            words = "IndexError: list index out of range"
            missing = F.raise_error(F.lit(f"{self.where}: {words}" if self.where else words))
            self.fallible = True
            return Col(F.when(present, item).otherwise(missing), "str")
        if not -len(base.items) <= position < len(base.items):
            raise Untranslatable("a tuple index out of range")
        return base.items[position]

    def _BinOp(self, node: ast.BinOp) -> Value:
        from pyspark.sql import functions as F

        left, right = self.col(node.left), self.col(node.right)
        op = node.op
        if isinstance(op, ast.Add) and left.kind == right.kind == "str":
            return Col(F.concat(left.column, right.column), "str")
        if isinstance(op, ast.Mod):
            constant = node.right
            if (
                left.kind == "int"
                and isinstance(constant, ast.Constant)
                and type(constant.value) is int
                and constant.value > 0
            ):
                return Col(F.pmod(left.column, right.column), "int")
            raise Untranslatable("% other than an int by a positive int literal")
        if not isinstance(op, ast.Add | ast.Sub | ast.Mult):
            raise Untranslatable(f"the operator {type(op).__name__} is not translated")
        if left.kind not in NUMBER_KINDS or right.kind not in NUMBER_KINDS:
            raise Untranslatable(f"arithmetic of {left.kind} and {right.kind}")
        kind = "int" if left.kind == right.kind == "int" else "float"
        a, b = left.column, right.column
        if kind == "float":
            a, b = a.cast("double"), b.cast("double")
        if isinstance(op, ast.Add):
            return Col(a + b, kind)
        if isinstance(op, ast.Sub):
            return Col(a - b, kind)
        return Col(a * b, kind)

    def _UnaryOp(self, node: ast.UnaryOp) -> Value:
        if isinstance(node.op, ast.Not):
            return Col(~self.col(node.operand, "bool").column, "bool")
        operand = self.col(node.operand, *NUMBER_KINDS)
        if isinstance(node.op, ast.USub):
            return Col(-operand.column, operand.kind)
        if isinstance(node.op, ast.UAdd):
            return operand
        raise Untranslatable("~ is not translated")

    def _BoolOp(self, node: ast.BoolOp) -> Value:
        columns = [self.col(value, "bool").column for value in node.values]
        if self.fallible and any(isinstance(value, ast.Constant) for value in node.values):
            # Spark folds `p and False` to False without computing p, which Python does.
            raise Untranslatable("and / or with a constant beside what may fail")
        result = columns[0]
        for column in columns[1:]:
            result = result & column if isinstance(node.op, ast.And) else result | column
        return Col(result, "bool")

    def _Compare(self, node: ast.Compare) -> Value:
        operands = [self.col(node.left, *SCALAR_KINDS)]
        operands += [self.col(c, *SCALAR_KINDS) for c in node.comparators]
        result: Column | None = None
        for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
            if left.kind != right.kind:
                raise Untranslatable(f"a comparison of {left.kind} with {right.kind}")
            a, b = left.column, right.column
            if isinstance(op, ast.Eq):
                test = a == b
            elif isinstance(op, ast.NotEq):
                test = a != b
            elif isinstance(op, ast.Lt):
                test = a < b
            elif isinstance(op, ast.LtE):
                test = a <= b
            elif isinstance(op, ast.Gt):
                test = a > b
            elif isinstance(op, ast.GtE):
                test = a >= b
            else:
                raise Untranslatable(f"the comparison {type(op).__name__} is not translated")
            result = test if result is None else result & test
        assert result is not None
        return Col(result, "bool")

    def _IfExp(self, node: ast.IfExp) -> Value:
        from pyspark.sql import functions as F

        test = self.col(node.test, "bool")
        body, orelse = self.col(node.body), self.col(node.orelse)
        if body.kind != orelse.kind or body.kind == "strs":
            raise Untranslatable("a conditional whose branches differ in type")
        return Col(F.when(test.column, body.column).otherwise(orelse.column), body.kind)

    def _Call(self, node: ast.Call) -> Value:
        if node.keywords:
            raise Untranslatable("keyword arguments are not translated")
        if isinstance(node.func, ast.Attribute):
            return self._method(node.func.attr, self.col(node.func.value), node.args)
        if isinstance(node.func, ast.Name) and node.func.id not in self.variables:
            return self._builtin(node.func.id, node.args)
        raise Untranslatable("a call of a value")

    def _method(self, name: str, target: Col, args: list[ast.expr]) -> Value:
        from pyspark.sql import functions as F

        if target.kind != "str":
            raise Untranslatable(f"{target.kind}.{name}() is not translated")
        column = target.column
        literals = [_str_literal(arg) for arg in args]
        if name in ("lower", "upper") and not args:
            # `javafns`: Python's case tables (Spark's own are another Unicode's).
            return Col(F.call_function(f"sg_{name}", column), "str")
        if name in ("strip", "lstrip", "rstrip") and len(args) <= 1:
            chars = whitespace_class() if not args else _literal_class(literals[0])
            if args and not literals[0]:
                return target  # nothing to strip
            # \A and \z: Java's `$` also matches before a line break that ends the text.
            pattern = {
                "strip": f"\\A{chars}+|{chars}+\\z",
                "lstrip": f"\\A{chars}+",
                "rstrip": f"{chars}+\\z",
            }[name]
            return Col(F.regexp_replace(column, pattern, ""), "str")
        if name == "split" and not args:
            # `javafns`: one pass in Java (Spark's split compiles a regex per row).
            return Col(F.call_function("sg_split", column), "strs")
        if name == "split" and len(args) == 1 and literals[0]:
            return Col(F.split(column, _literal_pattern(literals[0]), -1), "strs")
        if name == "replace" and len(args) == 2 and literals[0]:
            return Col(F.replace(column, F.lit(literals[0]), F.lit(literals[1])), "str")
        if name in ("startswith", "endswith") and len(args) == 1:
            test = column.startswith(literals[0]) if name == "startswith" else None
            if test is None:
                test = column.endswith(literals[0])
            return Col(test, "bool")
        raise Untranslatable(f"str.{name}() with these arguments is not translated")

    def _builtin(self, name: str, args: list[ast.expr]) -> Value:
        from pyspark.sql import functions as F

        if len(args) != 1:
            raise Untranslatable(f"{name}() with {len(args)} arguments is not translated")
        value = self.col(args[0])
        if name == "len" and value.kind == "str":
            return Col(F.char_length(value.column).cast("bigint"), "int")
        if name == "len" and value.kind == "strs":
            return Col(F.size(value.column).cast("bigint"), "int")
        if name == "str" and value.kind in ("int", "str"):
            return Col(value.column.cast("string"), "str")
        if name == "str" and value.kind == "bool":
            return Col(F.when(value.column, "True").otherwise("False"), "str")
        if name == "int" and value.kind == "str":
            # `javafns`: Python's reading of text, failing the run where Python raises.
            self.fallible = True
            return Col(F.call_function("sg_int", value.column, F.lit(self.where)), "int")
        if name == "int" and value.kind == "int":
            return value
        if name == "int" and value.kind == "bool":
            return Col(F.when(value.column, 1).otherwise(0).cast("bigint"), "int")
        if name == "int" and value.kind == "float":
            # Toward zero, as Python's; NaN, infinities and what 64 bits cannot hold fail
            # the run in ANSI mode (Python raises for the first two).
            return Col(value.column.cast("bigint"), "int")
        if name == "abs" and value.kind in NUMBER_KINDS:
            return Col(F.abs(value.column), value.kind)
        raise Untranslatable(f"{name}() of a {value.kind} is not translated")


def _str_literal(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    raise Untranslatable("a method argument that is not a str literal")


def leaves(value: Value) -> list[Col]:
    """The columns of a value, depth first."""
    if isinstance(value, Col):
        return [value]
    return [leaf for item in value.items for leaf in leaves(item)]


def rebuild(value: Value, columns: list[Any]) -> Value:
    """`value`'s shape over other columns (in `leaves` order), kinds kept."""
    position = 0

    def build(part: Value) -> Value:
        nonlocal position
        if isinstance(part, Col):
            column = columns[position]
            position += 1
            return Col(column, part.kind)
        return Tup(tuple(build(item) for item in part.items))

    return build(value)


def as_struct(value: Value) -> Column:
    """One column for a value: a scalar as it is, a tuple as a struct of its fields
    (the form the key functions read as Flink's TupleN)."""
    from pyspark.sql import functions as F

    if isinstance(value, Col):
        if value.kind not in ("int", "str", "bool"):
            raise Untranslatable(f"a {value.kind} key (keys are int, str, bool or tuples)")
        return value.column
    return F.struct(*[as_struct(item).alias(f"_{i}") for i, item in enumerate(value.items)])


def python_value(value: Value, row: Any) -> Any:
    """A translated value's Python form, from a Spark row's leaves (in `leaves` order)."""
    cells = iter(row)

    def build(part: Value) -> Any:
        if isinstance(part, Col):
            return next(cells)
        return tuple(build(item) for item in part.items)

    return build(value)
