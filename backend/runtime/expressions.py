"""The expression language every operator's logic is written in.

An expression is a safe subset of Python expressions (docs/RUNTIME.md): the text is
parsed with `ast`, every node is checked against an allow-list, and the tree is
compiled once into a function. Nothing in the allow-list can reach an attribute
starting with `_`, a builtin outside the list, an import, a file or the network,
so a document can never make a worker run anything but data transformations.

Operations that can turn a short text into gigabytes at once (`9**9**9`,
`[0] * 10**10`, `range(10**12)`, `"%999999999d" % 1`, `s.replace("", s)`,
`"".join([s] * 10**6)`, `str([s] * 10**6)`) go through guarded helpers that check the
size of the result before computing it: repetition, powers and shifts, `range`,
%-formatting (widths, precisions and what each conversion inserts), `replace`, `join`,
and the text of values (`str()`, f-string fields), which a list holding one big string
many times makes huge. The guards bound single operations, not the total work of an
evaluation: a run's time and memory are bounded by the run (Spark workers' memory
cap, cancel), and the web server never evaluates expressions, it only compiles them.

`Expression.inline(names)` gives the guarded expression as Python source with its
variables renamed, so `runtime.chains` can paste it into generated code (one
loop per operator chain, no call per record); `expression_namespace()` is what
that code must see as globals.
"""

from __future__ import annotations

import ast
import builtins
import re
import warnings
from collections.abc import Callable, ItemsView, KeysView, Mapping, Sequence, ValuesView
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

MAX_TEXT = 10_000
"""Characters in one expression."""
MAX_NODES = 5_000
"""Syntax tree nodes in one expression."""
MAX_DEPTH = 100
"""Nesting of the syntax tree."""
MAX_SEQUENCE = 10_000_000
"""Items (or characters) a repetition, `range` or `replace` may produce."""
MAX_INT_BITS = 100_000
"""Bits of an integer `**` or `<<` may produce (about 30,000 decimal digits)."""
MAX_FORMAT_WIDTH = 10_000
"""Width or precision in a format spec or a `%` format."""

ALLOWED_FUNCTIONS = (
    *("abs", "all", "any", "bool", "dict", "divmod", "enumerate", "float", "int", "len"),
    *("list", "max", "min", "range", "reversed", "round", "set", "sorted", "str", "sum"),
    *("tuple", "zip"),
)
"""Builtins an expression may use (call or pass, e.g. `sorted(xs, key=len)`)."""

ALLOWED_METHODS = frozenset(
    {
        *("lower", "upper", "strip", "lstrip", "rstrip", "split", "rsplit", "replace"),
        *("startswith", "endswith", "find", "count", "join", "get", "keys", "values"),
        *("items", "isdigit", "isalpha", "title"),
    }
)
"""Attribute names an expression may read (the methods of `str`, `list`, `dict` it may call)."""

_CONSTANT_TYPES = (int, float, str, bool, bytes, type(None))
_FORBIDDEN_NAMES = frozenset(dir(builtins)) - set(ALLOWED_FUNCTIONS)


class ExpressionError(ValueError):
    """An expression that is not valid: why, and where (1-based line and character column)."""

    def __init__(self, message: str, column: int = 1, line: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.line = line

    def __str__(self) -> str:
        if self.line == 1:
            return f"{self.message} (column {self.column})"
        return f"{self.message} (line {self.line}, column {self.column})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ExpressionError, (self.message, self.column, self.line))


class ExpressionLimitError(ValueError):
    """An operation whose result would exceed a limit of the language (raised while running)."""


class Expression:
    """A validated expression over named variables, compiled when first run.

    Validation is all the editor needs, so the guarded tree and the function are built
    on first use. Pickles as its text and variables (validated again, from the cache,
    where it lands), so run plans holding expressions can be shipped to Spark workers.
    """

    __slots__ = ("_function", "_guarded", "text", "tree", "used", "variables")

    def __init__(
        self, text: str, variables: tuple[str, ...], tree: ast.expr, used: frozenset[str]
    ) -> None:
        self.text = text
        self.variables = variables
        self.tree = tree
        """The validated syntax tree, as the user wrote it."""
        self.used = used
        """The variables the expression reads."""
        self._guarded: ast.expr | None = None
        self._function: Callable[..., Any] | None = None

    def __repr__(self) -> str:
        return f"Expression({self.text!r}, {self.variables!r})"

    @property
    def guarded(self) -> ast.expr:
        """The tree that runs: risky operations replaced by calls to the guard helpers."""
        if self._guarded is None:
            self._guarded = _guard(self.text)
        return self._guarded

    @property
    def function(self) -> Callable[..., Any]:
        """Takes the variables positionally, in `variables` order."""
        if self._function is None:
            source = f"lambda {', '.join(self.variables)}: {ast.unparse(self.guarded)}"
            with warnings.catch_warnings():  # "'is' with a literal" and the like
                warnings.simplefilter("ignore")
                code = compile(source, "<expression>", "eval")
            self._function = eval(code, expression_namespace())  # allow-listed, guarded
        return self._function

    def __call__(self, *args: Any) -> Any:
        return self.function(*args)

    def inline(self, names: Mapping[str, str]) -> str:
        """Python source of the guarded expression, each variable `v` read as `names[v]`.

        The result must be evaluated with `expression_namespace()` among its globals.
        It is parenthesised, so it can be pasted into any expression position.
        """
        missing = self.used - names.keys()
        if missing:
            raise KeyError(f"no name given for {sorted(missing)}")
        tree = _Renamer(names).visit(_guard(self.text))
        return "(" + ast.unparse(tree) + ")"

    def __reduce__(self) -> tuple[Any, ...]:
        return (compile_expression, (self.text, self.variables))


def compile_expression(text: str, variables: Sequence[str]) -> Expression:
    """Validate and compile `text` over `variables`; raises `ExpressionError`.

    Compiled expressions are cached by (text, variables): the editor validates every
    expression of a document on each edit, and most of them have not changed.
    """
    result = _compile_cached(text, tuple(variables))
    if isinstance(result, ExpressionError):
        raise result
    return result


def check_expression(text: str, variables: Sequence[str]) -> ExpressionError | None:
    """The error `compile_expression` would raise, or None; never raises."""
    result = _compile_cached(text, tuple(variables))
    return result if isinstance(result, ExpressionError) else None


def expression_namespace() -> dict[str, Any]:
    """Globals that compiled and inlined expressions need: allowed builtins and guards.

    A fresh dict each call; its `__builtins__` is empty, so nothing else resolves.
    """
    namespace: dict[str, Any] = {"__builtins__": {}}
    namespace.update(_FUNCTIONS)
    namespace.update(GUARDS)
    return namespace


@lru_cache(maxsize=8192)
def _compile_cached(text: str, variables: tuple[str, ...]) -> Expression | ExpressionError:
    try:
        return _compile(text, variables)
    except ExpressionError as error:
        return error


def _compile(text: object, variables: tuple[str, ...]) -> Expression:
    if not isinstance(text, str):
        raise ExpressionError(f"an expression must be text, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ExpressionError(f"the expression is longer than {MAX_TEXT} characters")
    body = text.lstrip()
    lead = len(text) - len(body)
    if not body.strip():
        raise ExpressionError("the expression is empty")
    try:
        with warnings.catch_warnings():  # "invalid decimal literal" and the like
            warnings.simplefilter("ignore")
            parsed = ast.parse(body, mode="eval")
    except SyntaxError as error:
        line = error.lineno or 1
        offset = error.offset or 0
        if offset <= 0:  # the parser points past the end
            lines = body.split("\n")
            line = min(line, len(lines))
            offset = len(lines[line - 1]) + 1
        raise ExpressionError(error.msg, offset + (lead if line == 1 else 0), line) from None
    except (MemoryError, RecursionError, ValueError):
        raise ExpressionError("the expression is nested too deeply") from None
    lines = body.split("\n")
    checker = _Checker(variables, lines, lead)
    checker.check(parsed.body)
    try:  # what only the compiler finds (never run: its names are not bound here)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(parsed, "<expression>", "eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        raise ExpressionError(f"the expression cannot be compiled: {error}") from None
    return Expression(text, variables, parsed.body, frozenset(checker.used))


def _guard(text: str) -> ast.expr:
    """A fresh guarded tree of an already validated expression."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = ast.parse(text.lstrip(), mode="eval").body
    result: ast.expr = _Guard().visit(body)
    return result


# --- validation ------------------------------------------------------------------------

_OPERATORS: tuple[type[ast.AST], ...] = (
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.LShift,
    ast.RShift,
    ast.BitOr,
    ast.BitXor,
    ast.BitAnd,
    ast.UAdd,
    ast.USub,
    ast.Not,
    ast.Invert,
    ast.And,
    ast.Or,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.Is,
    ast.IsNot,
    ast.In,
    ast.NotIn,
)
_NOT_ALLOWED = {
    ast.Lambda: "lambda is not allowed",
    ast.NamedExpr: "':=' is not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
    ast.MatMult: "'@' is not supported",
}
_FORMAT_NUMBER = re.compile(r"\d+")
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


class _Checker:
    """Walks a parsed expression and raises `ExpressionError` at the first node not allowed."""

    def __init__(self, variables: tuple[str, ...], lines: list[str], lead: int) -> None:
        self.variables = frozenset(variables)
        self.lines = lines
        self.lead = lead
        self.used: set[str] = set()
        self.nodes = 0

    def error(self, node: ast.AST, message: str, offset: int | None = None) -> ExpressionError:
        line = getattr(node, "lineno", 1) or 1
        if offset is None:
            offset = getattr(node, "col_offset", 0) or 0
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        column = len(text.encode("utf-8")[:offset].decode("utf-8", "ignore")) + 1
        return ExpressionError(message, column + (self.lead if line == 1 else 0), line)

    def check(self, root: ast.expr) -> None:
        # Explicit stack of (node, local names in scope, depth): no recursion limit to hit.
        # Every problem is found; the first one in the text is reported.
        stack: list[tuple[ast.AST, frozenset[str], int]] = [(root, frozenset(), 1)]
        first: ExpressionError | None = None
        while stack:
            node, scope, depth = stack.pop()
            self.nodes += 1
            if self.nodes > MAX_NODES:
                raise self.error(node, f"the expression has more than {MAX_NODES} parts")
            if depth > MAX_DEPTH:
                raise self.error(node, "the expression is nested too deeply")
            try:
                children = self.children(node, scope)
            except ExpressionError as error:
                if first is None or (error.line, error.column) < (first.line, first.column):
                    first = error
                # Look inside anyway: an earlier problem may sit in a part of this node.
                children = [(child, scope) for child in _parts(node)]
            for child, child_scope in children:
                stack.append((child, child_scope, depth + 1))
        if first is not None:
            raise first

    def children(
        self, node: ast.AST, scope: frozenset[str]
    ) -> list[tuple[ast.AST, frozenset[str]]]:
        """Check `node` itself; return its children with the local names each one sees."""
        if type(node) in _NOT_ALLOWED:
            raise self.error(node, _NOT_ALLOWED[type(node)])
        if isinstance(node, ast.Name):
            self.check_name(node, scope)
            return []
        if isinstance(node, ast.Constant):
            if type(node.value) not in _CONSTANT_TYPES:
                raise self.error(node, f"{type(node.value).__name__} literals are not supported")
            return []
        if isinstance(node, ast.Attribute):
            self.check_attribute(node)
            return [(node.value, scope)]
        if isinstance(node, ast.Call):
            self.check_callee(node.func)
            if isinstance(node.func, ast.Name) and node.func.id == "range":
                self.check_static_range(node)
            items: list[ast.AST] = [node.func, *node.args]
            for keyword in node.keywords:
                if keyword.arg is not None and keyword.arg.startswith("_"):
                    raise self.error(keyword, "names starting with '_' are not allowed")
                items.append(keyword.value)
            return [(item, scope) for item in items]
        if isinstance(node, _COMPREHENSIONS):
            return self.comprehension(node, scope)
        if isinstance(node, ast.FormattedValue):
            self.check_format_spec(node)
            return [(node.value, scope)]
        if isinstance(node, ast.JoinedStr):
            return [(value, scope) for value in node.values]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.LShift, ast.Mult)):
            self.check_static_size(node)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare)):
            ops: list[ast.AST] = list(node.ops) if isinstance(node, ast.Compare) else [node.op]
            for op in ops:
                if type(op) in _NOT_ALLOWED:
                    raise self.error(node, _NOT_ALLOWED[type(op)])
                if not isinstance(op, _OPERATORS):
                    raise self.error(node, f"{type(op).__name__} is not allowed")
        elif isinstance(node, (ast.Subscript, ast.Starred, ast.List, ast.Tuple, ast.Set)):
            if not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
                raise self.error(node, "assignment is not allowed")
        elif not isinstance(node, (ast.IfExp, ast.Dict, ast.Slice)):
            raise self.error(node, f"{type(node).__name__} is not allowed in expressions")
        return [(child, scope) for child in ast.iter_child_nodes(node) if _is_expression(child)]

    def check_static_size(self, node: ast.BinOp) -> None:
        """Reject `9**9**9` or `[0] * 10**10` when written with literals, before any run."""
        try:
            if isinstance(node.op, ast.Mult):
                for sequence, count in ((node.left, node.right), (node.right, node.left)):
                    length = _literal_length(sequence)
                    times = _static_int(count)
                    if length is not None and times is not None and length * times > MAX_SEQUENCE:
                        raise ExpressionLimitError(
                            f"repetition would make {length * times} items; "
                            f"the limit is {MAX_SEQUENCE}"
                        )
            else:
                _static_int(node)
        except ExpressionLimitError as error:
            raise self.error(node, str(error)) from None

    def check_static_range(self, node: ast.Call) -> None:
        values = [_static_int(arg) for arg in node.args]
        if node.keywords or not values or any(value is None for value in values):
            return
        try:
            _g_range(*values)
        except ExpressionLimitError as error:
            raise self.error(node, str(error)) from None
        except (TypeError, ValueError):
            return

    def check_name(self, node: ast.Name, scope: frozenset[str]) -> None:
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            raise self.error(node, "assignment is not allowed")
        if name.startswith("_"):
            raise self.error(node, "names starting with '_' are not allowed")
        if name in scope:
            return
        if name in self.variables:
            self.used.add(name)
            return
        if name in _FUNCTIONS_SET:
            return
        if name in _FORBIDDEN_NAMES:
            raise self.error(
                node, f"'{name}' is not allowed in expressions; {self.describe_variables()}"
            )
        raise self.error(node, f"unknown name '{name}'; {self.describe_variables()}")

    def describe_variables(self) -> str:
        if not self.variables:
            return "this expression has no variables"
        names = ", ".join(sorted(self.variables))
        return f"this expression can use {names}"

    def check_attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if not isinstance(node.ctx, ast.Load):
            raise self.error(node, "assignment is not allowed")
        # Point at the attribute's name, not at the start of the object.
        end = getattr(node, "end_col_offset", None)
        at = end - len(attr) if end is not None and node.end_lineno == node.lineno else None
        if attr.startswith("_"):
            raise self.error(node, "attributes starting with '_' are not allowed", at)
        if attr in ("format", "format_map"):
            raise self.error(node, f"'.{attr}' is not allowed; use an f-string", at)
        if attr not in ALLOWED_METHODS:
            allowed = ", ".join(sorted(ALLOWED_METHODS))
            raise self.error(node, f"'.{attr}' is not allowed (methods: {allowed})", at)

    def check_callee(self, func: ast.expr) -> None:
        if isinstance(func, ast.Attribute):
            return  # checked as an attribute
        if isinstance(func, ast.Name) and (
            func.id in _FUNCTIONS_SET or func.id in _FORBIDDEN_NAMES or func.id.startswith("_")
        ):
            return  # allowed, or rejected with a better message as a name
        raise self.error(func, "only the allowed functions and methods can be called")

    def check_format_spec(self, node: ast.FormattedValue) -> None:
        spec = node.format_spec
        if spec is None:
            return
        if not isinstance(spec, ast.JoinedStr) or not all(
            isinstance(part, ast.Constant) and isinstance(part.value, str) for part in spec.values
        ):
            raise self.error(node, "format specs must be plain text (no '{...}' inside)")
        text = "".join(str(part.value) for part in spec.values if isinstance(part, ast.Constant))
        if any(int(number) > MAX_FORMAT_WIDTH for number in _FORMAT_NUMBER.findall(text)):
            raise self.error(node, f"format widths above {MAX_FORMAT_WIDTH} are not allowed")

    def comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        scope: frozenset[str],
    ) -> list[tuple[ast.AST, frozenset[str]]]:
        result: list[tuple[ast.AST, frozenset[str]]] = []
        inner = scope
        for generator in node.generators:
            if generator.is_async:
                raise self.error(node, "async comprehensions are not allowed")
            result.append((generator.iter, inner))  # the first one in the enclosing scope
            inner = inner | self.targets(generator.target)
            result.extend((condition, inner) for condition in generator.ifs)
        if isinstance(node, ast.DictComp):
            result.extend([(node.key, inner), (node.value, inner)])
        else:
            result.append((node.elt, inner))
        return result

    def targets(self, target: ast.expr) -> frozenset[str]:
        """Names bound by a comprehension's `for` target."""
        if isinstance(target, ast.Name):
            name = target.id
            if name.startswith("_"):
                raise self.error(target, "names starting with '_' are not allowed")
            if name in self.variables:
                raise self.error(
                    target, f"'{name}' is already a variable; name the loop variable differently"
                )
            if name in _FUNCTIONS_SET or name in _FORBIDDEN_NAMES:
                raise self.error(target, f"'{name}' is a builtin; name the loop variable otherwise")
            return frozenset((name,))
        if isinstance(target, (ast.Tuple, ast.List)):
            names: frozenset[str] = frozenset()
            for element in target.elts:
                names |= self.targets(element)
            return names
        if isinstance(target, ast.Starred):
            return self.targets(target.value)
        raise self.error(target, "a comprehension can only assign names")


def _parts(node: ast.AST) -> list[ast.AST]:
    """The sub-expressions of a node that failed its own check (comprehension targets aside)."""
    parts: list[ast.AST] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.comprehension):
            parts.extend([child.iter, *child.ifs])
        elif isinstance(child, ast.keyword):
            parts.append(child.value)
        elif _is_expression(child):
            parts.append(child)
    return parts


def _is_expression(node: ast.AST) -> bool:
    """Not a context or operator marker (Load, Add, Eq...), which carry no positions."""
    return not isinstance(
        node, (ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop)
    )


def _literal_length(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        return len(node.value)
    if isinstance(node, (ast.List, ast.Tuple)):
        return len(node.elts)
    return None


_STATIC_OPS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: _static_product(a, b),
    ast.Pow: lambda a, b: _g_pow(a, b),
    ast.LShift: lambda a, b: _g_lshift(a, b),
}


def _static_product(a: int, b: int) -> int:
    if a.bit_length() + b.bit_length() > MAX_INT_BITS:
        raise _NotStatic
    return a * b


class _NotStatic(Exception):
    """A literal computation too large to fold at compile time (left to the runtime guards)."""


def _static_int(node: ast.expr, depth: int = 0) -> int | None:
    """The value of an integer expression written with literals only (guarded), else None."""
    if depth > 30:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, int) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _static_int(node.operand, depth + 1)
        if value is None:
            return None
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _STATIC_OPS:
        left = _static_int(node.left, depth + 1)
        right = _static_int(node.right, depth + 1) if left is not None else None
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Pow | ast.LShift) and right < 0:
            return None
        try:
            return _STATIC_OPS[type(node.op)](left, right)
        except _NotStatic:
            return None
    return None


class _Guard(ast.NodeTransformer):
    """Replaces operations whose result size is not bounded by their inputs with guards."""

    _BINARY: ClassVar[dict[type[ast.operator], str]] = {
        ast.Pow: "_g_pow",
        ast.Mult: "_g_mul",
        ast.Mod: "_g_mod",
        ast.LShift: "_g_lshift",
    }

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        helper = self._BINARY.get(type(node.op))
        if helper is None:
            return node
        guarded = ast.Call(ast.Name(helper, ast.Load()), [node.left, node.right], [])
        number = isinstance(node.right, ast.Constant) and type(node.right.value) in (int, float)
        if isinstance(node.left, ast.Name) and (
            isinstance(node.op, ast.Mod) or (isinstance(node.op, ast.Mult) and number)
        ):
            # `x % y` and `x * 2` with an int x: the plain operation, without a call (an int
            # `%` never formats, an int times a number never repeats a sequence).
            # `x.__class__` is written here, never by a user: they cannot write `_` names.
            check = ast.Compare(
                ast.Attribute(ast.Name(node.left.id, ast.Load()), "__class__", ast.Load()),
                [ast.Is()],
                [ast.Name("_g_int", ast.Load())],
            )
            plain = ast.BinOp(node.left, node.op, node.right)
            return ast.copy_location(ast.IfExp(check, plain, guarded), node)
        return ast.copy_location(guarded, node)

    _NAMES: ClassVar[dict[str, str]] = {"range": "_g_range", "str": "_g_str"}
    _METHODS: ClassVar[dict[str, str]] = {"replace": "_g_replace", "join": "_g_join"}

    def visit_Name(self, node: ast.Name) -> ast.expr:
        helper = self._NAMES.get(node.id)
        if helper is not None:  # called or passed (`sorted(xs, key=str)`)
            return ast.copy_location(ast.Name(helper, ast.Load()), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        helper = self._METHODS.get(func.attr) if isinstance(func, ast.Attribute) else None
        if helper is not None:
            assert isinstance(func, ast.Attribute)
            return ast.copy_location(
                ast.Call(ast.Name(helper, ast.Load()), [func.value, *node.args], node.keywords),
                node,
            )
        return node

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.expr:
        # `f"{xs}"` writes the text of `xs`, as `str(xs)` does.
        self.generic_visit(node)
        node.value = ast.copy_location(
            ast.Call(ast.Name("_g_text", ast.Load()), [node.value], []), node.value
        )
        return node


class _Renamer(ast.NodeTransformer):
    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        new = self.names.get(node.id)
        if new is None:
            return node
        return ast.copy_location(ast.Name(new, node.ctx), node)


# --- guards ----------------------------------------------------------------------------

_SEQUENCES = (str, bytes, list, tuple)


def _g_pow(a: Any, b: Any) -> Any:
    big = isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1
    if big and b * (a.bit_length() - 1) > MAX_INT_BITS:
        raise ExpressionLimitError(f"{a} ** {b} would be larger than {MAX_INT_BITS} bits")
    return a**b


def _g_mul(a: Any, b: Any) -> Any:
    if isinstance(b, int) and isinstance(a, _SEQUENCES):
        size = len(a) * b
    elif isinstance(a, int) and isinstance(b, _SEQUENCES):
        size = len(b) * a
    else:
        return a * b
    if size > MAX_SEQUENCE:
        raise ExpressionLimitError(
            f"repetition would make {size} items; the limit is {MAX_SEQUENCE}"
        )
    return a * b


def _g_lshift(a: Any, b: Any) -> Any:
    big = isinstance(a, int) and isinstance(b, int) and a and b > 0
    if big and b + a.bit_length() > MAX_INT_BITS:
        raise ExpressionLimitError(f"{a} << {b} would be larger than {MAX_INT_BITS} bits")
    return a << b


def _g_mod(a: Any, b: Any) -> Any:
    if isinstance(a, (str, bytes)):
        _check_format(a, b)
    return a % b


@dataclass(frozen=True, slots=True)
class _Conversion:
    """One `%...x` of a printf-style template."""

    key: str | None
    """The mapping key of `%(key)s`; None for a positional conversion."""
    width: int
    precision: int
    """What a precision adds (digits of `%.50f`); 0 for none, or for `%.3s`, which cuts."""


_FLAGS = frozenset("#0- +")
_LENGTH_MODIFIERS = frozenset("hlL")
_CUTTING = frozenset("sra")
"""Conversions whose precision shortens the text instead of adding digits."""


def _conversions(template: str) -> list[_Conversion]:
    """The conversions of a %-format template, read as CPython reads them: a mapping key
    may hold nested parentheses (`%(a(b))s`), then flags, width, precision and a length
    modifier. Raises `ExpressionLimitError` for `*` and for a width or precision above
    `MAX_FORMAT_WIDTH`; what Python itself refuses (an unfinished key) is left to it."""
    found: list[_Conversion] = []
    end = len(template)
    at = template.find("%")
    while 0 <= at < end - 1:
        at += 1
        if template[at] == "%":  # `%%` is a literal `%`
            at = template.find("%", at + 1)
            continue
        key = None
        if template[at] == "(":
            depth, start = 1, at + 1
            at += 1
            while at < end and depth:
                depth += {"(": 1, ")": -1}.get(template[at], 0)
                at += 1
            if depth:
                break  # Python says "incomplete format key"
            key = template[start : at - 1]
        while at < end and template[at] in _FLAGS:
            at += 1
        width, at = _format_number(template, at)
        precision = 0
        if at < end and template[at] == ".":
            precision, at = _format_number(template, at + 1)
        while at < end and template[at] in _LENGTH_MODIFIERS:
            at += 1
        if at >= end:
            break  # Python says "incomplete format"
        if template[at] in _CUTTING:
            precision = 0
        found.append(_Conversion(key, width, precision))
        at = template.find("%", at + 1)
    return found


def _format_number(template: str, at: int) -> tuple[int, int]:
    """The width or precision at `at` (0 if none) and where it ends."""
    if at < len(template) and template[at] == "*":
        raise ExpressionLimitError("'*' widths are not allowed in % formatting")
    start = at
    while at < len(template) and template[at].isdigit():
        at += 1
    digits = template[start:at]
    if len(digits) > 5 or (digits and int(digits) > MAX_FORMAT_WIDTH):
        raise ExpressionLimitError(f"% format widths above {MAX_FORMAT_WIDTH} are not allowed")
    return (int(digits) if digits else 0), at


@lru_cache(maxsize=1024)
def _cached_conversions(template: str) -> list[_Conversion]:
    return _conversions(template)


def _check_format(template: str | bytes, values: Any) -> None:
    """Refuse `template % values` if its text would exceed `MAX_SEQUENCE` characters: the
    template, every width and added precision, and the text of every value a conversion
    inserts (a mapping key used many times inserts its value as often)."""
    text = template if isinstance(template, str) else template.decode("latin-1")
    conversions = _cached_conversions(text) if len(text) <= 1_000 else _conversions(text)
    size = len(text)
    positional = iter(values if isinstance(values, tuple) else (values,))
    for conversion in conversions:
        if conversion.key is None:
            value = next(positional, None)
        elif isinstance(values, Mapping):
            value = values.get(conversion.key)
        else:
            value = None  # Python says "format requires a mapping"
        # At most the value's text, its precision's digits and the padding to its width.
        size += conversion.width + conversion.precision + _text_size(value)
        if size > MAX_SEQUENCE:
            raise ExpressionLimitError(
                f"% formatting would make more than {MAX_SEQUENCE} characters"
            )


_SCALARS = frozenset({str, int, float, bool, type(None)})
_SEQUENCES_OF_ITEMS = (list, tuple, set, frozenset, KeysView, ValuesView)


def _text_size(value: Any, limit: int = MAX_SEQUENCE) -> int:
    """An upper bound of `len(str(value))`, counted without building the text: a list that
    holds one long string a million times is a small object with an enormous text.
    Raises `ExpressionLimitError` once the bound passes `limit`."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            total += len(item) + 2  # quotes, inside a container
        elif kind is int:
            total += item.bit_length() * 31 // 100 + 2  # log10(2) < 0.31
        elif kind is bytes:
            total += 4 * len(item) + 3  # \xNN escapes
        elif isinstance(item, _SEQUENCES_OF_ITEMS):
            total += 2 + 2 * len(item)
            stack.extend(item)
        elif isinstance(item, dict | ItemsView):
            pairs = item.items() if isinstance(item, dict) else item
            total += 2 + 4 * len(pairs)
            for pair in pairs:
                stack.extend(pair)
        else:  # floats, None, bools, and lazy objects (range, zip) whose text is short
            total += 32
        if total > limit:
            raise ExpressionLimitError(
                f"the text of this value would be more than {MAX_SEQUENCE} characters"
            )
    return total


def _g_str(*args: Any, **kwargs: Any) -> str:
    if len(args) == 1 and not kwargs and type(args[0]) not in _SCALARS:
        _text_size(args[0])
    return str(*args, **kwargs)


def _g_text(value: Any) -> Any:
    """An f-string field's value, once its text is known to be within the limit."""
    if type(value) not in _SCALARS:
        _text_size(value)
    return value


def _g_join(separator: Any, *args: Any, **kwargs: Any) -> Any:
    if not isinstance(separator, (str, bytes)) or len(args) != 1 or kwargs:
        return separator.join(*args, **kwargs)
    # A generator cannot be measured before it is consumed: its items, then.
    items = args[0] if isinstance(args[0], (list, tuple)) else list(args[0])
    size = len(separator) * max(len(items) - 1, 0)
    for item in items:
        if isinstance(item, (str, bytes)):  # anything else: `join` says why not
            size += len(item)
        if size > MAX_SEQUENCE:
            raise ExpressionLimitError(f"join would make more than {MAX_SEQUENCE} characters")
    return separator.join(items)


def _g_range(*args: Any) -> range:
    result = range(*args)
    try:
        size = len(result)
    except OverflowError:
        size = MAX_SEQUENCE + 1
    if size > MAX_SEQUENCE:
        raise ExpressionLimitError(f"range of more than {MAX_SEQUENCE} numbers")
    return result


def _g_replace(target: Any, *args: Any, **kwargs: Any) -> Any:
    if isinstance(target, (str, bytes)):
        named = ("old", "new", "count")
        given = dict(zip(named, args, strict=False)) | {k: kwargs[k] for k in named if k in kwargs}
        old, new, count = given.get("old"), given.get("new"), given.get("count", -1)
        if isinstance(old, type(target)) and isinstance(new, type(target)):
            text: Any = target
            found: int = text.count(old) if old else len(text) + 1
            if isinstance(count, int) and count >= 0:
                found = min(found, count)
            size = len(target) + found * (len(new) - len(old))
            if size > MAX_SEQUENCE:
                raise ExpressionLimitError(
                    f"replace would make {size} characters; the limit is {MAX_SEQUENCE}"
                )
    return target.replace(*args, **kwargs)


GUARDS: Mapping[str, Any] = {
    "_g_int": int,
    "_g_pow": _g_pow,
    "_g_mul": _g_mul,
    "_g_lshift": _g_lshift,
    "_g_mod": _g_mod,
    "_g_range": _g_range,
    "_g_replace": _g_replace,
    "_g_join": _g_join,
    "_g_str": _g_str,
    "_g_text": _g_text,
}
"""The helpers guarded trees call, by the names they call them."""

_FUNCTIONS: dict[str, Any] = {
    name: getattr(builtins, name) for name in ALLOWED_FUNCTIONS if name != "range"
}
_FUNCTIONS_SET = frozenset(ALLOWED_FUNCTIONS)
