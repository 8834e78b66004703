"""The live plan and its deltas: a client that applies the delta has the new plan."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.edits import Edit, apply_edit
from compiler.liveplan import _key_runs, _run_keys, apply_plan_delta, live_plan, plan_delta
from compiler.pipeline import compile_document

FIXTURES = Path(__file__).parent / "data" / "fixtures"


def plan_of(document: dict[str, Any]) -> dict[str, Any]:
    return live_plan(compile_document(document))


def load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.streamgraph.json").read_text("utf-8"))


def test_live_plan_carries_ids_chains_and_reasons() -> None:
    plan = plan_of(load("different-parallelism"))
    assert plan["ok"] is True
    expected = json.loads((FIXTURES / "different-parallelism.expected.json").read_text("utf-8"))
    assert {k: v["operatorId"] for k, v in plan["nodes"].items()} == expected["hashes"]
    assert plan["summary"]["vertexOrder"] == [v["id"] for v in expected["vertices"]]
    unchained = [e for e in plan["edges"].values() if not e["chained"]]
    assert unchained and all(e["reasons"] for e in unchained)


@pytest.mark.parametrize(
    "edit",
    [
        {"kind": "set_field", "element": "node", "nodeId": 2, "field": "parallelism", "value": 7},
        {"kind": "set_field", "element": "node", "nodeId": 2, "field": "uid", "value": "m"},
        {"kind": "remove_node", "nodeId": 3},
        {"kind": "set_field", "element": "config", "field": "chainingEnabled", "value": False},
    ],
)
def test_delta_turns_the_old_plan_into_the_new(edit: dict[str, Any]) -> None:
    old_document = load("simple-chain")
    new_document, _ = apply_edit(old_document, Edit.from_json(edit))
    old, new = plan_of(old_document), plan_of(new_document)
    delta = plan_delta(old, new)
    assert apply_plan_delta(old, delta) == new


def test_a_local_edit_gives_a_small_delta() -> None:
    document = json.loads(
        (FIXTURES.parent / "perf" / "large-100.streamgraph.json").read_text("utf-8")
    )
    last = document["nodes"][-1]["id"]
    renamed, _ = apply_edit(
        document,
        Edit.from_json(
            {
                "kind": "set_field",
                "element": "node",
                "nodeId": last,
                "field": "name",
                "value": "Sink: renamed",
            }
        ),
    )
    old, new = plan_of(document), plan_of(renamed)
    delta = plan_delta(old, new)
    assert apply_plan_delta(old, delta) == new
    assert set(delta) == {"vertices"}
    assert len(json.dumps(delta)) * 5 < len(json.dumps(new))


def test_invalid_document_has_only_diagnostics() -> None:
    document = load("simple-chain")
    document["edges"][0]["partitioner"] = "SIDEWAYS"
    plan = plan_of(document)
    assert plan["ok"] is False and plan["vertices"] == {}
    assert plan["diagnostics"][0]["code"] == "field.enum"


def test_entries_that_stay_carry_only_their_changed_fields() -> None:
    old = {"nodes": {"1": {"a": 1, "b": 2}, "2": {"a": 1, "b": 2}}, "edges": {}, "vertices": {}}
    new = {"nodes": {"1": {"a": 1, "b": 3}, "3": {"a": 0, "b": 0}}, "edges": {}, "vertices": {}}

    delta = plan_delta(old, new)

    # All three at once: the patch goes whole, so a client that knows no patch applies it.
    assert delta["nodes"] == {
        "set": {"1": {"a": 1, "b": 3}, "3": new["nodes"]["3"]},
        "remove": ["2"],
    }
    assert apply_plan_delta(old, delta) == new
    patched = plan_delta(old, {**old, "nodes": {**old["nodes"], "1": {"a": 1, "b": 3}}})
    assert patched["nodes"] == {"patch": {"1": {"b": 3}}}
    added = {"nodes": {**old["nodes"], "1": {"a": 1, "b": 3}, "3": {"a": 0, "b": 0}}}
    assert plan_delta(old, {**old, **added})["nodes"] == {
        "patch": {"1": {"b": 3}},
        "set": {"3": {"a": 0, "b": 0}},
    }


@pytest.mark.parametrize(
    "new_nodes",
    [
        {"1": {"a": 2}},
        {"1": {"a": 2}, "2": {"a": 0}},
        {"2": {"a": 0}},
        {"1": {"a": 1}, "3": {"a": 0}},
    ],
)
def test_a_section_with_a_patch_lacks_set_or_remove(new_nodes: dict[str, Any]) -> None:
    """What a client that knows no `patch` requires (both), so it resyncs instead."""
    old = {"nodes": {"1": {"a": 1}, "2": {"a": 1}}}
    section = plan_delta(old, {"nodes": new_nodes}).get("nodes", {})
    if "patch" in section:
        assert not ("set" in section and "remove" in section)
    else:
        assert "set" in section and "remove" in section
    assert apply_plan_delta(old, plan_delta(old, {"nodes": new_nodes})) == {"nodes": new_nodes}


def test_key_runs_write_each_run_of_integers_once() -> None:
    keys = ["7", "x", "05", "3", "4"]
    assert _key_runs(keys, [5, 6, 10, 12, 11]) == ["x", "05", [3, 7], [10, 12]]


@given(st.sets(st.integers(min_value=0, max_value=300)), st.integers(min_value=0, max_value=3))
def test_key_runs_give_back_their_keys(numbers: set[int], as_text: int) -> None:
    ordered = sorted(numbers)
    texts = [str(n) for n in ordered[::2]] if as_text else []
    rest = ordered[1::2] if as_text else ordered
    runs = _key_runs(texts, rest)
    assert sorted(_run_keys(runs), key=int) == [str(n) for n in ordered]
    spans = [r if isinstance(r, list) else [r, r] for r in runs]
    # Maximal: no run ends where the next begins.
    assert all(a[1] + 1 < b[0] for a, b in pairwise(spans))
