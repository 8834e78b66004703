"""The shared cases of the edit operations (tests/contracts/edits.json), of how edges'
partitioners resolve (tests/contracts/partitioners.json) and of plan deltas
(tests/contracts/plandeltas.json), which the browser's implementation runs too
(frontend/src/graph/edits.contracts.test.ts, streamgraph.contracts.test.ts,
liveplan.contracts.test.ts)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from compiler.document import read_document
from compiler.edits import Edit, EditRejected, apply_edit
from compiler.liveplan import apply_plan_delta, plan_delta
from tests.contracts import contract_cases, plandeltas

CASES = contract_cases("edits")


def text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("case", CASES["apply"], ids=[case["name"] for case in CASES["apply"]])
def test_apply(case: dict[str, Any]) -> None:
    document = copy.deepcopy(CASES["documents"][case["document"]])
    inputs: list[tuple[dict[str, Any], str]] = []
    applied: list[dict[str, Any]] = []
    try:
        for data in case["edits"]:
            inputs.append((document, text(document)))
            document, edit = apply_edit(document, Edit.from_json(data))
            applied.append(edit.to_json())
            assert text(document) != inputs[-1][1], "an edit changed nothing"
    except EditRejected as error:
        assert "rejected" in case, f"rejected with {error.code}: {error.message}"
        seen = {"code": error.code, "message": error.message, "node": error.node}
        seen |= {"edge": error.edge, "field": error.field}
        assert {key: seen[key] for key in case["rejected"]} == case["rejected"]
    else:
        assert "expect" in case, "the edits were applied"
        assert text(document) == text(case["expect"]["document"])
        assert applied == case["expect"]["applied"]
    for before, before_text in inputs:
        assert text(before) == before_text, "an input document was modified"


@pytest.mark.parametrize("case", CASES["parse"])
def test_parse_round_trips(case: dict[str, Any]) -> None:
    edit = Edit.from_json(case["edit"])
    assert Edit.from_json(json.loads(json.dumps(edit.to_json()))) == edit


@pytest.mark.parametrize("case", CASES["affectsPlan"])
def test_affects_plan(case: dict[str, Any]) -> None:
    assert Edit.from_json(case["edit"]).affects_plan is case["affectsPlan"]


PARTITIONER_CASES = contract_cases("partitioners")["cases"]


@pytest.mark.parametrize("case", PARTITIONER_CASES, ids=[c["name"] for c in PARTITIONER_CASES])
def test_partitioners_resolve(case: dict[str, Any]) -> None:
    graph, diagnostics = read_document(case["document"])
    assert graph is not None, [str(d) for d in diagnostics]
    resolved = [[edge.partitioner.value, edge.partitioner_chosen] for edge in graph.edges]
    assert resolved == case["edges"]


PLAN_DELTAS = contract_cases("plandeltas")["cases"]


@pytest.mark.parametrize("case", PLAN_DELTAS, ids=[case["name"] for case in PLAN_DELTAS])
def test_plan_deltas(case: dict[str, Any]) -> None:
    assert plan_delta(case["before"], case["after"]) == case["delta"]
    assert apply_plan_delta(case["before"], case["delta"]) == case["after"]


def test_plan_delta_cases_are_the_servers() -> None:
    """Regenerate with `PYTHONPATH=backend:. python -m tests.contracts.plandeltas`."""
    assert plandeltas.cases() == PLAN_DELTAS


def test_plan_delta_cases_rename_and_xor() -> None:
    parts = [part for case in PLAN_DELTAS for part in case["delta"].values()]
    assert any(isinstance(part, dict) and "rename" in part for part in parts)
    assert any(isinstance(part, dict) and "xor" in part for part in parts)
