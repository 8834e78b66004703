"""Warnings about stateful operators without a uid or uidHash, shown after the run problems
in REST plans and in the co-editing live plan, marked `"stage": "state"`, never making a
document invalid; pinning an operator's current ID keeps the ID and removes its warning."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.liveplan import apply_plan_delta
from pipelines.editing import document_live_plan, pipeline_apply_edit, pipeline_live_plan
from pipelines.models import Pipeline
from tests.backend.factories import Team, client_for, make_document, make_team, make_user

pytestmark = pytest.mark.django_db


def state_warnings(diagnostics: list[dict[str, Any]]) -> list[tuple[str, int | None, str | None]]:
    return [(d["code"], d["node"], d["field"]) for d in diagnostics if d.get("stage") == "state"]


def runnable_document(**overrides: Any) -> dict[str, Any]:
    """`make_document` with kinds, parameters and a key the runtime can run: nothing but
    the state warnings of the source (1) and the reduce (3) is reported."""
    document = make_document(**overrides)
    document["nodes"][0].update(operator="source.sequence", params={"from": 1, "to": 100})
    document["nodes"][1]["params"] = {"fn": "x * 2"}
    document["nodes"][2]["params"] = {"fn": "a + b"}
    document["edges"][1]["key"] = {"fn": "x % 10"}
    return document


@pytest.fixture
def team() -> Team:
    """A pipeline at revision 0 with `make_document`'s document: the live plan of a revision
    is cached by pipeline and revision, so live tests keep that document."""
    return make_team()


def _store(team: Team, document: dict[str, Any]) -> None:
    """Replace the working copy for REST plans, which are compiled on every request."""
    Pipeline.objects.filter(pk=team.pipeline.pk).update(snapshot_revision=None, snapshot=document)


def _plan(team: Team, query: str = "") -> dict[str, Any]:
    response = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/plan/{query}")
    assert response.status_code == 200
    result: dict[str, Any] = response.json()
    return result


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


# REST plans ----------------------------------------------------------------------------


def test_the_plan_warns_about_each_stateful_operator_without_uid(team: Team) -> None:
    _store(team, runnable_document())

    plan = _plan(team)

    assert plan["ok"] is True
    assert plan["jobGraph"] is not None
    assert [d["stage"] for d in plan["diagnostics"]] == ["state", "state"]
    assert state_warnings(plan["diagnostics"]) == [
        ("state.no-uid", 1, "uid"),
        ("state.no-uid", 3, "uid"),
    ]
    [_, reduce] = plan["diagnostics"]
    assert reduce["severity"] == "warning"
    assert reduce["message"].startswith("Reduce keeps keyed state but has no uid")
    assert "pin its current ID" in reduce["message"]


def test_state_warnings_come_after_the_compilers_and_the_run_problems(team: Team) -> None:
    document = make_document(sink_parallelism=4)
    document["edges"][2]["partitioner"] = "FORWARD"  # a compiler error
    _store(team, document)

    plan = _plan(team)

    stages = [d.get("stage") for d in plan["diagnostics"]]
    order = {None: 0, "run": 1, "state": 2}
    assert stages == sorted(stages, key=order.__getitem__)
    assert {None, "run", "state"} == set(stages)
    assert plan["ok"] is False  # the compiler's error, not the warnings


def test_the_plan_of_a_version_and_a_posted_document_carry_them_too(team: Team) -> None:
    version = _plan(team, "?version=1")
    compiled = client_for(make_user()).post("/api/compile/", runnable_document()).json()

    assert ("state.no-uid", 1, "uid") in state_warnings(version["diagnostics"])
    assert state_warnings(compiled["diagnostics"]) == [
        ("state.no-uid", 1, "uid"),
        ("state.no-uid", 3, "uid"),
    ]


def test_a_document_with_uids_has_no_warnings(team: Team) -> None:
    document = runnable_document(uid="orders-source")
    document["nodes"][2]["uid"] = "order-totals"
    _store(team, document)

    assert _plan(team)["diagnostics"] == []


def test_an_imported_pipelines_checklist_lists_no_state_warnings() -> None:
    team = make_team()
    flink_plan = {
        "nodes": [
            {
                "id": 1,
                "type": "Source: Clicks",
                "pact": "Data Source",
                "contents": "Source: Clicks",
                "parallelism": 1,
            },
            {
                "id": 2,
                "type": "Sink: Print to Std. Out",
                "pact": "Data Sink",
                "contents": "Sink: Print to Std. Out",
                "parallelism": 1,
                "predecessors": [{"id": 1, "ship_strategy": "FORWARD", "side": "second"}],
            },
        ]
    }
    imported = (
        team.client("editor")
        .post("/api/pipelines/import/", {"workspace": team.workspace.pk, "content": flink_plan})
        .json()
    )

    plan = team.client("viewer").get(f"/api/pipelines/{imported['id']}/plan/").json()

    assert state_warnings(plan["diagnostics"]) == [("state.no-uid", 1, "uid")]
    items = [item for node in plan["importChecklist"]["nodes"] for item in node["items"]]
    assert items
    assert all(not item["code"].startswith("state.") for item in items)


# The live plan -------------------------------------------------------------------------


def test_the_live_plan_carries_them_after_the_run_problems() -> None:
    document = make_document()

    plan = document_live_plan(document=document)

    stages = [d.get("stage") for d in plan["diagnostics"]]
    assert stages[-2:] == ["state", "state"]
    assert "state" not in stages[:-2]
    assert state_warnings(plan["diagnostics"]) == [
        ("state.no-uid", 1, "uid"),
        ("state.no-uid", 3, "uid"),
    ]


def test_pinning_the_current_id_keeps_it_and_removes_the_warning(team: Team) -> None:
    document = Pipeline.objects.get(pk=team.pipeline.pk).document
    before = pipeline_live_plan(pipeline_id=team.pipeline.pk, revision=0, document=document)
    operator_id = before["nodes"]["3"]["operatorId"]

    outcome = _edit(team, _set_node_field(3, "uidHash", operator_id))

    assert outcome.applied is not None
    delta = outcome.applied.planDelta
    after = apply_plan_delta(before, delta)
    assert after["nodes"]["3"]["operatorId"] == operator_id
    assert after["nodes"]["3"]["userDefinedId"] == operator_id
    assert {k: v["operatorId"] for k, v in after["nodes"].items()} == {
        k: v["operatorId"] for k, v in before["nodes"].items()
    }
    assert state_warnings(delta["diagnostics"]) == [("state.no-uid", 1, "uid")]
    stored = Pipeline.objects.get(pk=team.pipeline.pk).document
    assert after == document_live_plan(document=stored)


def test_an_edit_the_compiler_ignores_still_refreshes_them(team: Team) -> None:
    outcome = _edit(
        team,
        {"kind": "set_operator", "nodeId": 2, "operator": "keyed_process", "params": {}},
    )

    assert outcome.applied is not None
    delta = outcome.applied.planDelta
    assert set(delta) == {"diagnostics"}  # the compiled plan is unchanged
    assert ("state.no-uid", 2, "uid") in state_warnings(delta["diagnostics"])


def test_renaming_an_operator_renames_it_in_its_warning(team: Team) -> None:
    outcome = _edit(team, _set_node_field(3, "name", "Order totals"))

    assert outcome.applied is not None
    diagnostics = outcome.applied.planDelta["diagnostics"]
    [_, warning] = [d for d in diagnostics if d.get("stage") == "state"]
    assert warning["message"].startswith("Order totals keeps keyed state")


def test_moving_an_operator_leaves_them_alone(team: Team) -> None:
    outcome = _edit(team, {"kind": "move_node", "nodeId": 3, "x": 10, "y": 20})

    assert outcome.applied is not None
    assert outcome.applied.planDelta == {}
