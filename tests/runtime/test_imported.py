"""What a pipeline imported from Flink's plan JSON needs: suggested kinds and a checklist."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from compiler.flinkjson import streamgraph_from_execution_plan
from runtime.catalog import CATALOG
from runtime.imported import import_checklist, suggest_operator

FIXTURES = Path(__file__).resolve().parents[1] / "compiler" / "data" / "fixtures"


def imported(name: str) -> dict[str, Any]:
    text = (FIXTURES / f"{name}.plan.json").read_text("utf-8")
    return streamgraph_from_execution_plan(text, name=name)


@pytest.mark.parametrize(
    ("name", "pact", "kind"),
    [
        ("Source: Collection Source", "Data Source", "source.collection"),
        ("Source: Sequence Source", "Data Source", "source.sequence"),
        ("Source: Custom Source", "Data Source", "source.collection"),
        ("Source: Kafka", "Data Source", "source.collection"),
        ("Source: CSV orders", "Data Source", "source.csv"),
        ("Source: Socket Stream", "Data Source", "source.text"),
        ("FlatMap", "Operator", "flat_map"),
        ("Flat Map", "Operator", "flat_map"),
        ("Map", "Operator", "map"),
        ("Filter", "Operator", "filter"),
        ("Reduce", "Operator", "reduce"),
        ("Keyed Reduce", "Operator", "reduce"),
        ("Keyed Aggregation", "Operator", "reduce"),
        ("_stream_key_by_map_operator", "Operator", "key_by"),
        ("Co-Map", "Operator", "co_map"),
        ("CoFlatMap", "Operator", "co_flat_map"),
        ("KEYED PROCESS", "Operator", "keyed_process"),
        ("Timestamps/Watermarks", "Operator", "timestamps.watermarks"),
        (
            "Window(TumblingEventTimeWindows(5000), EventTimeTrigger, ReduceFunction$1, "
            "PassThroughWindowFunction)",
            "Operator",
            "window.reduce",
        ),
        ("Window(GlobalWindows(), CountTrigger, MyProcess)", "Operator", "window.process"),
        ("Sink: Print to Std. Out", "Data Sink", "sink.print"),
        ("Sink: out", "Data Sink", "sink.print"),
        ("Sink: JSON lines", "Data Sink", "sink.json"),
        ("Sink: Writer", "Operator", "sink.writer"),
        ("files: Committer", "Operator", "sink.committer"),
        ("Enrich with prices", "Operator", None),
    ],
)
def test_flink_names_suggest_catalog_kinds(name: str, pact: str, kind: str | None) -> None:
    assert suggest_operator(name, pact) == kind
    assert kind is None or kind in CATALOG


def test_the_word_count_plan_gets_one_checklist() -> None:
    checklist = import_checklist(imported("word-count"))
    assert checklist is not None
    summary = [
        (n["node"], n["operator"], n["suggestedOperator"], [i["code"] for i in n["items"]])
        for n in checklist["nodes"]
    ]
    assert summary == [
        (1, "source", "source.collection", ["import.operator"]),
        (2, "flat_map", "flat_map", ["param.required"]),
        (3, "map", "map", ["param.required"]),
        (4, "key_by", "key_by", []),
        (6, "reduce", "reduce", ["param.required", "run.keyed-input-needs-key"]),
        (7, "sink.print", "sink.print", []),
    ]
    assert checklist["remaining"] == 5
    source = checklist["nodes"][0]["items"][0]
    assert source == {
        "code": "import.operator",
        "message": "choose what it runs: Flink names it 'Source: Collection Source' (Data "
        "Source), and Collection (source.collection) fits",
        "field": "operator",
        "edge": None,
    }
    # An edge's problem is listed under the node it feeds, with the edge.
    key = checklist["nodes"][4]["items"][1]
    assert (key["field"], key["edge"]) == ("key", 3)


def test_an_operator_flink_names_alone_must_be_chosen() -> None:
    document = imported("side-outputs")
    checklist = import_checklist(document)
    assert checklist is not None
    process = next(n for n in checklist["nodes"] if n["name"] == "PROCESS")
    assert process["operator"] == ""  # the import does not guess a kind to run
    assert process["suggestedOperator"] == "process"
    assert [i["code"] for i in process["items"]] == ["import.operator"]


def test_the_checklist_empties_as_the_pipeline_is_filled_in() -> None:
    document = copy.deepcopy(imported("word-count"))
    values = {1: ("source.collection", {"values": ["a b", "b"]})}
    values |= {2: ("flat_map", {"fn": "x.split()"}), 3: ("map", {"fn": "(x, 1)"})}
    values |= {6: ("reduce", {"fn": "(a[0], a[1] + b[1])"})}
    for node in document["nodes"]:
        if node["id"] in values:
            node["operator"], node["params"] = values[node["id"]]
    document["edges"][3]["key"] = {"fn": "x[0]"}
    checklist = import_checklist(document)
    assert checklist is not None
    assert checklist["remaining"] == 0
    assert all(n["items"] == [] for n in checklist["nodes"])


def test_other_documents_have_no_checklist() -> None:
    document = imported("word-count")
    del document["meta"]
    assert import_checklist(document) is None
    assert import_checklist("not a document") is None
