"""Request and response bodies of the runs API (camelCase). The responses are built by
`runs.selectors` (the same dicts the websocket sends); these classes describe them."""

from __future__ import annotations

from types import MappingProxyType

from rest_framework import serializers

from accounts.serializers import UserRefSerializer
from config.converters import MAX_ID
from config.fields import QuerySerializer, RequestSerializer, TextField
from runs.models import RunStatus

STATES = [
    "CREATED",
    "SCHEDULED",
    "DEPLOYING",
    "INITIALIZING",
    "RUNNING",
    "FINISHED",
    "CANCELING",
    "CANCELED",
    "FAILED",
]
_TIME = "Seconds since the epoch; null until known."


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


class AttemptSerializer(serializers.Serializer):
    attempt = serializers.IntegerField(help_text="0-based; a Spark task retry is a new attempt.")
    state = serializers.ChoiceField(choices=STATES, help_text="Flink's ExecutionState.")
    recordsIn = serializers.IntegerField()
    recordsOut = serializers.IntegerField()
    startTime = serializers.FloatField(allow_null=True, help_text=_TIME)
    endTime = serializers.FloatField(allow_null=True, help_text=_TIME)
    error = serializers.CharField(allow_null=True, help_text="Why the attempt failed.")
    failedNode = serializers.IntegerField(
        allow_null=True, help_text="The StreamNode id of the operator the error is about."
    )


class SubtaskSerializer(AttemptSerializer):
    vertex = serializers.CharField(help_text="JobVertexID.")
    subtask = serializers.IntegerField(help_text="0-based subtask index.")
    name = serializers.CharField(help_text="Flink's `Name (i/p)`.")
    keyGroups = serializers.ListField(
        child=serializers.IntegerField(), help_text="Inclusive key-group range [start, end]."
    )
    attempts = AttemptSerializer(many=True, help_text="Every attempt, oldest first.")


class VertexSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="JobVertexID.")
    name = serializers.CharField()
    parallelism = serializers.IntegerField()
    maxParallelism = serializers.IntegerField()
    status = serializers.ChoiceField(choices=STATES, help_text="Flink's aggregate vertex status.")
    statusCounts = serializers.DictField(child=serializers.IntegerField())
    recordsIn = serializers.IntegerField()
    recordsOut = serializers.IntegerField()
    startTime = serializers.FloatField(allow_null=True, help_text=_TIME)
    endTime = serializers.FloatField(allow_null=True, help_text=_TIME)


class SinkOutputSerializer(serializers.Serializer):
    node = serializers.IntegerField(help_text="The sink's node id.")
    vertex = serializers.CharField()
    subtask = serializers.IntegerField()
    records = serializers.IntegerField()
    preview = serializers.ListField(child=serializers.CharField(), help_text="The first records.")
    truncated = serializers.BooleanField(help_text="More records were written than previewed.")
    files = serializers.ListField(child=serializers.CharField(), help_text="Files written.")


class RunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    pipeline = serializers.IntegerField()
    version = serializers.IntegerField(help_text="The version number.")
    status = serializers.ChoiceField(choices=RunStatus.choices)
    cluster = serializers.CharField(help_text="The cluster it runs on (by name).")
    parameters = serializers.DictField()
    startedBy = UserRefSerializer(allow_null=True)
    createdAt = serializers.DateTimeField()
    startedAt = serializers.DateTimeField(allow_null=True)
    finishedAt = serializers.DateTimeField(allow_null=True)
    heartbeatAt = serializers.DateTimeField(allow_null=True)
    worker = serializers.CharField(allow_null=True)
    error = serializers.CharField(allow_null=True)


class RunDetailSerializer(RunSerializer):
    sinks = SinkOutputSerializer(many=True)
    details = serializers.DictField(help_text="Facts from the executor.")
    seq = serializers.IntegerField(help_text="The last journal entry this state includes.")
    vertices = VertexSerializer(many=True)
    subtasks = SubtaskSerializer(many=True)


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
