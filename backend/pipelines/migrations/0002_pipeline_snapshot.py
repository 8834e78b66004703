"""The working copy's column becomes its snapshot, with the revision it is of (null: the
current one, as every stored row is): the data stays where it is."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("pipelines", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RenameField("pipeline", "document", "snapshot"),
                migrations.AlterField(
                    "pipeline", "snapshot", models.JSONField(db_column="document")
                ),
            ],
        ),
        migrations.AddField(
            model_name="pipeline",
            name="snapshot_revision",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
