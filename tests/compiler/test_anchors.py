"""Comment anchors: read in the version a comment is written on, current or outdated (with
the causes in the savepoint verdict's words) in every other version."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.anchors import Anchor, AnchorNotFound, Side, anchor_changes, anchor_in
from compiler.pipeline import compile_document
from tests.compiler.builders import GraphBuilder


def orders(*, sink_partitioner: str = "FORWARD", sink_parallelism: int = 4) -> dict[str, Any]:
    """Source -> Map -> (HASH) Reduce -> Sink; Reduce and Sink chain while the sink is FORWARD."""
    return (
        GraphBuilder("orders")
        .node(1, "Source: orders", parallelism=4, factory="SOURCE", operator="source.sequence")
        .node(2, "Map", parallelism=4)
        .node(3, "Reduce", parallelism=4, operator="reduce")
        .node(4, "Sink: out", parallelism=sink_parallelism, operator="sink.print")
        .edge(1, 2)
        .edge(2, 3, partitioner="HASH", key={"fn": "x"})
        .edge(3, 4, partitioner=sink_partitioner)
        .build()
    )


def side(document: dict[str, Any], name: str = "version 1") -> Side:
    return Side(document=document, compilation=compile_document(document), name=name)


def test_a_node_anchor_records_its_operator_id_and_name() -> None:
    v1 = side(orders())

    anchor = anchor_in(v1, kind="node", node=3)

    assert anchor.label == "Reduce"
    assert anchor.operator_id is not None and len(anchor.operator_id) == 32
    assert anchor_changes(anchor, origin=v1, target=side(orders(), "version 2"), later=True) == []


def test_an_anchor_follows_its_node_while_its_operator_id_stays() -> None:
    v1 = side(orders())
    renamed = orders()
    renamed["nodes"][1]["name"] = "Enrich"  # names do not go into the hash

    anchor = anchor_in(v1, kind="node", node=2)

    assert anchor_changes(anchor, origin=v1, target=side(renamed), later=True) == []


def test_a_removed_node_makes_its_comments_outdated() -> None:
    v1 = side(orders())
    v2 = orders()
    v2["nodes"] = [n for n in v2["nodes"] if n["id"] != 4]
    v2["edges"] = v2["edges"][:2]
    anchor = anchor_in(v1, kind="node", node=4)

    assert anchor_changes(anchor, origin=v1, target=side(v2, "version 2"), later=True) == [
        "node 4 (Sink: out) was removed"
    ]
    # Seen from an older version, the node is simply not there yet.
    newer = anchor_in(side(orders(), "version 3"), kind="node", node=4)
    assert anchor_changes(newer, origin=None, target=side(v2, "version 2"), later=False) == [
        "node 4 (Sink: out) is not in version 2"
    ]


def test_a_changed_operator_id_is_explained_as_the_savepoint_verdict_does() -> None:
    v1 = side(orders(sink_partitioner="FORWARD"))
    v2 = side(orders(sink_partitioner="REBALANCE", sink_parallelism=8), "version 2")
    anchor = anchor_in(v1, kind="node", node=3)

    (cause,) = anchor_changes(anchor, origin=v1, target=v2, later=True)

    assert cause.startswith("OperatorID changed: hash of Reduce changed because its chainable ")
    assert "out-edges changed from 1 to 0" in cause


def test_the_explanation_goes_from_the_older_version_to_the_newer() -> None:
    older = side(orders(sink_partitioner="FORWARD"), "version 1")
    newer = side(orders(sink_partitioner="REBALANCE", sink_parallelism=8), "version 2")
    anchor = anchor_in(newer, kind="node", node=3)

    (cause,) = anchor_changes(anchor, origin=newer, target=older, later=False)

    assert "out-edges changed from 1 to 0" in cause


def test_without_the_origin_document_the_ids_say_what_changed() -> None:
    v1 = side(orders(sink_partitioner="FORWARD"))
    v2 = side(orders(sink_partitioner="REBALANCE", sink_parallelism=8), "the working copy")
    anchor = anchor_in(v1, kind="node", node=3)
    assert anchor.operator_id is not None

    (cause,) = anchor_changes(anchor, origin=None, target=v2, later=True)

    assert cause.startswith(f"OperatorID changed from {anchor.operator_id} to ")
    assert cause.endswith(" in the working copy")


def test_an_edge_anchor_is_keyed_and_outdated_when_an_end_changes_its_id() -> None:
    v1 = side(orders(sink_partitioner="FORWARD"))
    anchor = anchor_in(v1, kind="edge", edge=(3, 4, 0, 0))
    assert anchor.label == "Reduce -> Sink: out"
    assert anchor.source_operator_id is not None and anchor.target_operator_id is not None

    changed = side(orders(sink_partitioner="REBALANCE", sink_parallelism=8), "version 2")
    causes = anchor_changes(anchor, origin=v1, target=changed, later=True)

    assert causes[0].startswith("Reduce: OperatorID changed: hash of Reduce changed because")
    assert causes[1] == (
        "Sink: out: OperatorID changed: the hash of its input Reduce (3) changed, and inputs "
        "are mixed into it"
    )


def test_a_removed_edge_makes_its_comments_outdated() -> None:
    v1 = side(orders())
    anchor = anchor_in(v1, kind="edge", edge=(3, 4, 0, 0))
    v2 = orders()
    v2["edges"] = v2["edges"][:2]

    assert anchor_changes(anchor, origin=v1, target=side(v2, "version 2"), later=True) == [
        "edge 3 -> 4 (typeNumber 0, #0) (Reduce -> Sink: out) was removed"
    ]


def test_a_vertex_anchor_is_its_head_and_job_vertex_id() -> None:
    v1 = side(orders())
    reduce_id = anchor_in(v1, kind="node", node=3).operator_id
    assert reduce_id is not None

    anchor = anchor_in(v1, kind="vertex", vertex=reduce_id)

    assert (anchor.node, anchor.operator_id) == (3, reduce_id)
    assert anchor.label == "Reduce -> Sink: out"
    assert anchor_changes(anchor, origin=v1, target=side(orders()), later=True) == []


def test_a_vertex_whose_head_is_chained_into_another_is_outdated() -> None:
    v1 = side(orders(sink_partitioner="REBALANCE"))
    sink_id = anchor_in(v1, kind="node", node=4).operator_id
    assert sink_id is not None
    anchor = anchor_in(v1, kind="vertex", vertex=sink_id)

    causes = anchor_changes(anchor, origin=v1, target=side(orders(), "version 2"), later=True)

    assert causes == [
        "Sink: out (4) no longer heads a chain in version 2: it is chained into Reduce -> Sink: out"
    ]


def test_the_whole_pipeline_is_never_outdated() -> None:
    anchor = anchor_in(side(orders()), kind="pipeline")

    assert anchor == Anchor(kind="pipeline", label="orders")
    empty = {**orders(), "nodes": [], "edges": []}
    assert anchor_changes(anchor, origin=None, target=side(empty), later=True) == []


@pytest.mark.parametrize(
    ("target", "field"),
    [
        ({"kind": "node", "node": 9}, "node"),
        ({"kind": "edge", "edge": (1, 3, 0, 0)}, "edge"),
        ({"kind": "edge", "edge": (3, 4, 0, 1)}, "edge"),
        ({"kind": "vertex", "vertex": "0" * 32}, "vertex"),
    ],
)
def test_an_element_that_is_not_there_is_refused_naming_the_field(
    target: dict[str, Any], field: str
) -> None:
    with pytest.raises(AnchorNotFound) as refused:
        anchor_in(side(orders()), **target)

    assert refused.value.field == field
    assert " has no " in refused.value.message


def test_a_node_on_a_cycle_has_no_operator_id_and_compares_as_none() -> None:
    cyclic = orders()
    cyclic["edges"].append({"source": 3, "target": 2, "partitioner": "REBALANCE"})
    working = side(cyclic, "the working copy")

    anchor = anchor_in(working, kind="node", node=3)

    assert anchor.operator_id is None
    assert anchor_changes(anchor, origin=working, target=working, later=True) == []
    (cause,) = anchor_changes(anchor, origin=None, target=side(orders()), later=True)
    assert cause.startswith("OperatorID changed from none to ")
