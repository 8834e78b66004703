"""Import and export of streamgraph/v1 documents and of Flink's execution plan JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipelines.documents import import_name_from_file
from pipelines.models import Pipeline
from tests.backend.factories import make_document, make_team

pytestmark = pytest.mark.django_db

# `env.getExecutionPlan()` of a small Flink 2 job, as Flink prints it (Jackson's layout).
FLINK_PLAN = """{
  "nodes" : [ {
    "id" : 1,
    "type" : "Source: Clicks",
    "pact" : "Data Source",
    "contents" : "Source: Clicks",
    "parallelism" : 2
  }, {
    "id" : 2,
    "type" : "Map",
    "pact" : "Operator",
    "contents" : "Map",
    "parallelism" : 2,
    "predecessors" : [ {
      "id" : 1,
      "ship_strategy" : "FORWARD",
      "side" : "second"
    } ]
  }, {
    "id" : 3,
    "type" : "Sink: Print to Std. Out",
    "pact" : "Data Sink",
    "contents" : "Sink: Print to Std. Out",
    "parallelism" : 4,
    "predecessors" : [ {
      "id" : 2,
      "ship_strategy" : "REBALANCE",
      "side" : "second"
    } ]
  } ]
}"""


def _import(team: Any, content: Any, name: str | None = "Imported") -> Any:
    body: dict[str, Any] = {"workspace": team.workspace.pk, "content": content}
    if name is not None:
        body["name"] = name
    return team.client("editor").post("/api/pipelines/import/", body)


def _export(team: Any, pipeline_id: int, query: str) -> Any:
    return team.client("viewer").get(f"/api/pipelines/{pipeline_id}/export/{query}")


def test_streamgraph_round_trip_keeps_every_key() -> None:
    team = make_team()
    document = make_document(name="clicks", parallelism=3)
    document["nodes"][1]["ui"] = {"x": 120, "y": 40}
    document["meta"] = {"owner": "fraud team"}

    imported = _import(team, document)
    exported = _export(team, imported.json()["id"], "?format=streamgraph")

    assert imported.status_code == 201
    assert imported.json()["importedFrom"] == "streamgraph"
    assert imported.json()["document"] == document
    assert exported.status_code == 200
    assert exported["Content-Type"] == "application/json; charset=utf-8"
    assert exported["Content-Disposition"] == 'attachment; filename="imported.streamgraph.json"'
    assert json.loads(exported.content) == document


def test_streamgraph_can_be_imported_as_text_and_named_after_the_document() -> None:
    team = make_team()
    document = make_document(name="clicks")

    response = _import(team, json.dumps(document), name=None)

    assert response.status_code == 201
    assert response.json()["name"] == "clicks"
    assert response.json()["document"] == document


@pytest.mark.parametrize("as_text", [True, False], ids=["text", "object"])
def test_flink_plan_import(as_text: bool) -> None:
    team = make_team()

    response = _import(team, FLINK_PLAN if as_text else json.loads(FLINK_PLAN), name="Clicks")

    assert response.status_code == 201
    body = response.json()
    assert body["importedFrom"] == "flink-plan"
    document = body["document"]
    assert document["format"] == "streamgraph/v1"
    assert document["name"] == "Clicks"
    assert [(n["id"], n["name"], n["parallelism"]) for n in document["nodes"]] == [
        (1, "Source: Clicks", 2),
        (2, "Map", 2),
        (3, "Sink: Print to Std. Out", 4),
    ]
    # What Flink picks when a program chooses no partitioner: read as not chosen.
    assert [(e["source"], e["target"], e["partitioner"]) for e in document["edges"]] == [
        (1, 2, None),
        (2, 3, None),
    ]
    plan = team.client("viewer").get(f"/api/pipelines/{body['id']}/plan/").json()
    assert plan["ok"] is True


def test_flink_plan_round_trip_is_byte_identical() -> None:
    team = make_team()
    imported = _import(team, FLINK_PLAN, name="Clicks").json()

    exported = _export(team, imported["id"], "?format=flink-plan")

    assert exported.status_code == 200
    assert exported["Content-Disposition"] == 'attachment; filename="clicks.plan.json"'
    assert exported.content.decode("utf-8") == FLINK_PLAN


def test_export_of_a_version() -> None:
    team = make_team()
    original = team.pipeline.document
    team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": make_document(parallelism=5)}
    )

    exported = _export(team, team.pipeline.pk, "?version=1")

    assert exported["Content-Disposition"] == 'attachment; filename="orders-v1.streamgraph.json"'
    assert json.loads(exported.content) == original


def test_export_defaults_to_streamgraph_and_rejects_unknown_formats() -> None:
    team = make_team()

    default = _export(team, team.pipeline.pk, "")
    unknown = _export(team, team.pipeline.pk, "?format=yaml")

    assert json.loads(default.content) == team.pipeline.document
    assert unknown.status_code == 400
    assert set(unknown.json()["error"]["fields"]) == {"format"}


def test_flink_plan_export_of_a_document_with_graph_errors_is_400() -> None:
    team = make_team()
    document = make_document()
    document["edges"].append({"source": 4, "target": 1, "partitioner": "REBALANCE"})  # a cycle
    team.client("editor").patch(f"/api/pipelines/{team.pipeline.pk}/", {"document": document})

    response = _export(team, team.pipeline.pk, "?format=flink-plan")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-document"


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ("{not json", "import.not-json"),
        ({"format": "streamgraph/v2", "nodes": []}, "import.format"),
        ({"nodes": [{"id": 1, "pact": "Data Source"}]}, "import.flink-plan"),
        (42, "import.format"),
        ({"format": "streamgraph/v1", "nodes": [{"id": "one"}]}, "node.id"),
    ],
)
def test_content_that_cannot_be_imported_is_400_and_stores_nothing(content: Any, code: str) -> None:
    team = make_team()

    response = _import(team, content)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid-document"
    assert error["diagnostics"][0]["code"] == code
    assert Pipeline.objects.count() == 1


WORD_COUNT_PLAN = (
    Path(__file__).resolve().parents[1] / "compiler" / "data" / "fixtures" / "word-count.plan.json"
).read_text("utf-8")


def _import_file(team: Any, content: Any, file_name: str | None) -> Any:
    body: dict[str, Any] = {"workspace": team.workspace.pk, "content": content}
    if file_name is not None:
        body["fileName"] = file_name
    return team.client("editor").post("/api/pipelines/import/", body)


def test_a_flink_plan_is_named_after_its_file() -> None:
    team = make_team()

    response = _import_file(team, WORD_COUNT_PLAN, "word-count.plan.json")

    assert response.status_code == 201
    assert response.json()["name"] == "word-count"
    assert response.json()["document"]["name"] == "word-count"


def test_a_flink_plan_is_named_after_its_job_when_it_names_one() -> None:
    team = make_team()
    plan = {**json.loads(WORD_COUNT_PLAN), "name": "Streaming WordCount"}

    response = _import_file(team, plan, "plan.json")

    assert response.json()["name"] == "Streaming WordCount"
    assert response.json()["document"]["name"] == "Streaming WordCount"


def test_a_given_name_wins_and_without_any_the_pipeline_is_imported() -> None:
    team = make_team()

    named = _import(team, WORD_COUNT_PLAN, name="Counts")
    nameless = _import_file(team, WORD_COUNT_PLAN, None)

    assert named.json()["name"] == "Counts"
    assert nameless.json()["name"] == "imported"


@pytest.mark.parametrize(
    ("file_name", "expected"),
    [
        ("word-count.plan.json", "word-count"),
        ("orders.streamgraph.json", "orders"),
        ("C:\\jobs\\fraud.json", "fraud"),
        ("plan", "plan"),
        (".json", ".json"),
        ("  ", None),
    ],
)
def test_file_names_lose_the_extensions_exports_write(file_name: str, expected: str | None) -> None:
    assert import_name_from_file(file_name) == expected


def test_a_streamgraph_document_without_a_name_is_named_after_its_file() -> None:
    team = make_team()
    document = make_document()
    document.pop("name", None)

    response = _import_file(team, document, "clicks.streamgraph.json")

    assert response.json()["name"] == "clicks"


def test_the_plan_of_an_imported_flink_plan_lists_what_is_left_to_run_it() -> None:
    team = make_team()
    imported = _import_file(team, WORD_COUNT_PLAN, "word-count.plan.json").json()

    plan = team.client("viewer").get(f"/api/pipelines/{imported['id']}/plan/").json()
    other = team.client("viewer").get(f"/api/pipelines/{team.pipeline.pk}/plan/").json()

    checklist = plan["importChecklist"]
    assert checklist["remaining"] == 5
    assert [(n["name"], n["suggestedOperator"]) for n in checklist["nodes"]] == [
        ("Source: Collection Source", "source.collection"),
        ("FlatMap", "flat_map"),
        ("Map", "map"),
        ("_stream_key_by_map_operator", "key_by"),
        ("Reduce", "reduce"),
        ("Sink: Print to Std. Out", "sink.print"),
    ]
    assert other["importChecklist"] is None
