"""A run's parameters: checked as requests give them, applied to the document, faults read."""

from __future__ import annotations

from typing import Any

import pytest

from runtime.parameters import (
    ParameterError,
    check_parameters,
    document_for_run,
    injected_faults,
)
from runtime.plan import Fault


def test_checked_parameters_keep_what_was_given_with_sorted_keys():
    given = {"params": {"2": {"fn": "x"}}, "faults": [{"subtask": 0}]}
    checked = check_parameters(given, faults_allowed=True)
    assert checked == given and list(checked) == ["faults", "params"]
    assert check_parameters(None, faults_allowed=False) == {}


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({"speed": "fast"}, "parameters"),
        ({"params": {"2": "x"}}, "parameters.params"),
        ({"faults": [{"node": 2}]}, "parameters.faults"),
        ({"faults": [{"subtask": 0, "attempts": [-1]}]}, "parameters.faults"),
        ({"faults": "all"}, "parameters.faults"),
    ],
)
def test_malformed_parameters_name_their_field(parameters: dict[str, Any], field: str):
    with pytest.raises(ParameterError) as caught:
        check_parameters(parameters, faults_allowed=True)
    assert field in caught.value.fields
    assert str(caught.value) == caught.value.fields[field][0]


def test_faults_need_the_servers_consent():
    with pytest.raises(ParameterError) as caught:
        check_parameters({"faults": [{"subtask": 0}]}, faults_allowed=False)
    assert caught.value.fields == {"parameters.faults": ["Fault injection is off on this server."]}


def test_overrides_replace_node_parameters_in_a_copy():
    document = {"nodes": [{"id": 2, "params": {"fn": "x", "keep": 1}}, {"id": 3}]}
    changed, problems = document_for_run(document, {"params": {"2": {"fn": "x + 1"}}})
    assert problems == []
    assert changed["nodes"][0]["params"] == {"fn": "x + 1", "keep": 1}
    assert document["nodes"][0]["params"] == {"fn": "x", "keep": 1}
    assert document_for_run(document, {}) == (document, [])


def test_overrides_of_a_missing_node_are_diagnostics_on_their_field():
    _, [problem] = document_for_run({"nodes": []}, {"params": {"42": {"fn": "x"}}})
    assert (problem.code, problem.location.field) == ("run.unknown-node", "params.42")


def test_injected_faults_are_read_from_camel_case_with_the_plans_defaults():
    parameters = {
        "faults": [
            {"subtask": 1},
            {"subtask": 0, "attempts": [0, 2], "node": 3, "afterRecords": 5, "message": "m"},
        ]
    }
    assert injected_faults(parameters) == (
        Fault(subtask=1),
        Fault(subtask=0, attempts=(0, 2), message="m", node=3, after_records=5),
    )
    assert injected_faults({}) == ()
