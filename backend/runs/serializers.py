"""Request bodies of the runs API, and the responses not shared with the websocket (camelCase).

A run itself is described by the websocket's models (`runs.events.RunSummary`, `RunDetail`):
`runs.selectors` builds the same dicts for both, and the browser's types are generated from
those models."""

from __future__ import annotations

from types import MappingProxyType

from rest_framework import serializers

from config.converters import MAX_ID
from config.fields import QuerySerializer, RequestSerializer, TextField


class RunStartSerializer(RequestSerializer):
    retired_fields = MappingProxyType(
        {
            "sparkMaster": "A run cannot choose a Spark master: that is the server's setting. "
            "Choose one of its clusters by name (cluster)."
        }
    )
    version = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="The version number to run."
    )
    cluster = TextField(
        max_length=40,
        required=False,
        help_text="The name of one of the server's clusters (`GET /api/clusters/`); "
        "`default` if omitted. Only owners may choose another.",
    )
    parameters = serializers.DictField(
        required=False,
        help_text="`params`: {node id: {parameter: value}} overriding the version's operator "
        "parameters for this run; checked like the editor checks them, problems come back "
        "as diagnostics on the node. `faults`: failures to inject (only when the server "
        "allows it, for tests).",
    )


class ClusterSerializer(serializers.Serializer):
    name = serializers.CharField()
    default = serializers.BooleanField(help_text="Runs use it unless an owner chooses another.")
    local = serializers.BooleanField(help_text="Spark runs inside the server's worker.")
    maxParallelism = serializers.IntegerField(help_text="The highest parallelism of a vertex.")
    maxSubtasks = serializers.IntegerField(help_text="The most subtasks of one run.")


class JournalQuerySerializer(QuerySerializer):
    after = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False, default=0)
    limit = serializers.IntegerField(min_value=1, max_value=1000, required=False, default=500)


class JournalEntrySerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    createdAt = serializers.DateTimeField(source="created_at")
    events = serializers.ListField(
        child=serializers.DictField(), help_text="The SubtaskEvents folded in this entry."
    )
    changes = serializers.DictField(help_text="`run`, `vertices`, `subtasks` that changed.")
