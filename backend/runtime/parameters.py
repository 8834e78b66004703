"""A run's parameters: overrides of its operators' parameters, and failures to inject.

A run of a saved version may give `params`, {node id: {parameter name: value}}, which
replace the version's values for that run, and, where the server allows it (tests),
`faults`: failures to inject, in the camelCase of requests. `check_parameters` checks
what a request gives, `document_for_run` applies the overrides to the version's document,
and `injected_faults` reads the failures as the plan takes them (`runtime.plan.Fault`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from compiler.diagnostics import Diagnostic, Location
from runtime.catalog import CATALOG
from runtime.plan import Fault

PARAMETER_KEYS = frozenset({"params", "faults"})

_FAULT_FIELDS: dict[str, type] = {
    "subtask": int,
    "attempts": list,
    "message": str,
    "vertex": str,
    "node": int,
    "afterRecords": int,
}


class ParameterError(ValueError):
    """Parameters a run cannot take: `fields` has the messages per request field."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__(next(iter(fields.values()))[0])
        self.fields = fields


def check_parameters(
    parameters: Mapping[str, Any] | None, *, faults_allowed: bool
) -> dict[str, Any]:
    """The run's parameters, checked (keys sorted); `ParameterError` says what is wrong."""
    if not parameters:
        return {}
    fields: dict[str, list[str]] = {}
    unknown = sorted(set(parameters) - PARAMETER_KEYS)
    if unknown:
        fields["parameters"] = [f"Unknown parameter {name!r}." for name in unknown]
    params = parameters.get("params", {})
    if not isinstance(params, dict) or not all(
        isinstance(values, dict) and all(isinstance(name, str) for name in values)
        for values in params.values()
    ):
        fields["parameters.params"] = ["Give {node id: {parameter name: value}}."]
    faults = parameters.get("faults")
    if faults is not None:
        if not faults_allowed:
            fields["parameters.faults"] = ["Fault injection is off on this server."]
        elif not isinstance(faults, list) or not all(_is_fault(f) for f in faults):
            fields["parameters.faults"] = [
                "Give a list of {subtask, attempts, vertex or node, message, afterRecords}."
            ]
    if fields:
        raise ParameterError(fields)
    return {key: parameters[key] for key in sorted(parameters)}


def _is_fault(fault: object) -> bool:
    """A fault as `injected_faults` reads it: which attempts of which subtask fail, and
    after how many records."""
    if not isinstance(fault, dict) or "subtask" not in fault or set(fault) - set(_FAULT_FIELDS):
        return False
    if not all(isinstance(value, _FAULT_FIELDS[name]) for name, value in fault.items()):
        return False
    return all(isinstance(a, int) and a >= 0 for a in fault.get("attempts", [0]))


def document_for_run(
    document: dict[str, Any], parameters: Mapping[str, Any]
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The version's document with the run's parameter values (`params`) in its nodes."""
    overrides: Mapping[str, Mapping[str, Any]] = parameters.get("params", {})
    if not overrides:
        return document, []
    result = copy.deepcopy(document)
    nodes = {str(n.get("id")): n for n in result.get("nodes", []) if isinstance(n, dict)}
    problems = []
    for node_id, values in overrides.items():
        node = nodes.get(node_id)
        if node is None:
            problems.append(
                Diagnostic(
                    "run.unknown-node",
                    f"parameters name node {node_id}, which the version does not have",
                    Location(field=f"params.{node_id}"),
                )
            )
            continue
        spec = CATALOG.get(str(node.get("operator")))
        # An unknown kind is the run check's problem (`runtime.runnability`).
        unknown = [] if spec is None else sorted(spec.unknown_params(values))
        if spec is not None and unknown:
            # An override the operator would never read would be silently ignored.
            what = f"{spec.kind} operator"
            offer = ", ".join(sorted(param.name for param in spec.params)) or "none"
            problems.extend(
                Diagnostic(
                    "run.unknown-parameter",
                    f"node {node_id}'s {what} has no parameter {name!r} (it has: {offer})",
                    Location(
                        node=int(node_id) if node_id.isdigit() else None,
                        field=f"params.{node_id}.{name}",
                    ),
                )
                for name in unknown
            )
            continue
        params = node.get("params")
        node["params"] = {**(params if isinstance(params, dict) else {}), **values}
    return result, problems


def injected_faults(parameters: Mapping[str, Any]) -> tuple[Fault, ...]:
    """The failures checked parameters ask for, as the plan takes them."""
    return tuple(
        Fault(
            subtask=fault["subtask"],
            attempts=tuple(fault.get("attempts", [0])),
            message=fault.get("message", "injected failure"),
            vertex=fault.get("vertex"),
            node=fault.get("node"),
            after_records=fault.get("afterRecords", 0),
        )
        for fault in parameters.get("faults", [])
    )
