"""What a pipeline imported from Flink's plan JSON needs before it can run.

Flink's `getExecutionPlan()` names each operator as Flink shows it (`Source: Collection
Source`, `FlatMap`, `Keyed Aggregation`) and says whether it is a `Data Source`, a `Data
Sink` or an `Operator` (its pact), but not what it computes: the import leaves the
operator kind to choose (`compiler.flinkjson`). `suggest_operator` proposes the catalog
kind that fits a Flink name and pact; `import_checklist` lists, per node, the kind to
choose and everything else that would stop a run once the suggestions are taken (the run
problems of `runtime.runnability`, an edge's under its target node). Pure and quick: the
plan endpoint calls it on every request.
"""

from __future__ import annotations

import re
from typing import Any

from compiler.diagnostics import Severity
from runtime.catalog import CATALOG, OperatorSpec
from runtime.runnability import runnability

IMPORTED_FROM_FLINK_PLAN = "flink-execution-plan"
"""`meta.importedFrom` of a document made from Flink's plan JSON."""

DATA_SOURCE = "Data Source"
DATA_SINK = "Data Sink"
OPERATOR = "Operator"

# Flink names beside the catalog's own default names (Java API names, spelled variants).
_ALIASES = {
    "Flat Map": "flat_map",
    "Keyed Aggregation": "reduce",
    "Keyed Reduce": "reduce",
    "Process": "process",
    "Keyed Process": "keyed_process",
    "KeyedProcess": "keyed_process",
    "CoMap": "co_map",
    "CoFlatMap": "co_flat_map",
    "CoProcess": "co_process",
    "KeyedCoProcess": "keyed_co_process",
    "Co-Process-Broadcast-Keyed": "broadcast_process",
}
# Words in a source's or a sink's name, in the order they are tried.
_SOURCE_WORDS = (
    ("sequence", "source.sequence"),
    ("generator", "source.generator"),
    ("datagen", "source.generator"),
    ("collection", "source.collection"),
    ("csv", "source.csv"),
    ("json", "source.json"),
    ("parquet", "source.parquet"),
    ("text", "source.text"),
    ("file", "source.text"),
    ("socket", "source.text"),
)
_SINK_WORDS = (
    ("print", "sink.print"),
    ("collect", "sink.collect"),
    ("csv", "sink.csv"),
    ("json", "sink.json"),
    ("text", "sink.text"),
    ("file", "sink.text"),
)
_DEFAULT_SOURCE = "source.collection"
"""A source the catalog has no counterpart for (Kafka, ...): sample records stand in."""
_DEFAULT_SINK = "sink.print"


def _key(name: str) -> str:
    """A name compared without case, spaces and punctuation (`Flat Map` = `FlatMap`)."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _by_name() -> dict[str, str]:
    """Catalog kinds by their Flink default name; palette kinds first, then catalog order."""
    index: dict[str, str] = {}
    for spec in sorted(CATALOG.values(), key=lambda spec: not spec.palette):
        index.setdefault(_key(spec.name), spec.kind)
    for name, kind in _ALIASES.items():
        index.setdefault(_key(name), kind)
    return index


_BY_NAME = _by_name()


def suggest_operator(name: str, pact: str) -> str | None:
    """The catalog kind that fits an operator Flink names `name` with pact `pact`
    (`Data Source`, `Data Sink`, `Operator`); None when none does."""
    if name.endswith(": Writer"):
        return "sink.writer"
    if name.endswith(": Committer"):
        return "sink.committer"
    exact = _BY_NAME.get(_key(name))
    if exact is not None:
        return exact
    lower = name.lower()
    if pact == DATA_SOURCE or lower.startswith("source:"):
        return next((kind for word, kind in _SOURCE_WORDS if word in lower), _DEFAULT_SOURCE)
    if pact == DATA_SINK or lower.startswith("sink:"):
        return next((kind for word, kind in _SINK_WORDS if word in lower), _DEFAULT_SINK)
    if lower.startswith("window("):  # Java: Window(TumblingEventTimeWindows(5000), ...)
        if "aggregate" in lower:
            return "window.aggregate"
        return "window.reduce" if "reduce" in lower else "window.process"
    return None


def _nodes_and_edges(document: dict[str, Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    nodes = document.get("nodes")
    edges = document.get("edges")
    return (
        [n for n in nodes if isinstance(n, dict) and type(n.get("id")) is int]
        if isinstance(nodes, list)
        else [],
        edges if isinstance(edges, list) else [],
    )


def _pacts(nodes: list[dict[str, Any]], edges: list[Any]) -> dict[int, str]:
    """Each node's pact as Flink's plan gives it: a source has no inputs, a sink is one
    Flink lists among its sinks (as `compiler.flinkjson.is_data_sink` tells them)."""
    fed = {e.get("target") for e in edges if isinstance(e, dict)}
    pacts: dict[int, str] = {}
    for node in nodes:
        operator = node.get("operator")
        operator = operator if isinstance(operator, str) else ""
        if node["id"] not in fed:
            pacts[node["id"]] = DATA_SOURCE
        elif (operator == "sink" or operator.startswith("sink.")) and operator not in (
            "sink.writer",
            "sink.committer",
        ):
            pacts[node["id"]] = DATA_SINK
        else:
            pacts[node["id"]] = OPERATOR
    return pacts


def _with_defaults(spec: OperatorSpec, params: object) -> dict[str, Any]:
    defaults = {p.name: p.default for p in spec.params if p.default is not None}
    return {**defaults, **(params if isinstance(params, dict) else {})}


def import_checklist(document: object) -> dict[str, Any] | None:
    """What is left to do before a pipeline imported from Flink's plan JSON runs; None for
    any other document.

    `nodes` lists every node in document order: its `suggestedOperator` (a catalog kind,
    or null) and its `items`, each with a `code`, `message`, `field` and `edge` (an input
    edge's index, else null): first the kind to choose when the node has none the runtime
    knows, then the run problems left once every suggestion is taken. `remaining` counts
    the items.
    """
    if not isinstance(document, dict):
        return None
    meta = document.get("meta")
    if not isinstance(meta, dict) or meta.get("importedFrom") != IMPORTED_FROM_FLINK_PLAN:
        return None
    nodes, edges = _nodes_and_edges(document)
    pacts = _pacts(nodes, edges)
    suggestions: dict[int, str | None] = {}
    planned: list[dict[str, Any]] = []
    for node in nodes:
        name = node.get("name") if isinstance(node.get("name"), str) else ""
        suggestion = suggest_operator(str(name), pacts[node["id"]])
        suggestions[node["id"]] = suggestion
        if node.get("operator") not in CATALOG and suggestion is not None:
            spec = CATALOG[suggestion]
            node = {
                **node,
                "operator": suggestion,
                "params": _with_defaults(spec, node.get("params")),
            }
        planned.append(node)

    items: dict[int, list[dict[str, Any]]] = {node["id"]: [] for node in nodes}
    for node in nodes:
        if node.get("operator") in CATALOG:
            continue
        suggestion = suggestions[node["id"]]
        where = f"Flink names it '{node.get('name')}' ({pacts[node['id']]})"
        message = (
            f"choose what it runs: {where}, and {CATALOG[suggestion].label} ({suggestion}) fits"
            if suggestion is not None
            else f"choose what it runs: {where}, which no operator of the catalog matches"
        )
        items[node["id"]].append(
            {"code": "import.operator", "message": message, "field": "operator", "edge": None}
        )
    target_of = {
        index: edge.get("target") for index, edge in enumerate(edges) if isinstance(edge, dict)
    }
    for problem in runnability({**document, "nodes": planned}):
        if problem.severity is not Severity.ERROR:
            continue
        edge = problem.location.edge
        node_id = problem.location.node if edge is None else target_of.get(edge)
        if node_id not in items:
            continue
        if problem.code == "run.unknown-operator" and items[node_id]:
            continue  # the kind to choose is already the first item
        items[node_id].append(
            {
                "code": problem.code,
                "message": problem.message,
                "field": problem.location.field,
                "edge": edge,
            }
        )
    return {
        "importedFrom": IMPORTED_FROM_FLINK_PLAN,
        "remaining": sum(len(found) for found in items.values()),
        "nodes": [
            {
                "node": node["id"],
                "name": node.get("name"),
                "operator": node.get("operator"),
                "suggestedOperator": suggestions[node["id"]],
                "items": items[node["id"]],
            }
            for node in nodes
        ],
    }
