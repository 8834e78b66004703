"""Edit operations: rebasing concurrent ones, and what the compiler makes of them.

Applying and rejecting edits is checked by the cases both implementations run
(tests/contracts/edits.json, `test_contracts.py`)."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.edits import Edit, apply_edit, find_conflict
from compiler.liveplan import live_plan
from compiler.pipeline import compile_document
from tests.contracts import contract_cases


def document() -> dict[str, Any]:
    return {
        "format": "streamgraph/v1",
        "name": "edits",
        "config": {"defaultParallelism": 2},
        "nodes": [
            {"id": 1, "name": "Source: s", "operator": "source.sequence", "parallelism": 2},
            {"id": 2, "name": "Map", "operator": "map", "params": {"fn": "x"}, "parallelism": 2},
            {"id": 3, "name": "Sink: out", "operator": "sink.print", "parallelism": 2},
        ],
        "edges": [
            {"source": 1, "target": 2, "partitioner": "FORWARD"},
            {"source": 2, "target": 3, "partitioner": "FORWARD"},
        ],
        "meta": {"keep": {"me": True}},
    }


CASES = contract_cases("edits")
LAYOUT_3 = {"nodeId": 3, "x": 200, "y": 40}


def edit(data: dict[str, Any]) -> Edit:
    return Edit.from_json(data)


def test_independent_edits_rebase() -> None:
    mine = edit(
        {"kind": "set_field", "element": "node", "nodeId": 2, "field": "name", "value": "Parse"}
    )
    theirs = [
        (
            5,
            edit(
                {
                    "kind": "set_field",
                    "element": "node",
                    "nodeId": 2,
                    "field": "parallelism",
                    "value": 4,
                }
            ),
        ),
        (6, edit({"kind": "move_node", "nodeId": 3, "x": 1, "y": 2})),
        (7, edit({"kind": "add_node", "node": {"name": "Filter"}})),
    ]
    assert find_conflict(mine, theirs) is None


def test_a_node_added_with_its_edge_rebases_over_nodes_added_meanwhile() -> None:
    mine = edit({"kind": "add_node", "node": {"id": 4, "name": "Mine"}, "edge": {"source": 2}})
    theirs = edit({"kind": "add_node", "node": {"id": 4, "name": "Theirs"}, "edge": {"source": 1}})
    assert find_conflict(mine, [(6, theirs)]) is None
    changed, _ = apply_edit(document(), theirs)
    changed, applied = apply_edit(changed, mine)
    # The edge goes to the id the node got, not to the node that took its id first.
    assert applied.node is not None and applied.node["id"] == 5
    assert [(e["source"], e["target"]) for e in changed["edges"]][-2:] == [(1, 4), (2, 5)]


def test_a_layout_rebases_over_edits_of_other_nodes_and_fields() -> None:
    layout = edit({"kind": "move_nodes", "moves": [{"nodeId": 1, "x": 0, "y": 0}, LAYOUT_3]})
    theirs = [
        (4, edit({"kind": "move_node", "nodeId": 2, "x": 9, "y": 9})),
        (5, edit({"kind": "set_operator", "nodeId": 3, "operator": "sink.collect", "params": {}})),
    ]
    assert find_conflict(layout, theirs) is None


@pytest.mark.parametrize(
    ("mine", "theirs", "reason"),
    [
        (
            {
                "kind": "set_field",
                "element": "node",
                "nodeId": 2,
                "field": "parallelism",
                "value": 3,
            },
            {
                "kind": "set_field",
                "element": "node",
                "nodeId": 2,
                "field": "parallelism",
                "value": 4,
            },
            "'parallelism' of node 2 was changed in revision 9",
        ),
        (
            {
                "kind": "set_field",
                "element": "node",
                "nodeId": 2,
                "field": "params.fn",
                "value": "y",
            },
            {"kind": "set_field", "element": "node", "nodeId": 2, "field": "params", "value": {}},
            "'params.fn' of node 2 was changed in revision 9",
        ),
        (
            {"kind": "move_node", "nodeId": 2, "x": 0, "y": 0},
            {"kind": "remove_node", "nodeId": 2},
            "node 2 was removed in revision 9",
        ),
        (
            {"kind": "remove_node", "nodeId": 2},
            {"kind": "set_field", "element": "node", "nodeId": 2, "field": "name", "value": "m"},
            "node 2 was changed in revision 9",
        ),
        (
            {
                "kind": "set_field",
                "element": "edge",
                "edgeKey": [1, 2, 0, 0],
                "field": "partitioner",
                "value": "SHUFFLE",
            },
            {"kind": "disconnect", "edgeKey": [1, 2, 0, 0]},
            "the edges 1 -> 2 were changed in revision 9",
        ),
        (
            {"kind": "connect", "edge": {"source": 1, "target": 3}},
            {"kind": "connect", "edge": {"source": 1, "target": 3}},
            "the edges 1 -> 3 were changed in revision 9",
        ),
        (
            {"kind": "move_nodes", "moves": [{"nodeId": 1, "x": 0, "y": 0}, LAYOUT_3]},
            {"kind": "move_node", "nodeId": 3, "x": 5, "y": 5},
            "'ui.x' of node 3 was changed in revision 9",
        ),
        (
            {"kind": "move_nodes", "moves": [LAYOUT_3]},
            {"kind": "remove_node", "nodeId": 3},
            "node 3 was removed in revision 9",
        ),
        (
            {"kind": "set_operator", "nodeId": 2, "operator": "filter", "params": {}},
            {"kind": "set_field", "element": "node", "nodeId": 2, "field": "params.fn", "value": 1},
            "'params' of node 2 was changed in revision 9",
        ),
        (
            {
                "kind": "set_field",
                "element": "node",
                "nodeId": 2,
                "field": "operator",
                "value": "x",
            },
            {"kind": "set_operator", "nodeId": 2, "operator": "filter", "params": {}},
            "'operator' of node 2 was changed in revision 9",
        ),
        (
            {"kind": "add_node", "node": {"name": "Filter"}, "edge": {"source": 2}},
            {"kind": "remove_node", "nodeId": 2},
            "node 2 was removed in revision 9",
        ),
        (
            {"kind": "remove_node", "nodeId": 2},
            {"kind": "add_node", "node": {"name": "Filter"}, "edge": {"source": 2}},
            "node 2 was changed in revision 9",
        ),
    ],
)
def test_conflicting_edits_are_named(
    mine: dict[str, Any], theirs: dict[str, Any], reason: str
) -> None:
    conflict = find_conflict(edit(mine), [(9, edit(theirs))])
    assert conflict is not None and reason in conflict


@pytest.mark.parametrize(
    "data", [case["edit"] for case in CASES["affectsPlan"] if not case["affectsPlan"]]
)
def test_edits_that_cannot_change_the_plan_leave_it_as_it_was(data: dict[str, Any]) -> None:
    changed, _ = apply_edit(document(), edit(data))
    assert live_plan(compile_document(changed)) == live_plan(compile_document(document()))
