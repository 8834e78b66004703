"""The one list of stateful operator kinds: it covers every catalog kind that keeps state
in Flink and none of the stateless ones."""

from __future__ import annotations

from compiler.stateful import is_stateful, kept_state
from runtime.catalog import CATALOG, Category


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
