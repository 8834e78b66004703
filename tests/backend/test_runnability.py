"""Problems that would stop a run, shown beside the compiler's diagnostics in REST plans
and in the co-editing live plan, never making a document invalid."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.liveplan import apply_plan_delta, live_plan
from compiler.pipeline import compile_document
from pipelines.editing import document_live_plan, pipeline_apply_edit, pipeline_live_plan
from pipelines.models import Pipeline
from tests.backend.factories import Team, client_for, make_document, make_team, make_user

pytestmark = pytest.mark.django_db


def runnable_document(**overrides: Any) -> dict[str, Any]:
    """`make_document` with kinds, parameters and a key the runtime can run."""
    document = make_document(**overrides)
    document["nodes"][0].update(operator="source.sequence", params={"from": 1, "to": 100})
    document["nodes"][1]["params"] = {"fn": "x * 2"}
    document["nodes"][2]["params"] = {"fn": "a + b"}
    document["edges"][1]["key"] = {"fn": "x % 10"}
    return document


def run_diagnostics(diagnostics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in diagnostics if d.get("stage") == "run"]


def codes(diagnostics: list[dict[str, Any]]) -> list[tuple[str, int | None, str | None]]:
    return [(d["code"], d["node"], d["field"]) for d in run_diagnostics(diagnostics)]


@pytest.fixture
def team() -> Team:
    return make_team()


# REST plans ----------------------------------------------------------------------------


def test_the_plan_carries_run_problems_after_the_compilers(team: Team) -> None:
    document = make_document(sink_parallelism=4)
    document["edges"][2]["partitioner"] = "FORWARD"  # a compiler error, too
    Pipeline.objects.filter(pk=team.pipeline.pk).update(snapshot_revision=None, snapshot=document)

    plan = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/plan/").json()

    diagnostics = plan["diagnostics"]
    stages = [d.get("stage") for d in diagnostics]
    assert stages == sorted(stages, key=lambda stage: stage is not None)  # compiler's first
    assert [d["code"] for d in diagnostics if "stage" not in d] == ["edge.forward-parallelism"]
    assert codes(diagnostics) == [
        ("run.unknown-operator", 1, "operator"),
        ("param.required", 2, "params.fn"),
        ("param.required", 3, "params.fn"),
        ("param.invalid-expression", None, "key.fn"),
    ]
    assert all(d["code"].startswith(("run.", "param.")) for d in run_diagnostics(diagnostics))


def test_run_problems_do_not_make_a_plan_invalid(team: Team) -> None:
    plan = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/plan/").json()

    assert run_diagnostics(plan["diagnostics"])
    assert plan["ok"] is True
    assert plan["jobGraph"] is not None


def test_a_runnable_document_has_no_run_problems(team: Team) -> None:
    Pipeline.objects.filter(pk=team.pipeline.pk).update(
        snapshot_revision=None, snapshot=runnable_document()
    )

    plan = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/plan/").json()

    assert plan["ok"] is True
    assert [d for d in plan["diagnostics"] if d.get("stage") != "state"] == []


def test_the_plan_of_a_version_carries_them_too(team: Team) -> None:
    url = f"/api/pipelines/{team.pipeline.pk}/plan/?version=1"

    plan = team.client("viewer").get(url).json()

    assert codes(plan["diagnostics"])[0] == ("run.unknown-operator", 1, "operator")


def test_compile_carries_them_too() -> None:
    plan = client_for(make_user()).post("/api/compile/", make_document()).json()

    assert plan["ok"] is True
    assert codes(plan["diagnostics"])


def test_a_document_with_run_problems_is_stored_and_saved(team: Team) -> None:
    document = make_document(parallelism=3)
    document["nodes"][1]["operator"] = "no-such-operator"
    client = team.client("editor")

    updated = client.patch(f"/api/pipelines/{team.pipeline.pk}/", {"document": document})
    saved = client.post(f"/api/pipelines/{team.pipeline.pk}/versions/", {"message": "wip"})

    assert updated.status_code == 200
    assert saved.status_code == 201


# The live plan -------------------------------------------------------------------------


def _edit(team: Team, edit: dict[str, Any], base: int = 0) -> Any:
    return pipeline_apply_edit(
        pipeline_id=team.pipeline.pk,
        user=team.editor,
        base_revision=base,
        edit=edit,
        op_id="op",
        client_id="client",
    )


def _set_node_field(node: int, field: str, value: Any) -> dict[str, Any]:
    return {"kind": "set_field", "element": "node", "nodeId": node, "field": field, "value": value}


def test_the_live_plan_is_the_compilers_with_run_problems() -> None:
    document = make_document()

    plan = document_live_plan(document=document)

    compiled = live_plan(compile_document(document))
    assert {**plan, "diagnostics": compiled["diagnostics"]} == compiled
    assert plan["diagnostics"][: len(compiled["diagnostics"])] == compiled["diagnostics"]
    assert codes(plan["diagnostics"])[0] == ("run.unknown-operator", 1, "operator")
    assert plan["ok"] is True


def test_a_parameter_edit_refreshes_run_problems_in_the_delta(team: Team) -> None:
    before = pipeline_live_plan(
        pipeline_id=team.pipeline.pk, revision=0, document=team.pipeline.document
    )

    outcome = _edit(team, _set_node_field(2, "params.fn", "x * 2"))

    assert outcome.applied is not None
    delta = outcome.applied.planDelta
    assert set(delta) == {"diagnostics"}  # the compiled plan is unchanged
    assert ("param.required", 2, "params.fn") in codes(before["diagnostics"])
    assert ("param.required", 2, "params.fn") not in codes(delta["diagnostics"])
    document = Pipeline.objects.get(pk=team.pipeline.pk).document
    assert apply_plan_delta(before, delta) == document_live_plan(document=document)


def test_an_unknown_operator_is_shown_not_refused(team: Team) -> None:
    outcome = _edit(team, _set_node_field(4, "operator", "sink.nowhere"))

    assert outcome.applied is not None
    assert ("run.unknown-operator", 4, "operator") in codes(
        outcome.applied.planDelta["diagnostics"]
    )


def test_a_bad_expression_is_located(team: Team) -> None:
    outcome = _edit(team, _set_node_field(2, "params.fn", "x +"))

    assert outcome.applied is not None
    diagnostics = run_diagnostics(outcome.applied.planDelta["diagnostics"])
    [problem] = [d for d in diagnostics if (d["node"], d["field"]) == (2, "params.fn")]
    assert (problem["code"], problem["severity"]) == ("param.invalid-expression", "error")


def test_moving_a_node_leaves_the_plan_alone(team: Team) -> None:
    outcome = _edit(team, {"kind": "move_node", "nodeId": 2, "x": 10, "y": 20})

    assert outcome.applied is not None
    assert outcome.applied.planDelta == {}


def test_a_plan_edit_keeps_run_problems_beside_new_compiler_errors(team: Team) -> None:
    outcome = _edit(team, _set_node_field(4, "parallelism", 5))

    assert outcome.applied is not None
    diagnostics = outcome.applied.planDelta["diagnostics"]
    assert diagnostics[0]["code"] == "edge.forward-parallelism"
    assert "stage" not in diagnostics[0]
    assert codes(diagnostics)[0] == ("run.unknown-operator", 1, "operator")
