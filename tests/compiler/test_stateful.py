"""Stateful operator kinds and the warning for those without a uid or uidHash: which
nodes it names, that pinning keeps the OperatorID and silences it, and that the list of
kinds covers every catalog kind that keeps state in Flink."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from compiler.diagnostics import Severity
from compiler.hashing import to_hex
from compiler.pipeline import compile_document
from compiler.state.kinds import (
    STATE_CODE,
    is_stateful,
    kept_state,
    unpinned_state_warnings,
)
from compiler.state.statecheck import state_risks
from runtime.catalog import CATALOG, Category
from tests.compiler.builders import GraphBuilder

SAVEPOINTS = Path(__file__).resolve().parent / "data" / "savepoints"


def _read(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((SAVEPOINTS / name).read_text("utf-8"))
    return result


def _keyed_job(**sum_node: Any) -> dict[str, Any]:
    """source -> map -> keyBy -> Sum -> print."""
    return (
        GraphBuilder("counting")
        .node(1, "Source: Numbers", operator="source.sequence", strategy="HEAD", factory="SOURCE")
        .node(2, "Mod", operator="map")
        .node(3, "Sum", operator="sum", **sum_node)
        .node(4, "Sink: Print", operator="sink.print")
        .edge(1, 2)
        .edge(2, 3, partitioner="HASH", key={"fn": "x % 10"})
        .edge(3, 4)
        .build()
    )


def _warned(document: object) -> list[tuple[int | None, str | None]]:
    return [(d.location.node, d.location.field) for d in unpinned_state_warnings(document)]


def _operator_ids(document: dict[str, Any]) -> dict[int, str]:
    compilation = compile_document(document)
    assert compilation.ok, compilation.diagnostics
    return {int(node): to_hex(h) for node, h in compilation.hashes.items()}


def _pinned(document: dict[str, Any], nodes: list[int], ids: dict[int, str]) -> dict[str, Any]:
    result = copy.deepcopy(document)
    for node in result["nodes"]:
        if node["id"] in nodes:
            node["uidHash"] = ids[node["id"]]
    return result


# The warning ----------------------------------------------------------------------------


def test_every_stateful_operator_without_uid_or_uid_hash_is_warned_about() -> None:
    [source, total] = unpinned_state_warnings(_keyed_job())

    assert total.code == STATE_CODE
    assert total.severity is Severity.WARNING
    assert (total.location.node, total.location.edge, total.location.field) == (3, None, "uid")
    assert total.message == (
        "Sum keeps keyed state but has no uid: its OperatorID is derived from the graph around "
        "it, so a change upstream gives it a new ID and a savepoint's state for it is no longer "
        "restored. Set a uid, or pin its current ID."
    )
    assert source.location.node == 1
    assert source.message.startswith("Source: Numbers keeps source state but has no uid")


def test_a_uid_or_a_uid_hash_silences_it() -> None:
    assert _warned(_keyed_job(uid="sum")) == [(1, "uid")]
    assert _warned(_keyed_job(uid_hash="c27dcf7b54ef6bfd6cff02ca8870b681")) == [(1, "uid")]


def test_stateless_operators_are_not_warned_about_even_without_uid() -> None:
    document = (
        GraphBuilder()
        .node(1, "Map", operator="map")
        .node(2, "Filter", operator="filter")
        .node(3, "Co-Map", operator="co_map")
        .node(4, "Print", operator="sink.print")
        .build()
    )

    assert unpinned_state_warnings(document) == []


@pytest.mark.parametrize(
    ("operator", "what"),
    [
        ("window.reduce", "window state"),
        ("window_all.aggregate", "window state"),
        ("keyed_co_process", "keyed state"),
        ("broadcast_process", "broadcast state"),
        ("sink.writer", "sink writer state"),
        ("sink.committer", "sink committer state"),
        ("source", "source state"),
    ],
)
def test_the_message_says_which_state_is_kept(operator: str, what: str) -> None:
    document = GraphBuilder().node(7, "Op", operator=operator).build()

    [warning] = unpinned_state_warnings(document)

    assert warning.message.startswith(f"Op keeps {what} but has no uid")


def test_unreadable_parts_are_skipped_never_raised() -> None:
    document = {
        "nodes": [
            None,
            {"id": "1", "operator": "reduce"},
            {"id": True, "operator": "reduce"},
            {"id": 2, "operator": 5},
            {"id": 3, "operator": "reduce"},
        ]
    }

    assert _warned(document) == [(3, "uid")]
    assert "Node 3 keeps keyed state" in unpinned_state_warnings(document)[0].message
    assert unpinned_state_warnings([]) == []
    assert unpinned_state_warnings({"nodes": "many"}) == []


def test_the_compilers_own_diagnostics_do_not_include_it() -> None:
    compilation = compile_document(_keyed_job())

    assert compilation.ok
    assert all(d.code != STATE_CODE for d in compilation.diagnostics)


# Pinning --------------------------------------------------------------------------------


def test_pinning_the_uid_hash_keeps_the_operator_id_and_removes_the_warning() -> None:
    document = _keyed_job()
    before = _operator_ids(document)
    warned = [node for node, _ in _warned(document)]

    pinned = _pinned(document, [n for n in warned if n is not None], before)

    assert _operator_ids(pinned) == before
    assert unpinned_state_warnings(pinned) == []
    user_hashes = compile_document(pinned).user_hashes
    assert {int(n): to_hex(h) for n, h in user_hashes.items() if h is not None} == {
        1: before[1],
        3: before[3],
    }


def test_pinning_a_real_flink_job_gives_the_repair_flink_restored_from() -> None:
    v1 = _read("counting.v1.streamgraph.json")
    ids = _operator_ids(v1)

    pinned = _pinned(v1, [n for n, _ in _warned(v1) if n is not None], ids)

    assert _warned(v1) == [(1, "uid"), (5, "uid")]  # the source and Sum
    assert _operator_ids(pinned) == ids
    # The repair real Flink restored from after a map was inserted upstream of Sum.
    repaired = _read("counting--insert-map-pinned.streamgraph.json")
    assert _read("counting--insert-map-pinned.restore.json")["restored"] is True
    sum_node = next(n for n in repaired["nodes"] if n["name"] == "Sum")
    assert sum_node["uidHash"] == next(n for n in pinned["nodes"] if n["id"] == 5)["uidHash"]


def test_pinning_every_warned_operator_keeps_state_through_a_chain_break() -> None:
    v1 = _read("counting.v1.streamgraph.json")
    ids = _operator_ids(v1)
    warned = [n for n, _ in _warned(v1) if n is not None]
    # Flink refused this variant: only Sum was pinned, the source's state had no operator.
    variant = _read("counting--chain-break-pinned.streamgraph.json")
    assert _read("counting--chain-break-pinned.restore.json")["restored"] is False
    assert {r.code for risk in state_risks(v1, variant) for r in risk.reasons} == {"state-lost"}

    fully_pinned = _pinned(variant, warned, ids)

    assert [risk.to_json() for risk in state_risks(_pinned(v1, warned, ids), fully_pinned)] == []


# One list of stateful kinds -------------------------------------------------------------


def _keeps_state_in_flink(kind: str) -> bool:
    """What Flink keeps in a savepoint for a catalog kind, from the catalog's own words:
    sources (their position), keyed and window operators (keyed state and timers), keyed
    two-input and broadcast operators, and sinks with writer or committer state."""
    spec = CATALOG[kind]
    return (
        spec.category in (Category.SOURCE, Category.KEYED, Category.WINDOW)
        or spec.keyed
        or kind in ("broadcast_process", "sink.writer", "sink.committer")
    )


def test_every_catalog_kind_that_keeps_state_in_flink_is_stateful() -> None:
    missing = [kind for kind in CATALOG if _keeps_state_in_flink(kind) and not kept_state(kind)]

    assert missing == []


def test_stateless_catalog_kinds_are_not() -> None:
    stateless = [
        "map",
        "filter",
        "flat_map",
        "key_by",
        "side_output",
        "co_map",
        "co_flat_map",
        "sink.print",
        "sink.collect",
        "sink.text",
        "sink.csv",
        "sink.json",
    ]

    assert [kind for kind in stateless if kept_state(kind) is not None] == []


def test_for_the_diff_a_node_with_a_uid_counts_as_stateful_too() -> None:
    assert is_stateful({"operator": "map", "uid": "enrich"})
    assert is_stateful({"operator": "map", "uidHash": "c27dcf7b54ef6bfd6cff02ca8870b681"})
    assert not is_stateful({"operator": "map"})
    assert is_stateful({"operator": "reduce"})
    assert unpinned_state_warnings({"nodes": [{"id": 1, "operator": "map", "uid": "x"}]}) == []
