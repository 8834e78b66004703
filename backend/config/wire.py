"""The shapes that cross to the browser, from their one source: the pydantic models.

`wire_schema()` is one JSON Schema whose `$defs` hold every message of both websockets
(`pipelines.events`, `reviews.events`, `runs.events`), the run bodies the REST API shares
with them and the bodies of team review (`reviews.events`, `activity.events`), with the
state names they use. `manage.py wire_schema` writes it to `WIRE_SCHEMA`, and
`npm run wire` turns that into TypeScript (`frontend/scripts/wire.mjs`, with
json-schema-to-typescript). Both files are committed, so a change shows in review, and
`make test` fails when either is stale (`make wire` writes both).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from activity import events as activity_events
from pipelines import events as pipeline_events
from reviews import events as review_events
from runs import events as run_events
from savepoints import events as savepoint_events

WIRE_SCHEMA = Path(__file__).resolve().parents[2] / "frontend/src/api/generated/wire.schema.json"

_ROOTS: Mapping[str, Any] = {
    # The co-editing socket, `ws/pipelines/<id>/`.
    "PipelineClientMessage": pipeline_events.Inbound,
    "PipelineServerMessage": Annotated[pipeline_events.Outbound, Field(discriminator="type")],
    # Team review's messages on the same socket.
    "ReviewServerMessage": Annotated[review_events.Outbound, Field(discriminator="type")],
    # The run monitor socket, `ws/runs/<id>/`.
    "RunClientMessage": run_events.Inbound,
    "RunServerMessage": Annotated[run_events.Outbound, Field(discriminator="type")],
    # `GET /api/pipelines/<id>/runs/` and `GET /api/runs/<id>/`.
    "RunSummary": run_events.RunSummary,
    "RunDetail": run_events.RunDetail,
    # `GET /api/pipelines/<id>/rescale/`.
    "RescaleSimulation": pipeline_events.RescaleSimulation,
    # `GET /api/pipelines/<id>/diff/`: its `savepoint`.
    "StateVerdict": pipeline_events.StateVerdict,
    # Team review over REST: comments, reviews, policies, the inbox, the activity feed.
    "CommentThreadPage": review_events.CommentThreadPage,
    "CommentThread": review_events.CommentThread,
    "CommentEntry": review_events.CommentEntry,
    "CommentSummary": review_events.CommentSummary,
    "VersionReview": review_events.VersionReview,
    "ReviewStates": review_events.ReviewStates,
    "ReviewPolicy": review_events.ReviewPolicy,
    "Inbox": review_events.Inbox,
    "InboxClientMessage": review_events.InboxInbound,
    "InboxChanged": review_events.InboxChanged,
    "WaitingReviewPage": review_events.WaitingReviewPage,
    "MentionPage": review_events.MentionPage,
    "ActivityPage": activity_events.ActivityPage,
    # A pipeline's savepoints and the restore check of a version against one.
    "SavepointSummary": savepoint_events.SavepointSummary,
    "SavepointDetail": savepoint_events.SavepointDetail,
    "RestoreCheck": savepoint_events.RestoreCheck,
}
"""What the browser reads or sends, by the name its type has there."""


def wire_schema() -> dict[str, Any]:
    """Any root of `_ROOTS`, with them and what they use as `$defs`."""
    adapters = [(name, "serialization", TypeAdapter(root)) for name, root in _ROOTS.items()]
    roots, defs = TypeAdapter.json_schemas(adapters, ref_template="#/$defs/{model}")  # type: ignore[arg-type]
    definitions = dict(defs.get("$defs", {}))
    for (name, _mode), schema in roots.items():
        if "$ref" in schema and len(schema) == 1:
            continue  # a model: its definition is already there, under its own name
        definitions[name] = {**schema, "title": name}
    cleaned = {name: _without_titles(definitions[name], keep=True) for name in sorted(definitions)}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "WireShape",
        "description": "Whatever the browser reads or sends.",
        "anyOf": [{"$ref": f"#/$defs/{name}"} for name in _ROOTS],
        "$defs": cleaned,
    }


def _without_titles(schema: Any, *, keep: bool = False) -> Any:
    """`schema` without pydantic's per-field titles ("Maxparallelism"), which would become
    type names of their own; a definition keeps its title (its type's name)."""
    if isinstance(schema, dict):
        return {
            key: _without_titles(value)
            for key, value in schema.items()
            if keep or key != "title" or not isinstance(value, str)
        }
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    return schema


def wire_schema_text() -> str:
    return json.dumps(wire_schema(), indent=2, ensure_ascii=False) + "\n"
