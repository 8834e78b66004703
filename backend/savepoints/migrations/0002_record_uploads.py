"""Savepoint uploads are read from the audit record now, which outlives a deleted savepoint:
write one for each savepoint stored before it. Whether an upload made it current was not
kept then; the record says whether it is current now."""

from typing import Any

from django.db import migrations


def record_uploads(apps: Any, schema_editor: Any) -> None:
    Savepoint = apps.get_model("savepoints", "Savepoint")
    AuditEvent = apps.get_model("audit", "AuditEvent")
    rows = Savepoint.objects.select_related("pipeline").defer("data").order_by("pk")
    AuditEvent.objects.bulk_create(
        AuditEvent(
            workspace_id=savepoint.pipeline.workspace_id,
            pipeline_id=savepoint.pipeline_id,
            actor_id=savepoint.uploaded_by_id,
            kind="savepoint_uploaded",
            details={
                "savepoint": savepoint.pk,
                "label": savepoint.label,
                "current": savepoint.is_current,
            },
            at=savepoint.uploaded_at,
        )
        for savepoint in rows.iterator()
    )


def forget_uploads(apps: Any, schema_editor: Any) -> None:
    apps.get_model("audit", "AuditEvent").objects.filter(kind="savepoint_uploaded").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0001_initial"),
        ("savepoints", "0001_initial"),
    ]

    operations = [migrations.RunPython(record_uploads, forget_uploads)]
