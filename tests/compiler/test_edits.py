"""Edit operations: applying them, rejecting bad ones, rebasing concurrent ones."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from compiler.edits import Edit, EditRejected, apply_edit, edge_keys, find_conflict


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


def edit(data: dict[str, Any]) -> Edit:
    return Edit.from_json(data)


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "remove_node", "nodeId": 2},
        {"kind": "move_node", "nodeId": 2, "x": 5, "y": 6},
        {"kind": "set_field", "element": "node", "nodeId": 2, "field": "params.fn", "value": 1},
        {"kind": "set_field", "element": "config", "field": "defaultParallelism", "value": 3},
        {"kind": "set_field", "element": "document", "field": "meta.keep.me", "value": False},
        {"kind": "disconnect", "edgeKey": [1, 2, 0, 0]},
        {"kind": "add_node", "node": {"name": "Filter", "params": {"fn": "x"}}},
    ],
)
def test_apply_never_modifies_its_input(data: dict[str, Any]) -> None:
    original = document()
    before = copy.deepcopy(original)
    changed, _ = apply_edit(original, edit(data))
    assert original == before
    assert changed != before


def test_add_node_assigns_a_free_id_and_fills_defaults() -> None:
    result, applied = apply_edit(
        document(), edit({"kind": "add_node", "node": {"id": 2, "name": "Filter"}})
    )
    assert applied.node is not None and applied.node["id"] == 4
    added = result["nodes"][-1]
    assert added["id"] == 4 and added["chainingStrategy"] == "ALWAYS"
    assert added["parallelism"] == -1


def test_remove_node_removes_its_edges() -> None:
    result, _ = apply_edit(document(), edit({"kind": "remove_node", "nodeId": 2}))
    assert [n["id"] for n in result["nodes"]] == [1, 3]
    assert result["edges"] == []


def test_set_field_paths_and_unknown_keys_survive() -> None:
    result, _ = apply_edit(
        document(),
        edit(
            {
                "kind": "set_field",
                "element": "node",
                "nodeId": 2,
                "field": "params.fn",
                "value": "x * 2",
            }
        ),
    )
    assert result["nodes"][1]["params"] == {"fn": "x * 2"}
    assert result["meta"] == {"keep": {"me": True}}
    result, _ = apply_edit(
        result,
        edit(
            {
                "kind": "set_field",
                "element": "edge",
                "edgeKey": [2, 3, 0, 0],
                "field": "partitioner",
                "value": "REBALANCE",
            }
        ),
    )
    assert result["edges"][1]["partitioner"] == "REBALANCE"


def test_connect_and_disconnect_by_edge_key() -> None:
    result, _ = apply_edit(
        document(), edit({"kind": "connect", "edge": {"source": 1, "target": 3}})
    )
    assert edge_keys(result)[-1] == (1, 3, 0, 0)
    result, _ = apply_edit(result, edit({"kind": "disconnect", "edgeKey": [1, 3, 0, 0]}))
    assert edge_keys(result) == [(1, 2, 0, 0), (2, 3, 0, 0)]


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"kind": "explode"}, "edit.kind"),
        ({"kind": "remove_node", "nodeId": 42}, "edit.unknown-node"),
        ({"kind": "disconnect", "edgeKey": [3, 1, 0, 0]}, "edit.unknown-edge"),
        ({"kind": "connect", "edge": {"source": 1, "target": 99}}, "edit.unknown-node"),
        (
            {"kind": "set_field", "element": "node", "nodeId": 1, "field": "id", "value": 5},
            "edit.field",
        ),
        (
            {
                "kind": "set_field",
                "element": "node",
                "nodeId": 2,
                "field": "params.fn.x",
                "value": 1,
            },
            "edit.field",
        ),
        ({"kind": "move_node", "nodeId": 1, "x": "left", "y": 0}, "edit.position"),
        ({"kind": "add_node", "node": {"name": ""}}, "edit.node-name"),
        ({"kind": "disconnect", "edgeKey": [1, 2]}, "edit.edge-key"),
    ],
)
def test_bad_edits_are_rejected_with_a_code(data: dict[str, Any], code: str) -> None:
    with pytest.raises(EditRejected) as rejected:
        apply_edit(document(), edit(data))
    assert rejected.value.code == code


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
    ],
)
def test_conflicting_edits_are_named(
    mine: dict[str, Any], theirs: dict[str, Any], reason: str
) -> None:
    conflict = find_conflict(edit(mine), [(9, edit(theirs))])
    assert conflict is not None and reason in conflict


def test_edit_round_trips_through_json() -> None:
    data = {
        "kind": "set_field",
        "element": "edge",
        "edgeKey": [1, 2, 0, 0],
        "field": "partitioner",
        "value": "HASH",
    }
    assert Edit.from_json(edit(data).to_json()) == edit(data)


@pytest.mark.parametrize(
    ("data", "affects"),
    [
        ({"kind": "move_node", "nodeId": 2, "x": 1, "y": 1}, False),
        (
            {
                "kind": "set_field",
                "element": "node",
                "nodeId": 2,
                "field": "params.fn",
                "value": "y",
            },
            False,
        ),
        (
            {
                "kind": "set_field",
                "element": "node",
                "nodeId": 2,
                "field": "operator",
                "value": "filter",
            },
            False,
        ),
        ({"kind": "set_field", "element": "document", "field": "meta.note", "value": 1}, False),
        (
            {"kind": "set_field", "element": "node", "nodeId": 2, "field": "params", "value": 3},
            True,
        ),
        (
            {"kind": "set_field", "element": "node", "nodeId": 2, "field": "name", "value": "M"},
            True,
        ),
        (
            {
                "kind": "set_field",
                "element": "edge",
                "edgeKey": [1, 2, 0, 0],
                "field": "key",
                "value": {"fn": "x"},
            },
            True,
        ),
        ({"kind": "connect", "edge": {"source": 1, "target": 3}}, True),
    ],
)
def test_edits_that_cannot_change_the_plan_are_known(data: dict[str, Any], affects: bool) -> None:
    parsed = edit(data)
    assert parsed.affects_plan is affects
    if not affects:
        from compiler.liveplan import live_plan
        from compiler.pipeline import compile_document

        changed, _ = apply_edit(document(), parsed)
        assert live_plan(compile_document(changed)) == live_plan(compile_document(document()))
