"""Pipeline documents: the empty one, size limits, validation, what stops a run, and import.

A working copy may hold errors that the editor shows as diagnostics until the
user fixes them (a cycle, a uid used twice); what it may not hold is a document
the compiler cannot read as a graph at all (`compiler.diagnostics.structural_errors`)
or one beyond the size limits. Both are refused with the diagnostics, before
anything is stored.

Problems that would only stop a run (a missing parameter, an expression that does not
compile, an operator kind the runtime lacks: `runtime.runnability`) are shown
beside the compiler's diagnostics, marked `"stage": "run"`, and after them the warnings
about state a savepoint would not restore (a stateful operator without a uid or uidHash:
`compiler.state.kinds`), marked `"stage": "state"`. Neither ever makes a document invalid,
so it can still be compiled, stored and saved as a version.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from django.conf import settings

from compiler.diagnostics import Diagnostic, Location, structural_errors
from compiler.document import FORMAT
from compiler.flinkjson import streamgraph_from_execution_plan
from compiler.pipeline import Compilation, compile_document
from compiler.state.kinds import unpinned_state_warnings
from config.errors import DocumentRejected, DocumentTooLarge, MalformedJson
from config.json_input import read_json
from runtime.runnability import runnability

FLINK_PLAN = "flink-plan"
STREAMGRAPH = "streamgraph"
RUN_STAGE = "run"
"""The `stage` of a diagnostic that would stop a run; the compiler's have no `stage`."""
STATE_STAGE = "state"
"""The `stage` of a warning about state a savepoint would not restore."""


def document_empty(*, name: str) -> dict[str, Any]:
    """A valid `streamgraph/v1` document without operators, with Flink's defaults."""
    return {
        "format": FORMAT,
        "name": name,
        "config": {
            "chainingEnabled": True,
            "defaultParallelism": 1,
            "maxParallelism": -1,
            "runtimeMode": "STREAMING",
            "chainOperatorsWithDifferentMaxParallelism": True,
        },
        "nodes": [],
        "edges": [],
    }


def document_bytes(document: object) -> int:
    """The size of a document as the API sends and stores it: compact UTF-8 JSON."""
    encoded = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    return len(encoded.encode("utf-8"))


def document_check_size(*, document: object, size: int | None = None) -> None:
    """Refuse a document with more nodes, edges or bytes than the limits allow.

    `size` is its `document_bytes` when the caller knows it (computed otherwise). The byte
    limit keeps every stored document small enough to be sent back in one request.
    """
    if not isinstance(document, dict):
        return
    limits = (
        ("nodes", settings.PIPELINE_MAX_NODES),
        ("edges", settings.PIPELINE_MAX_EDGES),
    )
    for key, limit in limits:
        items = document.get(key)
        if isinstance(items, list) and len(items) > limit:
            message = f"The document has {len(items)} {key}; at most {limit} are allowed."
            raise DocumentTooLarge(
                message,
                diagnostics=[Diagnostic("document.too-large", message, Location(field=key))],
            )
    size = document_bytes(document) if size is None else size
    limit = settings.PIPELINE_MAX_DOCUMENT_BYTES
    if size > limit:
        message = (
            f"The document is {size:,} bytes as JSON; at most {limit:,} bytes "
            f"({limit / 1024 / 1024:.1f} MB) are allowed."
        )
        raise DocumentTooLarge(
            message, diagnostics=[Diagnostic("document.too-large", message, Location())]
        )


def document_validate(*, document: object) -> Compilation:
    """Compile a document that is about to be stored; refuse it if it is unreadable."""
    document_check_size(document=document)
    compilation = compile_document(document)
    blocking = structural_errors(compilation.diagnostics)
    if blocking:
        raise DocumentRejected(blocking)
    return compilation


def document_run_diagnostics(*, document: object) -> list[dict[str, Any]]:
    """What would stop a run of the document, as JSON diagnostics with `"stage": "run"`."""
    return [{**d.to_json(), "stage": RUN_STAGE} for d in runnability(document)]


def document_state_diagnostics(*, document: object) -> list[dict[str, Any]]:
    """The warnings about stateful operators without a uid or uidHash, as JSON diagnostics
    with `"stage": "state"`."""
    return [{**d.to_json(), "stage": STATE_STAGE} for d in unpinned_state_warnings(document)]


def document_extra_diagnostics(*, document: object) -> list[dict[str, Any]]:
    """What comes after the compiler's diagnostics: the run problems (in the document's
    order: nodes, then edges), then the state warnings (in node order)."""
    return document_run_diagnostics(document=document) + document_state_diagnostics(
        document=document
    )


def with_document_diagnostics(
    diagnostics: list[dict[str, Any]], *, document: object
) -> list[dict[str, Any]]:
    """The compiler's `diagnostics` (any earlier run problems and state warnings among
    them left out), then the document's run problems and state warnings."""
    compiled = [d for d in diagnostics if d.get("stage") not in (RUN_STAGE, STATE_STAGE)]
    return compiled + document_extra_diagnostics(document=document)


def _rejected(code: str, message: str, field: str | None = None) -> DocumentRejected:
    return DocumentRejected([Diagnostic(code, message, Location(field=field))], message)


def _is_flink_plan(content: dict[str, Any]) -> bool:
    nodes = content.get("nodes")
    return (
        "format" not in content
        and isinstance(nodes, list)
        and all(isinstance(node, dict) and "pact" in node for node in nodes)
    )


_IMPORT_SUFFIXES = (".streamgraph.json", ".plan.json", ".json")


def import_name_from_file(file_name: str | None) -> str | None:
    """A pipeline name from the name of an imported file: its base name without the
    extensions exports write (`word-count.plan.json` -> `word-count`); None for none."""
    if file_name is None:
        return None
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    for suffix in _IMPORT_SUFFIXES:
        if base.lower().endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
            break
    return base.strip() or None


def _plan_job_name(plan: dict[str, Any]) -> str | None:
    """The job name a Flink plan carries, when it carries one (the REST job plan and
    `flink info` put `name` beside `nodes`; `getExecutionPlan()` has none)."""
    name = plan.get("name")
    return name.strip() or None if isinstance(name, str) else None


def document_from_import(
    *, content: object, name: str | None = None, fallback_name: str | None = None
) -> tuple[dict[str, Any], str]:
    """The `streamgraph/v1` document in imported content, and which format it was.

    `content` is a `streamgraph/v1` document or the text of Flink's
    `env.getExecutionPlan()`, either as a JSON value or as a string holding one.
    A Flink plan becomes a document with Flink's defaults for all the plan does not
    say, named `name`, else the plan's job name, else `fallback_name` (the file's),
    else "imported".
    """
    parsed = content
    if isinstance(content, str):
        try:
            parsed = read_json(content, what="The content")
        except MalformedJson as error:
            raise _rejected("import.not-json", error.message) from error
    if isinstance(parsed, dict) and parsed.get("format") == FORMAT:
        return copy.deepcopy(parsed), STREAMGRAPH
    if isinstance(parsed, dict) and _is_flink_plan(parsed):
        text = content if isinstance(content, str) else json.dumps(parsed)
        job_name = name or _plan_job_name(parsed) or fallback_name or "imported"
        try:
            return streamgraph_from_execution_plan(text, name=job_name), FLINK_PLAN
        except ValueError as error:
            raise _rejected("import.flink-plan", f"Not a Flink execution plan: {error}.") from error
    raise _rejected(
        "import.format",
        f'The content is neither a {FORMAT} document (an object with "format": "{FORMAT}") '
        'nor a Flink execution plan (an object with a "nodes" list whose entries have "pact").',
        field="format",
    )
