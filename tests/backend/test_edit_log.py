"""The working copy stored as a snapshot and the operations after it: an edit writes its
operation and the revision, every `PIPELINE_SNAPSHOT_EDITS` edits (more for a large
document) the document whole, and
whatever reads the working copy (REST, versions, exports, the plan, a process that holds
no model of it) reads the exact current document."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import override_settings

from compiler.edits import Edit, apply_edit
from pipelines import editing
from pipelines.editing import document_live_plan, pipeline_apply_edit
from pipelines.models import Pipeline, PipelineEdit
from pipelines.selectors import pipeline_plan
from tests.backend.factories import Team, make_team

pytestmark = pytest.mark.django_db


def _rename(node: int, name: str) -> dict[str, Any]:
    return {"kind": "set_field", "element": "node", "nodeId": node, "field": "name", "value": name}


def _stored_snapshot(pipeline_id: int) -> tuple[dict[str, Any], int | None]:
    """The stored snapshot column as the database holds it, and its revision."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT document, snapshot_revision FROM pipelines_pipeline WHERE id = %s",
            [pipeline_id],
        )
        raw, base = cursor.fetchone()
    return (json.loads(raw) if isinstance(raw, str) else raw), base


def _edit_at(team: Team, revision: int, edit: dict[str, Any]) -> Any:
    """The editor's `edit`, made as revision `revision` of the team's pipeline."""
    return pipeline_apply_edit(
        pipeline_id=team.pipeline.pk,
        user=team.editor,
        base_revision=revision - 1,
        edit=edit,
        op_id=f"op{revision}",
        client_id="c",
    )


@override_settings(PIPELINE_SNAPSHOT_EDITS=3)
def test_edits_store_operations_and_a_snapshot_every_few() -> None:
    team: Team = make_team()
    pipeline_id = team.pipeline.pk
    expected = team.pipeline.document
    node = expected["nodes"][0]["id"]
    first, _ = _stored_snapshot(pipeline_id)
    snapshots = []
    for revision in range(1, 8):
        edit = _rename(node, f"Step {revision}")
        outcome = _edit_at(team, revision, edit)
        assert outcome.applied is not None and outcome.revision == revision
        expected, _ = apply_edit(expected, Edit.from_json(edit))
        snapshot, base = _stored_snapshot(pipeline_id)
        snapshots.append((snapshot, base))
        pipeline = Pipeline.objects.get(pk=pipeline_id)
        assert pipeline.revision == revision
        assert pipeline.document == expected
        body = team.client("viewer").get(f"/api/pipelines/{pipeline_id}/").json()
        assert body["document"] == expected and body["revision"] == revision
    # Revisions 1, 2 stored only their operations; 3 a snapshot; 4, 5 operations; 6 ...
    assert snapshots[0] == (first, 0) and snapshots[1] == (first, 0)
    assert snapshots[2][1] is None and snapshots[3][1] == 3 and snapshots[5][1] is None
    assert snapshots[6][1] == 6

    saved = team.client("editor").post(f"/api/pipelines/{pipeline_id}/versions/", {})
    assert saved.status_code == 201
    number = saved.json()["number"]
    version = team.client("viewer").get(f"/api/pipelines/{pipeline_id}/versions/{number}/")
    assert version.json()["document"] == expected
    plan = team.client("viewer").get(f"/api/pipelines/{pipeline_id}/plan/").json()
    assert plan == pipeline_plan(document=expected)
    exported = team.client("viewer").get(f"/api/pipelines/{pipeline_id}/export/")
    assert exported.status_code == 200


def test_a_larger_document_is_stored_whole_after_more_edits() -> None:
    team: Team = make_team()
    pipeline_id = team.pipeline.pk
    document = team.pipeline.document
    node = document["nodes"][0]["id"]
    # 60 KB of canvas notes: large beside what each edit could add to it.
    document["nodes"][0]["ui"] = {**document["nodes"][0].get("ui", {}), "note": "n" * 60_000}
    team.pipeline.document = document
    team.pipeline.save()
    editing._models.clear()
    editing._sizes.clear()  # of the document before the notes, same revision
    size = len(json.dumps(document, ensure_ascii=False).encode())
    # Snapshots of this document are due every 6 edits by its size, not 3 by their number.
    with override_settings(
        PIPELINE_SNAPSHOT_EDITS=3,
        PIPELINE_SNAPSHOT_BYTES_PER_EDIT=size // 6,
        PIPELINE_SNAPSHOT_MAX_EDITS=500,
    ):
        bases = []
        for revision in range(1, 8):
            assert _edit_at(team, revision, _rename(node, f"Step {revision}")).applied
            bases.append(_stored_snapshot(pipeline_id)[1])
        assert bases == [0, 0, 0, 0, 0, None, 6]
        # And never more than the most a reading replays.
        with override_settings(PIPELINE_SNAPSHOT_MAX_EDITS=4):
            for revision in range(8, 12):
                assert _edit_at(team, revision, _rename(node, f"Step {revision}")).applied
            assert _stored_snapshot(pipeline_id)[1] == 10
    editing._models.clear()
    assert Pipeline.objects.get(pk=pipeline_id).document["nodes"][0]["name"] == "Step 11"


def _renamed_through(team: Team, document: dict[str, Any], first: int, last: int) -> dict[str, Any]:
    """The editor renames the first node at each revision from `first` to `last`; the
    document, given as it is before them, as it is after them."""
    node = document["nodes"][0]["id"]
    for revision in range(first, last + 1):
        edit = _rename(node, f"Step {revision}")
        assert _edit_at(team, revision, edit).applied is not None
        document, _ = apply_edit(document, Edit.from_json(edit))
    return document


@override_settings(PIPELINE_SNAPSHOT_EDITS=50)
def test_a_process_without_the_model_reads_snapshot_and_log() -> None:
    team: Team = make_team()
    pipeline_id = team.pipeline.pk
    expected = _renamed_through(team, team.pipeline.document, 1, 2)
    # Another process edits from here: this one holds no model of the pipeline.
    editing._models.clear()
    expected = _renamed_through(team, expected, 3, 4)
    editing._models.clear()
    model = editing.pipeline_live_model(pipeline_id=pipeline_id, revision=4)
    assert model.document == expected
    assert model.plan == document_live_plan(document=expected)


def _stored_edits(pipeline_id: int) -> list[int]:
    return list(
        PipelineEdit.objects.filter(pipeline_id=pipeline_id)
        .order_by("revision")
        .values_list("revision", flat=True)
    )


@override_settings(PIPELINE_SNAPSHOT_EDITS=3, PIPELINE_EDITS_KEPT=4)
def test_edits_long_before_the_snapshot_are_deleted_and_a_client_that_far_behind_reloads() -> None:
    team: Team = make_team()
    pipeline_id = team.pipeline.pk
    expected = _renamed_through(team, team.pipeline.document, 1, 13)
    node = expected["nodes"][0]["id"]
    # Snapshots at 3, 6, 9 and 12: at 12, the edits up to 12 - 4 went.
    assert _stored_snapshot(pipeline_id)[1] == 12
    assert _stored_edits(pipeline_id) == [9, 10, 11, 12, 13]
    editing._models.clear()
    assert Pipeline.objects.get(pk=pipeline_id).document == expected

    # A client a few revisions behind still rebases onto the edits kept ...
    behind = pipeline_apply_edit(
        pipeline_id=pipeline_id,
        user=team.editor,
        base_revision=10,
        edit={"kind": "move_node", "nodeId": node, "x": 5, "y": 5},
        op_id="behind",
        client_id="c",
    )
    assert behind.applied is not None and behind.applied.rebased
    # ... and one further behind than they reach is told to reload.
    lost = pipeline_apply_edit(
        pipeline_id=pipeline_id,
        user=team.editor,
        base_revision=5,
        edit=_rename(node, "Too late"),
        op_id="lost",
        client_id="c",
    )
    assert lost.reason == "conflict" and lost.error is not None
    assert "more than 4 revisions behind" in lost.error.message
    assert Pipeline.objects.get(pk=pipeline_id).revision == 14


@override_settings(PIPELINE_EDITS_KEPT=2)
def test_a_document_replaced_over_rest_drops_the_edits_long_before_it() -> None:
    team: Team = make_team()
    pipeline_id = team.pipeline.pk
    document = team.pipeline.document
    node = document["nodes"][0]["id"]
    for revision in range(1, 6):
        assert _edit_at(team, revision, _rename(node, f"Step {revision}")).applied is not None
    assert _stored_edits(pipeline_id) == [1, 2, 3, 4, 5]
    replaced = team.client("editor").patch(
        f"/api/pipelines/{pipeline_id}/", {"document": document}, format="json"
    )
    assert replaced.status_code == 200, replaced.content[:300]
    assert replaced.json()["revision"] == 6
    assert _stored_edits(pipeline_id) == [5]
