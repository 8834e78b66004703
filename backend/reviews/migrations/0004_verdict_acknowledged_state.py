"""An approval keeps what it acknowledged by name and size, as the check said then.

Approvals given before kept only the ids: they keep those, with the id as the name."""

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def _name_past_acknowledgements(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    verdicts = apps.get_model("reviews", "ReviewVerdict")
    for verdict in verdicts.objects.all():
        if not verdict.acknowledged:
            continue
        named = [
            {"operatorId": operator_id, "name": operator_id, "stateBytes": None}
            for operator_id in verdict.acknowledged
        ]
        verdicts.objects.filter(pk=verdict.pk).update(acknowledged_state=named)


class Migration(migrations.Migration):
    dependencies = [("reviews", "0003_verdict_weight_and_revocation")]

    operations = [
        migrations.AddField(
            model_name="reviewverdict",
            name="acknowledged_state",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunPython(_name_past_acknowledgements, migrations.RunPython.noop),
    ]
