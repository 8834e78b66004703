"""The operator catalog: its JSON, Flink's defaults, and an operator's code for every kind."""

from __future__ import annotations

import json

from runtime.catalog import ASSIGNERS, CATALOG, Category, ParamType, catalog_document
from runtime.operators import CODE


def test_catalog_document_has_exactly_the_shape_the_editor_reads():
    document = catalog_document()
    assert set(document) == {"format", "operators"}
    assert document["format"] == "catalog/v1"
    json.dumps(document)  # plain JSON
    kinds = [operator["kind"] for operator in document["operators"]]
    assert len(kinds) == len(set(kinds))
    for operator in document["operators"]:
        assert set(operator) == {
            "kind", "label", "category", "description", "inputs", "keyed", "defaults",
            "params", "palette",
        }  # fmt: skip
        assert operator["category"] in {c.value for c in Category}
        assert operator["inputs"] in (0, 1, 2)
        assert set(operator["defaults"]) == {"name", "chainingStrategy", "factory"}
        assert operator["defaults"]["chainingStrategy"] in {"ALWAYS", "HEAD", "NEVER"}
        assert operator["defaults"]["factory"] in {
            "OPERATOR",
            "SOURCE",
            "LEGACY_SOURCE",
            "YIELDING",
        }
        choices = {p["name"]: p["choices"] for p in operator["params"] if p["type"] == "enum"}
        for param in operator["params"]:
            assert set(param) == {
                "name", "label", "type", "required", "default", "choices", "help", "appliesWhen",
            }  # fmt: skip
            assert param["type"] in {t.value for t in ParamType}
            assert (param["choices"] is not None) == (param["type"] == "enum")
            condition = param["appliesWhen"]
            if condition is not None:
                # An enum of the same operator, and only values it can take.
                assert set(condition) == {"param", "values"}
                assert condition["param"] in choices and condition["param"] != param["name"]
                assert condition["values"] and set(condition["values"]) <= set(
                    choices[condition["param"]]
                )
        assert (operator["category"] == "source") == (operator["inputs"] == 0)


def test_defaults_mirror_flink():
    assert CATALOG["source.collection"].chaining_strategy == "HEAD"
    assert CATALOG["source.collection"].factory == "LEGACY_SOURCE"
    assert CATALOG["source.sequence"].factory == "SOURCE"
    assert CATALOG["flat_map"].name == "FlatMap"
    assert CATALOG["key_by"].name == "_stream_key_by_map_operator"
    assert CATALOG["sink.print"].name == "Sink: Print to Std. Out"
    assert CATALOG["sink.writer"].factory == "YIELDING"


def test_palette_leaves_out_the_kinds_only_imports_need():
    hidden = {kind for kind, spec in CATALOG.items() if not spec.palette}
    assert {
        "key_by", "side_output", "process", "print.align_type", "timestamps.extract",
        "timestamps.watermarks", "timestamps.remove", "partition_custom.key",
        "partition_custom.values", "sink.writer", "sink.committer",
    } <= hidden  # fmt: skip
    assert {"map", "filter", "reduce", "window.reduce", "co_map", "sink.print"}.isdisjoint(hidden)


def test_every_kind_has_operator_code_and_all_code_is_a_kind():
    assert sorted(set(CATALOG) - set(CODE)) == [], "kinds without operator code"
    assert sorted(set(CODE) - set(CATALOG)) == [], "operator code for no kind"


# What each assigner reads in runtime.operators.windows, and what Flink's needs.
WINDOW_PARAMS = {
    "tumbling_event_time": {"sizeMs", "timestamp"},
    "sliding_event_time": {"sizeMs", "slideMs", "timestamp"},
    "event_time_session": {"gapMs", "timestamp"},
    "tumbling_processing_time": {"sizeMs"},
    "sliding_processing_time": {"sizeMs", "slideMs"},
    "processing_time_session": {"gapMs"},
    "count_tumbling": {"size"},
    "count_sliding": {"size", "slide"},
}


def test_each_window_parameter_applies_to_the_assigners_that_read_it():
    assert set(WINDOW_PARAMS) == set(ASSIGNERS)
    for spec in CATALOG.values():
        if spec.category is not Category.WINDOW:
            continue
        for assigner in ASSIGNERS:
            params = {"assigner": assigner}
            applying = {p.name for p in spec.params if p.applies_when and p.applies(params)}
            assert applying == WINDOW_PARAMS[assigner], (spec.kind, assigner)
            # Whatever applies is required then; the rest applies always.
            assert all(p.required for p in spec.params if p.applies_when and p.applies(params))
        always = {p.name for p in spec.params if p.applies_when is None}
        assert "assigner" in always and always.isdisjoint(set().union(*WINDOW_PARAMS.values()))


def test_a_new_window_operator_starts_with_the_parameters_of_its_default_assigner():
    spec = CATALOG["window.reduce"]
    defaults = {p.name: p.default for p in spec.params if p.default is not None}
    assert defaults == {
        "assigner": "tumbling_event_time", "sizeMs": 1000, "timestamp": "x", "fn": "a + b",
    }  # fmt: skip
    assert all(spec.param(name).applies(defaults) for name in defaults)
