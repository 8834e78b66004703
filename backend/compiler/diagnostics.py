"""Diagnostics: every problem the compiler finds, with where it is.

A diagnostic never aborts the caller with an exception: passes collect them and
the result says whether compilation could go on. `Location` names the element
the way the canvas and the REST error shape do (node id, edge index, field).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Location:
    node: int | None = None
    edge: int | None = None
    field: str | None = None
    """Dotted path inside the element, e.g. `parallelism` or `config.maxParallelism`."""

    def describe(self) -> str:
        parts = []
        if self.node is not None:
            parts.append(f"node {self.node}")
        if self.edge is not None:
            parts.append(f"edge #{self.edge}")
        if self.field is not None:
            parts.append(f"field '{self.field}'")
        return ", ".join(parts) if parts else "document"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    """Stable, dotted, kebab-case (e.g. `edge.unknown-node`): tools and tests match on it."""
    message: str
    location: Location = Location()
    severity: Severity = Severity.ERROR
    nodes: tuple[int, ...] = ()
    """Every node the problem is about, when it is about several (a cycle's); `location`
    then names the first. Written to JSON only when there are any."""
    edges: tuple[int, ...] = ()
    """Every edge (by index) the problem is about, when it is about several."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "node": self.location.node,
            "edge": self.location.edge,
            "field": self.location.field,
        }
        if self.nodes:
            data["nodes"] = list(self.nodes)
        if self.edges:
            data["edges"] = list(self.edges)
        return data

    def __str__(self) -> str:
        return f"{self.severity.value}: {self.location.describe()}: {self.message} [{self.code}]"


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)


STRUCTURAL_CODES = frozenset(
    {
        "document.type",
        "document.format",
        "field.type",
        "field.enum",
        "node.type",
        "node.id",
        "node.duplicate-id",
        "node.name",
        "edge.type",
        "edge.unknown-node",
    }
)
"""Errors that make a document unreadable as a graph. A working copy being edited may
hold any other error (a cycle, a FORWARD edge across parallelism, a uid collision):
the editor shows it as a diagnostic until the user fixes it."""


def structural_errors(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR and d.code in STRUCTURAL_CODES]
