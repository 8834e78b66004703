"""The runnability diagnostics the editor shows: parameters, keys, inputs, and garbage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from runtime.catalog import ASSIGNERS, CATALOG, ParamType
from runtime.runnability import runnability
from tests.runtime.builders import Doc

# The Flink-produced fixtures (the compiler tests keep the repository's copy).
_DATA = Path(__file__).resolve().parents[1] / "compiler" / "data" / "fixtures"
FIXTURES = sorted(_DATA.glob("*.streamgraph.json"))

KNOWN_CODES = {
    "param.required",
    "param.type",
    "param.choice",
    "param.range",
    "param.invalid-expression",
    "param.path-outside-data",
    "param.path-root",
    "param.unknown",
    "run.unknown-operator",
    "run.inputs",
    "run.outputs",
    "run.keyed-input-needs-key",
    "run.hash-needs-key",
    "run.custom-needs-partition",
    "run.key-type",
    "run.side-output",
}


def errors(document: dict[str, Any]) -> list[tuple[str, int | None, int | None, str | None]]:
    return [
        (d.code, d.location.node, d.location.edge, d.location.field)
        for d in runnability(document)
        if d.severity.value == "error"
    ]


def _runnable_with_defaults(kind: str) -> dict[str, Any]:
    """A document where `kind` has the editor's defaults and the inputs it needs."""
    spec = CATALOG[kind]
    params = {p.name: p.default for p in spec.params if p.default is not None}
    if any(p.type is ParamType.PATH for p in spec.params):
        params["path"] = "data/file.txt"
    doc = Doc()
    if spec.inputs == 0:
        doc.node(1, kind, params).node(2, "sink.print").edge(1, 2)
        return doc.build()
    doc.node(1, "source.sequence", {"from": 1, "to": 5}).node(2, kind, params)
    partitioner = "HASH" if spec.keyed else "FORWARD"
    key = "x % 2" if spec.keyed else None
    if spec.inputs == 1:
        doc.edge(1, 2, partitioner, key=key)
    else:
        doc.node(3, "source.sequence", {"from": 1, "to": 5})
        doc.edge(1, 2, partitioner, key=key, type_number=1)
        doc.edge(3, 2, partitioner, key=key, type_number=2)
    if not spec.is_sink:
        doc.node(9, "sink.print").edge(2, 9)
    elif kind == "sink.writer":
        doc.node(9, "sink.committer").edge(2, 9)
    return doc.build()


@pytest.mark.parametrize("kind", sorted(CATALOG))
def test_every_kind_runs_with_the_editors_defaults(kind: str):
    assert errors(_runnable_with_defaults(kind)) == []


@pytest.mark.parametrize(
    ("node", "params", "expected"),
    [
        ("map", {}, ("param.required", "params.fn")),
        ("map", {"fn": "x +"}, ("param.invalid-expression", "params.fn")),
        ("map", {"fn": 3}, ("param.type", "params.fn")),
        ("map", {"fn": "open('x')"}, ("param.invalid-expression", "params.fn")),
        ("filter", {"predicate": "x.__class__"}, ("param.invalid-expression", "params.predicate")),
        ("source.sequence", {"from": 1, "to": "9"}, ("param.type", "params.to")),
        ("source.sequence", {"from": True, "to": 9}, ("param.type", "params.from")),
        ("source.sequence", {"from": 9, "to": 8}, ("param.range", "params.to")),
        ("source.generator", {"count": -1, "fn": "i"}, ("param.range", "params.count")),
        ("source.generator", {"count": 3, "fn": "x"}, ("param.invalid-expression", "params.fn")),
        ("source.collection", {"values": "rows"}, ("param.type", "params.values")),
        ("source.text", {"path": "/etc/passwd"}, ("param.path-outside-data", "params.path")),
        ("source.text", {"path": "a/../../b"}, ("param.path-outside-data", "params.path")),
        ("source.csv", {"path": "C:\\data"}, ("param.path-outside-data", "params.path")),
        ("source.csv", {"path": "a.csv", "header": "yes"}, ("param.type", "params.header")),
        ("sink.text", {"path": ""}, ("param.path-outside-data", "params.path")),
        ("sink.text", {"path": "."}, ("param.path-root", "params.path")),
        ("sink.csv", {"path": "./"}, ("param.path-root", "params.path")),
        ("sink.json", {"path": ".//."}, ("param.path-root", "params.path")),
        ("window.reduce", {"assigner": "weekly", "fn": "a"}, ("param.choice", "params.assigner")),
        (
            "window.reduce",
            {"assigner": "sliding_event_time", "sizeMs": 10, "timestamp": "x", "fn": "a"},
            ("param.required", "params.slideMs"),
        ),
        (
            "window.reduce",
            {"assigner": "tumbling_event_time", "sizeMs": 10, "fn": "a"},
            ("param.required", "params.timestamp"),
        ),
        (
            "window.reduce",
            {"assigner": "count_tumbling", "size": 0, "fn": "a"},
            ("param.range", "params.size"),
        ),
        (
            "window.process",
            {"assigner": "count_tumbling", "size": 2, "fn": "x"},
            ("param.invalid-expression", "params.fn"),
        ),
        (
            "aggregate",
            {"zero": "x", "add": "acc", "result": "acc"},
            ("param.invalid-expression", "params.zero"),
        ),
        ("sum", {"field": [1]}, ("param.type", "params.field")),
        (
            "process",
            {"fn": "x", "sideOutputs": [{"tag": "t", "predicate": "y"}]},
            ("param.invalid-expression", "params.sideOutputs[0].predicate"),
        ),
        ("process", {"fn": "x", "sideOutputs": ["t"]}, ("param.type", "params.sideOutputs[0]")),
        ("nonsense", {}, ("run.unknown-operator", "operator")),
    ],
)  # fmt: skip
def test_bad_parameters_are_reported_on_the_node_and_field(
    node: str, params: dict[str, Any], expected: tuple[str, str]
):
    spec = CATALOG.get(node)
    doc = Doc()
    if spec is not None and spec.inputs == 0:
        doc.node(7, node, params).node(8, "sink.print").edge(7, 8)
    else:
        keyed = spec is not None and spec.keyed
        doc.node(1, "source.sequence", {"from": 1, "to": 3}).node(7, node, params)
        doc.edge(1, 7, "HASH" if keyed else "FORWARD", key="x" if keyed else None)
    code, field = expected
    assert (code, 7, None, field) in errors(doc.build())


def _window(params: dict[str, Any], kind: str = "window.reduce") -> dict[str, Any]:
    return (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 3})
        .node(2, kind, {"fn": "a + b", **params})
        .node(3, "sink.print")
        .edge(1, 2, "HASH", key="x % 2")
        .edge(2, 3)
        .build()
    )


@pytest.mark.parametrize("assigner", ASSIGNERS)
def test_a_window_requires_what_its_assigner_reads_and_nothing_else(assigner: str):
    spec = CATALOG["window.reduce"]
    reads = {p.name for p in spec.params if p.applies_when and p.applies({"assigner": assigner})}
    found = runnability(_window({"assigner": assigner}))
    assert {d.location.field for d in found} == {f"params.{name}" for name in reads}
    assert all(d.code == "param.required" and d.location.node == 2 for d in found)
    label = spec.param(sorted(reads)[0]).label
    assert f"{label} is required when Windows is {assigner}" in [d.message for d in found]


def test_values_left_from_another_assigner_are_neither_required_nor_checked():
    stale = {"sizeMs": 0, "slideMs": "soon", "gapMs": -1, "timestamp": "x[", "slide": None}
    for kind in ("window.reduce", "window_all.reduce"):
        assert runnability(_window({**stale, "assigner": "count_tumbling", "size": 2}, kind)) == []
    # What applies is still checked.
    found = errors(_window({**stale, "assigner": "count_tumbling", "size": 0}))
    assert found == [("param.range", 2, None, "params.size")]
    found = errors(_window({**stale, "assigner": "sliding_event_time", "sizeMs": 10}))
    assert found == [
        ("param.type", 2, None, "params.slideMs"),
        ("param.invalid-expression", 2, None, "params.timestamp"),
    ]


def test_graph_shape_problems_name_the_edge_or_node():
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 3})
        .node(2, "reduce", {"fn": "a + b"})
        .node(3, "map", {"fn": "x"})
        .node(4, "co_map", {"fn1": "x", "fn2": "x"})
        .node(5, "sink.print")
        .node(6, "map", {"fn": "x"})
        .node(7, "source.sequence", {"from": 1, "to": 3})
        .edge(1, 2)  # 0: keyed input without HASH
        .edge(1, 3, "HASH")  # 1: HASH without key
        .edge(3, 4, type_number=0)  # 2: typeNumber 0 into a two-input operator
        .edge(4, 5)
        .edge(5, 6)  # 4: a sink sending on
        .edge(1, 3, "CUSTOM")  # 5: CUSTOM without partition function
        .edge(3, 5, tag="late")  # 6: an undeclared side output
        .edge(6, 7)  # 7: into a source
        .edge(1, 3, "HASH", key="(x, [1])")  # 8: a tuple key with a list in it
        .edge(1, 3, "HASH", key="x.")  # 9: a bad key expression
        .build()
    )
    found = errors(doc)
    assert ("run.keyed-input-needs-key", None, 0, "partitioner") in found
    assert ("run.hash-needs-key", None, 1, "key") in found
    assert ("run.inputs", None, 2, "typeNumber") in found
    assert ("run.inputs", 4, None, "inputs") in found  # neither input 1 nor 2
    assert ("run.outputs", None, 4, "source") in found
    assert ("run.custom-needs-partition", None, 5, "key") in found
    assert ("run.side-output", None, 6, "sideOutputTag") in found
    assert ("run.inputs", None, 7, "target") in found
    assert ("run.key-type", None, 8, "key.fn") in found
    assert ("param.invalid-expression", None, 9, "key.fn") in found


def test_a_node_without_input_is_reported():
    doc = Doc().node(1, "map", {"fn": "x"}).build()
    assert ("run.inputs", 1, None, "inputs") in errors(doc)


def test_window_all_runs_behind_a_keyless_hash_edge():
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 3})
        .node(2, "window_all.reduce", {"assigner": "count_tumbling", "size": 2, "fn": "a + b"})
        .edge(1, 2, "HASH")
        .build()
    )
    assert errors(doc) == []


def test_unknown_parameters_are_warnings():
    doc = Doc().node(1, "source.sequence", {"from": 1, "to": 3, "speed": 9}).build()
    [diagnostic] = runnability(doc)
    assert diagnostic.code == "param.unknown"
    assert diagnostic.severity.value == "warning"
    assert diagnostic.location.field == "params.speed"


@pytest.mark.parametrize(
    "garbage",
    [
        None, 3, "doc", [], {}, {"nodes": "x", "edges": 3}, {"nodes": [None, 1, "n", {}]},
        {"nodes": [{"id": 1, "operator": None, "params": []}]},
        {"nodes": [{"id": 1, "operator": "map", "params": {"fn": {"a": 1}}}]},
        {"nodes": [{"id": True, "operator": "map"}], "edges": [None, {"source": [], "target": {}}]},
        {"nodes": [{"id": 1, "operator": "process", "params": {"sideOutputs": [None, {"tag": 1}]}}],
         "edges": [{"source": 1, "target": 1, "sideOutputTag": ["x"], "key": "k"}]},
        {"nodes": [],
         "edges": [{"source": 1, "target": 2, "partitioner": "HASH", "key": {"fn": 5}}]},
        {"nodes": [{"id": 2, "operator": "reduce", "params": {"fn": "a"}}],
         "edges": [{"source": 1, "target": 2, "typeNumber": "0", "partitioner": None}]},
    ],
)  # fmt: skip
def test_garbage_never_raises(garbage: object):
    for diagnostic in runnability(garbage):
        assert diagnostic.code in KNOWN_CODES


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda path: path.name.split(".")[0])
def test_every_fixture_is_runnable_or_says_clearly_why_not(fixture: Path):
    document = json.loads(fixture.read_text())
    for diagnostic in runnability(document):
        assert diagnostic.code in KNOWN_CODES
        location = diagnostic.location
        assert (location.node is None) != (location.edge is None), diagnostic
        assert location.field and diagnostic.message


def test_the_fixtures_are_there():
    assert len(FIXTURES) > 100


def test_fixtures_whose_logic_is_expressions_have_no_errors():
    runnable = {
        path.name.split(".")[0] for path in FIXTURES if not errors(json.loads(path.read_text()))
    }
    assert {"simple-chain", "partition-hash", "windows", "union-two", "connect-comap"} <= runnable


def test_large_documents_check_the_same_from_the_cache():
    """The editor checks every edit of documents up to 5,000 operators; the second check
    answers from cached expressions and must say exactly what the first said. (How long
    either takes is measured by `make bench`: benchmarks/runnability_bench.py.)"""
    doc = Doc().node(1, "source.sequence", {"from": 1, "to": 3})
    for node in range(2, 5001):
        if node % 3:
            doc.node(node, "map", {"fn": f"x + {node}"})
        else:
            doc.node(node, "filter", {"predicate": f"x % {node} == 0"})
        doc.edge(node - 1, node, "HASH" if node % 7 == 0 else "FORWARD", key=f"x % {node}")
    doc.node(5001, "map", {"fn": "x +"})
    doc.edge(5000, 5001)
    document = doc.build()
    first = runnability(document)
    assert [(d.code, d.location.node) for d in first] == [("param.invalid-expression", 5001)]
    assert runnability(document) == first


def test_key_problems_name_what_the_key_field_takes_not_json():
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 3})
        .node(2, "reduce", {"fn": "a + b"})
        .node(3, "map", {"fn": "x"})
        .edge(1, 2)  # keyed input without HASH
        .edge(1, 3, "HASH")  # HASH without key
        .edge(1, 3, "CUSTOM")  # CUSTOM without partition function
        .build()
    )
    messages = {d.code: d.message for d in runnability(doc)}
    assert messages["run.keyed-input-needs-key"] == (
        "Reduce is keyed: its input edges must be HASH (keyBy) with a key, such as x[0]"
    )
    assert messages["run.hash-needs-key"] == "a HASH (keyBy) edge needs a key, such as x % 10"
    assert messages["run.custom-needs-partition"] == (
        "a CUSTOM edge needs a key, such as x, and a partition function of the key and the "
        "subtask count n, such as key % n"
    )
    assert not any("{" in message for message in messages.values())


@pytest.mark.parametrize("key", ["(x, 1)", "(x % 3, str(x), (x, True))", "()"])
def test_tuple_keys_are_keys(key: str):
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 3})
        .node(2, "reduce", {"fn": "a + b"})
        .edge(1, 2, "HASH", key=key)
        .node(3, "sink.print")
        .edge(2, 3)
        .build()
    )
    assert errors(doc) == []


@pytest.mark.parametrize(
    ("key", "found"),
    [
        ("(x, [1])", "the key is a tuple with a list in it"),
        ("(x, (1.5, 2))", "the key is a tuple with a tuple with a float in it in it"),
        (
            repr(tuple(range(26))),
            "the key is a tuple of 26 fields (Flink's tuples have at most 25)",
        ),
        ("[x]", "the key is a list"),
    ],
)
def test_keys_that_cannot_be_keys_say_so(key: str, found: str):
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 3})
        .node(2, "map", {"fn": "x"})
        .edge(1, 2, "HASH", key=key)
        .build()
    )
    (problem,) = [d for d in runnability(doc) if d.code == "run.key-type"]
    assert problem.message == f"{found}; keys must be int, str, bool or a tuple of them"
