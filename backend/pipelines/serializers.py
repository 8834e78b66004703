"""Request and response bodies of the pipelines API (camelCase, like the documents)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.models import Role
from accounts.serializers import UserRefSerializer
from compiler.model import UPPER_BOUND_MAX_PARALLELISM
from compiler.rescale import MAX_VERTICES_SHOWN, VERTICES_SHOWN
from config.converters import MAX_ID
from config.fields import (
    DocumentField,
    PlanContentField,
    QuerySerializer,
    RequestSerializer,
    TextField,
)
from config.openapi import DiagnosticSerializer
from pipelines.documents import FLINK_PLAN, STREAMGRAPH
from pipelines.selectors import EXPORT_FORMATS, WORKING

DOCUMENT_HELP = "A streamgraph/v1 document."


class PipelineSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    workspace = serializers.IntegerField(source="workspace_id")
    name = serializers.CharField()
    revision = serializers.IntegerField(help_text="Goes up by one with every document change.")
    createdBy = UserRefSerializer(source="created_by", allow_null=True)
    createdAt = serializers.DateTimeField(source="created_at")
    updatedAt = serializers.DateTimeField(source="updated_at")


class PipelineEditorSerializer(PipelineSerializer):
    role = serializers.ChoiceField(choices=Role.choices, help_text="Your role in its workspace.")


class PipelineDetailSerializer(PipelineSerializer):
    document = DocumentField(help_text="The working copy: " + DOCUMENT_HELP)


class PipelineImportedSerializer(PipelineDetailSerializer):
    importedFrom = serializers.ChoiceField(
        choices=[STREAMGRAPH, FLINK_PLAN], help_text="The format the content was in."
    )


class PipelineListQuerySerializer(QuerySerializer):
    workspace = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False)


class PipelineCreateSerializer(RequestSerializer):
    workspace = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    name = TextField(max_length=200)
    document = DocumentField(required=False, help_text=DOCUMENT_HELP + " Defaults to an empty one.")


class PipelineUpdateSerializer(RequestSerializer):
    name = TextField(max_length=200, required=False)
    document = DocumentField(required=False, help_text=DOCUMENT_HELP)
    revision = serializers.IntegerField(
        min_value=0,
        max_value=MAX_ID,
        required=False,
        help_text="The revision your change is based on; if the pipeline has moved on, "
        "the change is refused with 409 `stale-revision`.",
    )


class PipelineImportSerializer(RequestSerializer):
    workspace = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    name = TextField(
        max_length=200,
        required=False,
        help_text="Defaults to the content's own name (a document's `name`, a plan's job "
        "`name`), else to `fileName` without its extensions.",
    )
    fileName = TextField(
        max_length=255,
        required=False,
        help_text="The name of the file the content was read from, e.g. "
        "`word-count.plan.json`: names the pipeline when the content does not.",
    )
    content = PlanContentField(
        help_text="A streamgraph/v1 document, or Flink's `getExecutionPlan()` JSON "
        "(as an object or as its text)."
    )


class VersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    message = serializers.CharField()
    revision = serializers.IntegerField(help_text="The working copy's revision that was saved.")
    author = UserRefSerializer(allow_null=True)
    createdAt = serializers.DateTimeField(source="created_at")


class VersionDetailSerializer(VersionSerializer):
    document = DocumentField(help_text=DOCUMENT_HELP)


class VersionCreateSerializer(RequestSerializer):
    message = TextField(max_length=2000, required=False, allow_blank=True, default="")


class VersionQuerySerializer(QuerySerializer):
    version = serializers.IntegerField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        help_text="A version number; the working copy if omitted.",
    )


class RescaleQuerySerializer(VersionQuerySerializer):
    vertex = serializers.RegexField(
        r"^[0-9a-fA-F]{32}$",
        required=False,
        error_messages={"invalid": "Expected a JobVertexID: 32 hexadecimal digits."},
        help_text="The JobVertexID to rescale; the whole job (its default parallelism) if omitted.",
    )
    parallelism = serializers.IntegerField(
        min_value=1,
        max_value=UPPER_BOUND_MAX_PARALLELISM,
        help_text="The new parallelism: of the vertex, or the job's default.",
    )

    offset = serializers.IntegerField(
        min_value=0,
        max_value=MAX_ID,
        default=0,
        help_text="The first vertex described, by its place in topological order.",
    )
    limit = serializers.IntegerField(
        min_value=1,
        max_value=MAX_VERTICES_SHOWN,
        default=VERTICES_SHOWN,
        help_text="How many vertices are described from `offset` on.",
    )

    def validate_vertex(self, value: str) -> str:
        return value.lower()


class ExportQuerySerializer(VersionQuerySerializer):
    format = serializers.ChoiceField(choices=list(EXPORT_FORMATS), default=STREAMGRAPH)


VERSION_REF_PATTERN = "^([1-9][0-9]{0,17}|working)$"
"""A version number or `working`, as the schema says it (`VersionRefField`)."""


class VersionRefField(serializers.Field):
    """A version number or `working`."""

    def to_internal_value(self, data: Any) -> int | str:
        text = str(data).strip()
        if text == WORKING:
            return WORKING
        if text.isdigit() and 1 <= int(text) <= MAX_ID:
            return int(text)
        raise serializers.ValidationError("Expected a version number or 'working'.")

    def to_representation(self, value: Any) -> Any:
        return value


class DiffQuerySerializer(QuerySerializer):
    """`from` and `to` are Python keywords, hence the field names set below."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {
            "from": VersionRefField(required=False),
            "to": VersionRefField(required=False),
        }


class ExecutionVertexSummarySerializer(serializers.Serializer):
    id = serializers.CharField(help_text="JobVertexID.")
    name = serializers.CharField()
    parallelism = serializers.IntegerField()
    maxParallelism = serializers.IntegerField()
    keyGroupRanges = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Per subtask, its key groups as [first, last].",
    )


class PartitionGroupSerializer(serializers.Serializer):
    partitions = serializers.ListField(child=serializers.IntegerField())
    consumers = serializers.ListField(child=serializers.IntegerField())


class ExecutionEdgeSummarySerializer(serializers.Serializer):
    producer = serializers.CharField()
    consumer = serializers.CharField()
    pattern = serializers.ChoiceField(choices=["ALL_TO_ALL", "POINTWISE"])
    groups = PartitionGroupSerializer(many=True)


class ExecutionSummarySerializer(serializers.Serializer):
    totalSubtasks = serializers.IntegerField()
    slotsRequired = serializers.IntegerField(allow_null=True)
    vertices = ExecutionVertexSummarySerializer(many=True)
    edges = ExecutionEdgeSummarySerializer(many=True)


class PlanDiagnosticSerializer(DiagnosticSerializer):
    stage = serializers.ChoiceField(
        choices=["run", "state"],
        required=False,
        help_text="`run`: would stop a run (operator kind, parameters, keys, inputs; codes "
        "`run.*` and `param.*`); `state`: a warning about state a savepoint would not "
        "restore (code `state.no-uid`: a stateful operator without a uid or uidHash). "
        "Neither makes the document invalid. Absent for the compiler's diagnostics.",
    )


class ImportChecklistItemSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="`import.operator` (choose the kind), or a run problem's code."
    )
    message = serializers.CharField()
    field = serializers.CharField(allow_null=True)
    edge = serializers.IntegerField(allow_null=True, help_text="An input edge's index.")


class ImportChecklistNodeSerializer(serializers.Serializer):
    node = serializers.IntegerField()
    name = serializers.CharField()
    operator = serializers.CharField(help_text="The node's operator kind now.")
    suggestedOperator = serializers.CharField(
        allow_null=True, help_text="The catalog kind its Flink name and pact suggest."
    )
    items = ImportChecklistItemSerializer(many=True)


class ImportChecklistSerializer(serializers.Serializer):
    importedFrom = serializers.CharField()
    remaining = serializers.IntegerField(help_text="How many items are left, over all nodes.")
    nodes = ImportChecklistNodeSerializer(many=True)


class PlanSerializer(serializers.Serializer):
    ok = serializers.BooleanField(
        help_text="Whether the document compiled without errors (run problems aside)."
    )
    diagnostics = PlanDiagnosticSerializer(many=True)
    jobGraph = serializers.JSONField(allow_null=True, help_text="The jobgraph/v1 document.")
    execution = ExecutionSummarySerializer(allow_null=True)
    explain = serializers.JSONField(allow_null=True, help_text="The explain/v1 document.")
    importChecklist = ImportChecklistSerializer(
        allow_null=True,
        help_text="For a pipeline imported from Flink's plan JSON: per node the catalog "
        "kind its Flink name suggests and what is left to fill in before it runs.",
    )


class DiffSerializer(serializers.Serializer):
    format = serializers.CharField(help_text="plandiff/v1")
    streamGraph = serializers.JSONField(help_text="Nodes and edges added, removed and changed.")
    jobGraph = serializers.JSONField(
        allow_null=True, help_text="Chains added, removed, split, merged, renamed."
    )
    executionGraph = serializers.JSONField(
        allow_null=True, help_text="Subtask counts and key groups that move."
    )
    savepoint = serializers.JSONField(
        allow_null=True,
        help_text="Whether a savepoint of the older version restores into the newer one, "
        "and per stateful operator whether its state is kept, lost, refused or new, and why "
        "(`StateVerdict` of the wire schema); null unless both compile.",
    )
    diagnostics = serializers.JSONField(help_text="Diagnostics of the old and the new document.")
