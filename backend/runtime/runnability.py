"""What would stop a run: every parameter and graph-shape problem of a document.

`runnability(document)` lists them as compiler `Diagnostic`s with node or edge and
field, checked against the operator catalog (`runtime.catalog`). The editor calls it on
every edit of documents of thousands of operators, so it is one pass over nodes and
edges, expressions come from the compile cache, and it never raises: what it cannot
read it skips (the document's structure is the compiler's to report).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from compiler.diagnostics import Diagnostic, Location, Severity
from compiler.keygroups import MAX_TUPLE_ARITY
from runtime.catalog import (
    CATALOG,
    KEY_VARIABLES,
    PARTITION_VARIABLES,
    SINK_WITH_OUTPUT,
    OperatorSpec,
    ParamSpec,
    ParamType,
)
from runtime.expressions import Expression, ExpressionError, compile_expression
from runtime.paths import is_data_folder_root, path_problem

_X = ("x",)
"""A side output's predicate: of record x."""
_WINDOW_ALL = frozenset(kind for kind in CATALOG if kind.startswith("window_all."))


class _Report:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    def add(
        self,
        code: str,
        message: str,
        *,
        node: int | None = None,
        edge: int | None = None,
        field: str | None = None,
        warning: bool = False,
    ) -> None:
        severity = Severity.WARNING if warning else Severity.ERROR
        self.diagnostics.append(Diagnostic(code, message, Location(node, edge, field), severity))


def runnability(document: object) -> list[Diagnostic]:
    """Every problem of operators, parameters, keys and inputs that would stop a run.

    Errors (and a few warnings) in document order: nodes first, then edges.
    """
    report = _Report()
    try:
        _check_document(document, report)
    except Exception as error:  # garbage the checks did not foresee: report, never raise
        report.add("run.unreadable", f"the document cannot be checked: {error!r}")
    return report.diagnostics


def _check_document(document: object, report: _Report) -> None:
    if not isinstance(document, dict):
        return
    context = _Context.of(document)
    for node in context.nodes:
        _check_node(node, context, report)
    for index, edge in enumerate(context.edges):
        if isinstance(edge, dict):
            _check_edge(index, edge, context.kinds, context.params_of, report)


class _Context:
    """What the checks of one node or edge read of the rest of the document."""

    def __init__(self, nodes: list[Any], edges: list[Any]) -> None:
        self.nodes = nodes
        self.edges = edges
        self.kinds: dict[int, str] = {}
        self.params_of: dict[int, dict[str, Any]] = {}
        # In-edges per node and typeNumber, out-edges per node.
        self.inputs: dict[int, dict[int, list[int]]] = {}
        self.outputs: dict[int, list[int]] = {}
        self.touching: list[int] = []
        """`around`: the indexes of the edges into or out of its nodes."""

    @staticmethod
    def around(
        document: dict[str, Any], node_ids: set[int], near: Neighbourhood | None = None
    ) -> _Context:
        """What the checks of these nodes and of their edges read: their edges, and the
        kinds and parameters of both ends of each (one pass over the edges, or only over
        those `near` names)."""
        nodes = document.get("nodes")
        edges = document.get("edges")
        context = _Context(
            nodes if isinstance(nodes, list) else [], edges if isinstance(edges, list) else []
        )
        ends = set(node_ids)
        candidates = range(len(context.edges)) if near is None else sorted(near.edges)
        for index in candidates:
            edge = context.edges[index]
            if not isinstance(edge, dict):
                continue
            source, target = edge.get("source"), edge.get("target")
            if source not in node_ids and target not in node_ids:
                continue
            context.touching.append(index)
            ends.update(e for e in (source, target) if type(e) is int)
            type_number = edge.get("typeNumber", 0)
            if type(target) is int and type(type_number) is int:
                context.inputs.setdefault(target, {}).setdefault(type_number, []).append(index)
            if type(source) is int:
                context.outputs.setdefault(source, []).append(index)
        if near is None:
            context._read_nodes(ends)
        else:
            context._read_nodes(ends, [near.node(i) for i in ends])
        return context

    def _read_nodes(self, only: set[int] | None, among: list[Any] | None = None) -> None:
        for node in self.nodes if among is None else among:
            if isinstance(node, dict) and type(node.get("id")) is int:
                if only is not None and node["id"] not in only:
                    continue
                kind = node.get("operator")
                self.kinds[node["id"]] = kind if isinstance(kind, str) else ""
                params = node.get("params")
                self.params_of[node["id"]] = params if isinstance(params, dict) else {}

    @staticmethod
    def of(document: dict[str, Any]) -> _Context:
        """What the checks of every node and edge read."""
        nodes = document.get("nodes")
        edges = document.get("edges")
        context = _Context(
            nodes if isinstance(nodes, list) else [], edges if isinstance(edges, list) else []
        )
        context._read_nodes(None)
        for index, edge in enumerate(context.edges):
            if not isinstance(edge, dict):
                continue
            source, target = edge.get("source"), edge.get("target")
            type_number = edge.get("typeNumber", 0)
            if type(target) is int and type(type_number) is int:
                context.inputs.setdefault(target, {}).setdefault(type_number, []).append(index)
            if type(source) is int:
                context.outputs.setdefault(source, []).append(index)
        return context


def _check_node(node: object, context: _Context, report: _Report) -> None:
    if not isinstance(node, dict) or type(node.get("id")) is not int:
        return
    node_id = node["id"]
    kind = context.kinds[node_id]
    spec = CATALOG.get(kind)
    if spec is None:
        report.add(
            "run.unknown-operator",
            f"'{kind}' is not an operator the runtime can run" if kind else "no operator kind",
            node=node_id,
            field="operator",
        )
        return
    if not isinstance(node.get("params", {}), dict):
        report.add("param.type", "params must be an object", node=node_id, field="params")
    _check_params(node_id, spec, context.params_of[node_id], report)
    _check_inputs(
        node_id, spec, context.inputs.get(node_id, {}), context.outputs.get(node_id, []), report
    )


@dataclass(frozen=True, slots=True)
class ElementProblems:
    """The run problems of some nodes and of the edges that touch them, each on its own
    (`runnability` is the nodes' in document order, then the edges')."""

    nodes: dict[int, list[Diagnostic]]
    edges: dict[int, list[Diagnostic]]
    """By edge index."""


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    """Where the checks of some nodes find what they read, so that they need not scan the
    whole document: every node by id (`node`), and the indexes of the edges into or out of
    the nodes checked (`edges`)."""

    node: Callable[[int], Any]
    edges: Iterable[int]


def element_runnability(
    document: dict[str, Any], node_ids: set[int], near: Neighbourhood | None = None
) -> ElementProblems:
    """The run problems of the nodes with these ids and of every edge into or out of
    them, as `runnability` finds them; raises on what it cannot read (the caller checks
    the whole document then)."""
    context = _Context.around(document, node_ids, near)
    nodes: dict[int, list[Diagnostic]] = {}
    checked = context.nodes if near is None else [near.node(i) for i in node_ids]
    for node in checked:
        if isinstance(node, dict) and node.get("id") in node_ids:
            report = _Report()
            _check_node(node, context, report)
            nodes[node["id"]] = report.diagnostics
    edges: dict[int, list[Diagnostic]] = {}
    for index in context.touching:
        report = _Report()
        _check_edge(index, context.edges[index], context.kinds, context.params_of, report)
        edges[index] = report.diagnostics
    return ElementProblems(nodes=nodes, edges=edges)


def runnability_by_element(
    document: object,
) -> tuple[dict[int, list[Diagnostic]], list[list[Diagnostic]]] | None:
    """`runnability` split into each node's problems (by id) and each edge's (by index);
    None when the document cannot be checked element by element (what `runnability`
    reports as unreadable)."""
    if not isinstance(document, dict):
        return {}, []
    try:
        context = _Context.of(document)
        nodes: dict[int, list[Diagnostic]] = {}
        for node in context.nodes:
            report = _Report()
            _check_node(node, context, report)
            if isinstance(node, dict) and type(node.get("id")) is int:
                nodes[node["id"]] = report.diagnostics
        edges: list[list[Diagnostic]] = []
        for index, edge in enumerate(context.edges):
            report = _Report()
            if isinstance(edge, dict):
                _check_edge(index, edge, context.kinds, context.params_of, report)
            edges.append(report.diagnostics)
    except Exception:  # unreadable: `runnability` says so
        return None
    return nodes, edges


def _check_params(node: int, spec: OperatorSpec, params: dict[str, Any], report: _Report) -> None:
    for param in spec.params:
        if not param.applies(params):
            continue  # left from another choice (a window's assigner): not read, not checked
        value = params.get(param.name)
        field = f"params.{param.name}"
        if value is None:
            if param.required:
                report.add(
                    "param.required",
                    _required_message(spec, param, params),
                    node=node,
                    field=field,
                )
            continue
        _check_value(node, param, value, field, report, writes=spec.is_sink)
    for name in spec.unknown_params(params):
        report.add(
            "param.unknown",
            f"'{name}' is not a parameter of {spec.label}; it is kept but not used",
            node=node,
            field=f"params.{name}",
            warning=True,
        )
    extra = _EXTRA_CHECKS.get(spec.kind.split(".")[0])
    if extra is not None:
        extra(node, spec, params, report)


def _required_message(spec: OperatorSpec, param: ParamSpec, params: dict[str, Any]) -> str:
    condition = param.applies_when
    if condition is None:
        return f"{param.label} is required"
    chosen = spec.param(condition.param).label
    return f"{param.label} is required when {chosen} is {params[condition.param]}"


def _check_value(
    node: int, param: ParamSpec, value: Any, field: str, report: _Report, *, writes: bool
) -> None:
    """Report what is wrong with one parameter's value (`writes`: the node is a sink)."""
    kind = param.type
    if kind is ParamType.EXPRESSION:
        if not isinstance(value, str):
            report.add(
                "param.type", f"{param.label} must be an expression (text)", node=node, field=field
            )
            return
        try:
            compile_expression(value, param.variables)
        except ExpressionError as error:
            report.add(
                "param.invalid-expression", f"{param.label}: {error}", node=node, field=field
            )
    elif kind is ParamType.INTEGER:
        if type(value) is not int:
            report.add(
                "param.type", f"{param.label} must be a whole number", node=node, field=field
            )
        elif param.minimum is not None and value < param.minimum:
            report.add(
                "param.range",
                f"{param.label} must be at least {param.minimum}",
                node=node,
                field=field,
            )
    elif kind is ParamType.NUMBER:
        if type(value) not in (int, float):
            report.add("param.type", f"{param.label} must be a number", node=node, field=field)
    elif kind is ParamType.BOOLEAN:
        if type(value) is not bool:
            report.add("param.type", f"{param.label} must be true or false", node=node, field=field)
    elif kind is ParamType.ENUM:
        if value not in (param.choices or ()):
            choices = ", ".join(param.choices or ())
            report.add(
                "param.choice", f"{param.label} must be one of {choices}", node=node, field=field
            )
    elif kind is ParamType.VALUES:
        if not isinstance(value, list):
            report.add("param.type", f"{param.label} must be a JSON list", node=node, field=field)
    elif kind is ParamType.PATH:
        if not isinstance(value, str):
            report.add("param.type", f"{param.label} must be text", node=node, field=field)
            return
        problem = path_problem(value)
        if problem is not None:
            report.add("param.path-outside-data", problem, node=node, field=field)
        elif writes and is_data_folder_root(value):
            report.add(
                "param.path-root",
                "a sink writes into a folder of its own inside the data folder, not into the "
                "data folder itself; name one, e.g. 'out'",
                node=node,
                field=field,
            )
    elif kind is ParamType.STRING and param.name == "field":
        if type(value) not in (int, str):
            report.add(
                "param.type",
                f"{param.label} must be a position or a name",
                node=node,
                field=field,
            )
    elif kind is ParamType.STRING and not isinstance(value, str):
        report.add("param.type", f"{param.label} must be text", node=node, field=field)


def _check_process(node: int, spec: OperatorSpec, params: dict[str, Any], report: _Report) -> None:
    if spec.kind != "process":
        return
    sides = params.get("sideOutputs")
    if not isinstance(sides, list):
        return
    for position, side in enumerate(sides):
        field = f"params.sideOutputs[{position}]"
        if not isinstance(side, dict) or not isinstance(side.get("tag"), str):
            report.add(
                "param.type",
                'each side output must be {"tag": "...", "predicate": "..."}',
                node=node,
                field=field,
            )
            continue
        predicate = side.get("predicate", "True")
        if not isinstance(predicate, str):
            report.add(
                "param.type", "a side output's predicate must be text", node=node, field=field
            )
            continue
        try:
            compile_expression(predicate, _X)
        except ExpressionError as error:
            report.add(
                "param.invalid-expression",
                f"side output '{side['tag']}': {error}",
                node=node,
                field=f"{field}.predicate",
            )


def _check_sequence(node: int, spec: OperatorSpec, params: dict[str, Any], report: _Report) -> None:
    first: Any = params.get("from")
    last: Any = params.get("to")
    numbers = type(first) is int and type(last) is int
    if spec.kind == "source.sequence" and numbers and first > last:  # Flink refuses it too
        report.add("param.range", "To must not be less than From", node=node, field="params.to")


_EXTRA_CHECKS: dict[str, Callable[[int, OperatorSpec, dict[str, Any], _Report], None]] = {
    "source": _check_sequence,
    "process": _check_process,
}


def _check_inputs(
    node: int,
    spec: OperatorSpec,
    inputs: dict[int, list[int]],
    outputs: list[int],
    report: _Report,
) -> None:
    if spec.inputs == 0:
        for edges in inputs.values():
            for edge in edges:
                report.add(
                    "run.inputs",
                    f"{spec.label} is a source and cannot have inputs",
                    edge=edge,
                    field="target",
                )
    elif spec.inputs == 1:
        if not inputs:
            report.add("run.inputs", f"{spec.label} needs an input", node=node, field="inputs")
        for type_number, edges in inputs.items():
            if type_number != 0:
                for edge in edges:
                    report.add(
                        "run.inputs",
                        f"{spec.label} has one input: the edge's typeNumber must be 0",
                        edge=edge,
                        field="typeNumber",
                    )
    else:
        for type_number in (1, 2):
            if type_number not in inputs:
                report.add(
                    "run.inputs",
                    f"{spec.label} needs input {type_number} (an edge with typeNumber "
                    f"{type_number})",
                    node=node,
                    field="inputs",
                )
        for type_number, edges in inputs.items():
            if type_number not in (1, 2):
                for edge in edges:
                    report.add(
                        "run.inputs",
                        f"{spec.label} has two inputs: the edge's typeNumber must be 1 or 2",
                        edge=edge,
                        field="typeNumber",
                    )
    if spec.is_sink and spec.kind not in SINK_WITH_OUTPUT:
        for edge in outputs:
            report.add(
                "run.outputs",
                f"{spec.label} is a sink and cannot send records on",
                edge=edge,
                field="source",
            )


def _check_edge(
    index: int,
    edge: dict[str, Any],
    kinds: dict[int, str],
    params_of: dict[int, dict[str, Any]],
    report: _Report,
) -> None:
    partitioner = edge.get("partitioner", "FORWARD")
    source = edge.get("source")
    source = source if type(source) is int else None
    target = edge.get("target")
    target_kind = kinds.get(target, "") if type(target) is int else ""
    spec = CATALOG.get(target_kind)
    key = edge.get("key")
    key_fn = key.get("fn") if isinstance(key, dict) else None
    if spec is not None and spec.keyed:
        if partitioner != "HASH" or key_fn is None:
            report.add(
                "run.keyed-input-needs-key",
                f"{spec.label} is keyed: its input edges must be HASH (keyBy) with a key, "
                "such as x[0]",
                edge=index,
                field="key" if partitioner == "HASH" else "partitioner",
            )
    elif partitioner == "HASH" and key_fn is None and target_kind not in _WINDOW_ALL:
        report.add(
            "run.hash-needs-key",
            "a HASH (keyBy) edge needs a key, such as x % 10",
            edge=index,
            field="key",
        )
    if partitioner == "CUSTOM" and not (
        isinstance(key, dict) and key.get("fn") is not None and key.get("partition") is not None
    ):
        report.add(
            "run.custom-needs-partition",
            "a CUSTOM edge needs a key, such as x, and a partition function of the key and "
            "the subtask count n, such as key % n",
            edge=index,
            field="key",
        )
    if key_fn is not None and partitioner in ("HASH", "CUSTOM"):
        expression = _edge_expression(index, key_fn, KEY_VARIABLES, "key.fn", report)
        if expression is not None and partitioner == "HASH":
            problem = static_key_problem(expression)
            if problem is not None:
                report.add("run.key-type", problem, edge=index, field="key.fn")
    if partitioner == "CUSTOM" and isinstance(key, dict) and key.get("partition") is not None:
        _edge_expression(index, key["partition"], PARTITION_VARIABLES, "key.partition", report)
    tag = edge.get("sideOutputTag")
    if tag is not None:
        sides = params_of.get(source, {}).get("sideOutputs") if source is not None else None
        tags = (
            [s.get("tag") for s in sides if isinstance(s, dict)] if isinstance(sides, list) else []
        )
        if source is None or kinds.get(source) != "process" or tag not in tags:
            report.add(
                "run.side-output",
                f"side output '{tag}' is not declared by the edge's source: a process "
                "operator lists it in sideOutputs",
                edge=index,
                field="sideOutputTag",
            )


def _edge_expression(
    index: int, text: object, variables: tuple[str, ...], field: str, report: _Report
) -> Expression | None:
    if not isinstance(text, str):
        report.add("param.type", "the key must be an expression (text)", edge=index, field=field)
        return None
    try:
        return compile_expression(text, variables)
    except ExpressionError as error:
        report.add("param.invalid-expression", f"key: {error}", edge=index, field=field)
        return None


_NOT_KEYS = {
    "List": "a list",
    "Dict": "a dict",
    "Set": "a set",
    "ListComp": "a list",
    "SetComp": "a set",
    "DictComp": "a dict",
    "GeneratorExp": "a generator",
}
_NOT_KEY_CALLS = {
    "float": "a float",
    "list": "a list",
    "dict": "a dict",
    "set": "a set",
    "sorted": "a list",
}


def static_key_problem(expression: Expression) -> str | None:
    """Why a key expression can never give a valid key, when its text already shows it.

    Keys must be int, str or bool, or a tuple of them: what Flink hashes as
    Integer/Long, String, Boolean and TupleN.
    """
    found = _literal_problem(expression.tree)
    if found is None:
        return None
    return f"the key is {found}; keys must be int, str, bool or a tuple of them"


def _literal_problem(tree: ast.AST) -> str | None:
    """What a key written as `tree` is, when its text shows it cannot be a key."""
    if isinstance(tree, ast.Tuple):
        if len(tree.elts) > MAX_TUPLE_ARITY:
            count = len(tree.elts)
            return f"a tuple of {count} fields (Flink's tuples have at most {MAX_TUPLE_ARITY})"
        for element in tree.elts:
            inner = _literal_problem(element)
            if inner is not None:
                return f"a tuple with {inner} in it"
        return None
    if type(tree).__name__ in _NOT_KEYS:
        return _NOT_KEYS[type(tree).__name__]
    if isinstance(tree, ast.Constant) and not isinstance(tree.value, (int, str)):
        return "a float" if isinstance(tree.value, float) else repr(tree.value)
    if (
        isinstance(tree, ast.Call)
        and isinstance(tree.func, ast.Name)
        and tree.func.id in _NOT_KEY_CALLS
    ):
        return _NOT_KEY_CALLS[tree.func.id]
    return None
