"""A verdict's weight is fixed when it is given: its author's role then and whether it
counts are stored with it; an owner may revoke an approval, with a reason, on the record.

Verdicts given before this stored nothing of the kind: they take the weight they had when
this migration ran (their author's role in the workspace then, viewer when no longer a
member, and the policy then), which is what every screen showed of them at that moment.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

_RANKS = {"viewer": 0, "editor": 1, "owner": 2}


def _weigh_past_verdicts(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    verdicts = apps.get_model("reviews", "ReviewVerdict")
    memberships = apps.get_model("accounts", "Membership")
    policies = apps.get_model("reviews", "ReviewPolicy")
    roles = {(m.workspace_id, m.user_id): m.role for m in memberships.objects.all()}
    self_approval = {p.workspace_id: p.allow_self_approval for p in policies.objects.all()}
    for verdict in verdicts.objects.select_related("request__version__pipeline"):
        version = verdict.request.version
        workspace = version.pipeline.workspace_id
        role = roles.get((workspace, verdict.reviewer_id), "viewer")
        counts = _RANKS[role] >= _RANKS["editor"] and (
            verdict.verdict == "request_changes"
            or (
                verdict.verdict == "approve"
                and (
                    self_approval.get(workspace, False) or verdict.reviewer_id != version.author_id
                )
            )
        )
        verdicts.objects.filter(pk=verdict.pk).update(role=role, counts=counts)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("reviews", "0002_verdict_savepoint"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="reviewverdict",
            name="role",
            field=models.CharField(
                choices=[("viewer", "Viewer"), ("editor", "Editor"), ("owner", "Owner")],
                default="viewer",
                max_length=16,
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="reviewverdict",
            name="counts",
            field=models.BooleanField(default=False),
            preserve_default=False,
        ),
        migrations.RunPython(_weigh_past_verdicts, migrations.RunPython.noop),
        migrations.CreateModel(
            name="ApprovalRevocation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("reason", models.TextField()),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "revoked_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "verdict",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="revocation",
                        to="reviews.reviewverdict",
                    ),
                ),
            ],
            options={"ordering": ("id",)},
        ),
    ]
