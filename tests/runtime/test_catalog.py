"""The operator catalog: its JSON, Flink's defaults, and an operator's code for every kind."""

from __future__ import annotations

import json

from runtime.catalog import CATALOG, Category, ParamType, catalog_document
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
        for param in operator["params"]:
            assert set(param) == {"name", "label", "type", "required", "default", "choices", "help"}
            assert param["type"] in {t.value for t in ParamType}
            assert (param["choices"] is not None) == (param["type"] == "enum")
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
