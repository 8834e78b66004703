"""What each process keeps of working copies (`pipelines.editing`): no model of a revision
that was never committed, and no object kept from the cyclic collector for ever."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from django.db import transaction
from django.test.utils import override_settings

from pipelines import editing
from pipelines.editing import pipeline_apply_edit
from pipelines.models import Pipeline
from pipelines.services import pipeline_update
from tests.backend.factories import make_pipeline, make_team

pytestmark = pytest.mark.django_db


def _rename(node: int, name: str) -> dict[str, Any]:
    return {"kind": "set_field", "element": "node", "nodeId": node, "field": "name", "value": name}


class _RolledBack(Exception):
    pass


@override_settings(PIPELINE_SNAPSHOT_EDITS=2)
def test_an_edit_that_never_committed_leaves_no_model_behind() -> None:
    team = make_team()
    pipeline_id = team.pipeline.pk
    nodes = team.pipeline.document["nodes"]
    editing._models.clear()
    # The edit's transaction does not commit (here an enclosing one rolls back; in
    # production its COMMIT fails): revision 1 does not exist.
    with pytest.raises(_RolledBack), transaction.atomic():
        pipeline_apply_edit(
            pipeline_id=pipeline_id,
            user=team.editor,
            base_revision=0,
            edit=_rename(nodes[0]["id"], "Never stored"),
            op_id="a",
            client_id="c",
        )
        raise _RolledBack
    # A REST replacement makes revision 1; two edits follow, the second writes a snapshot.
    replaced = {**team.pipeline.document, "nodes": [{**nodes[0], "name": "Replaced"}, *nodes[1:]]}
    pipeline_update(pipeline=team.pipeline, actor=team.editor, document=replaced)
    for revision in (1, 2):
        outcome = pipeline_apply_edit(
            pipeline_id=pipeline_id,
            user=team.editor,
            base_revision=revision,
            edit=_rename(nodes[-1]["id"], f"Last {revision}"),
            op_id=f"b{revision}",
            client_id="c",
        )
        assert outcome.applied is not None
    assert Pipeline.objects.get(pk=pipeline_id).document["nodes"][0]["name"] == "Replaced"


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_building_a_model_keeps_no_garbage_cycle_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    team = make_team()
    editing._models.clear()
    cycle = _Cycle()  # e.g. a request or a websocket's objects, alive at that moment
    alive = weakref.ref(cycle)
    try:
        # A small model freezes nothing: the cycle goes with the next collection.
        editing.pipeline_live_model(pipeline_id=team.pipeline.pk, revision=0)
        del cycle
        gc.collect()
        assert alive() is None
        # A large one freezes what is alive, until the next large one collects it first.
        monkeypatch.setattr(editing, "FREEZE_NODES", 1)
        cycle = _Cycle()
        alive = weakref.ref(cycle)
        editing._models.clear()
        editing.pipeline_live_model(pipeline_id=team.pipeline.pk, revision=0)
        del cycle
        gc.collect()
        assert alive() is not None and gc.get_freeze_count() > 0
        editing._models.clear()
        editing.pipeline_live_model(pipeline_id=team.pipeline.pk, revision=0)
        assert alive() is None
    finally:
        gc.unfreeze()


def test_edits_of_a_large_model_freeze_and_collect_every_so_many(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    team = make_team()
    editing._models.clear()
    monkeypatch.setattr(editing, "FREEZE_NODES", 1)
    monkeypatch.setattr(editing, "_EDITS_BETWEEN_COLLECTIONS", 3)
    monkeypatch.setattr(editing, "_edits_since_collection", 0)
    node = team.pipeline.document["nodes"][0]["id"]

    def edit(revision: int) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            outcome = pipeline_apply_edit(
                pipeline_id=team.pipeline.pk,
                user=team.editor,
                base_revision=revision,
                edit=_rename(node, f"Source {revision}"),
                op_id=f"o{revision}",
                client_id="c",
            )
        assert outcome.applied is not None

    try:
        edit(0)
        cycle = _Cycle()  # alive while an edit is made, garbage afterwards
        alive = weakref.ref(cycle)
        edit(1)
        del cycle
        gc.collect()
        assert alive() is not None  # frozen with what the edit made
        edit(2)  # the third edit since the count began collects first
        assert alive() is None
    finally:
        gc.unfreeze()


def test_models_kept_fit_in_their_byte_budget_newest_first(
    django_capture_on_commit_callbacks: Any,
) -> None:
    team = make_team()
    first = team.pipeline
    second = make_pipeline(workspace=team.workspace, created_by=team.owner, name="Second")
    editing._models.clear()
    one = editing.document_bytes(first.document)
    with override_settings(LIVE_MODEL_CACHE_BYTES=one + one // 2):
        with django_capture_on_commit_callbacks(execute=True):  # models of commits only
            editing.pipeline_live_model(pipeline_id=first.pk, revision=0)
        assert list(editing._models) == [(first.pk, 0)]
        with django_capture_on_commit_callbacks(execute=True):  # models of commits only
            editing.pipeline_live_model(pipeline_id=second.pk, revision=0)
        assert list(editing._models) == [(second.pk, 0)]
    with override_settings(LIVE_MODEL_CACHE_BYTES=1):
        # One model is always kept: the one being edited.
        with django_capture_on_commit_callbacks(execute=True):  # models of commits only
            editing.pipeline_live_model(pipeline_id=first.pk, revision=0)
        assert list(editing._models) == [(first.pk, 0)]
