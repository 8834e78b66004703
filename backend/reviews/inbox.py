"""The signed-in user's inbox, live: every change to what waits for a user (a review asked
of them, answered by them or made stale by a newer version; a mention of them made, edited
away, deleted or read) nudges their inbox sockets (`reviews.consumers.InboxConsumer`), which
tell the browser to read the inbox again. Only the nudge travels: what the inbox holds is
always read from the database (`reviews.selectors.inbox`), so a lost nudge costs a refresh,
never a wrong count.

The services that make those changes call `tell_inboxes` in their transaction; a version
saved (in `pipelines`, below this app) is caught with a model signal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import Membership
from config.namespacing import redis_namespace
from pipelines.models import PipelineVersion
from reviews.models import ReviewAssignment

INBOX_CHANGED = "inbox.changed"


def inbox_group(user_id: int) -> str:
    return f"{redis_namespace()}.inbox.{user_id}"


def tell_inboxes(user_ids: Iterable[int | None]) -> None:
    """After the transaction commits, nudge the inbox sockets of these users."""
    layer = get_channel_layer()
    users = sorted({user_id for user_id in user_ids if user_id is not None})
    if layer is None or not users:
        return

    def send() -> None:
        for user_id in users:
            async_to_sync(layer.group_send)(inbox_group(user_id), {"type": INBOX_CHANGED})

    # robust: a nudge lost while Redis is away must not fail the change that made it.
    transaction.on_commit(send, robust=True)


@receiver(post_save, sender=PipelineVersion, dispatch_uid="reviews.inbox.version_saved")
def _version_saved(sender: object, instance: PipelineVersion, created: bool, **_: Any) -> None:
    """A newer version closes the reviews asked of older ones."""
    if created:
        asked = ReviewAssignment.objects.filter(
            request__version__pipeline_id=instance.pipeline_id,
            request__version__number__lt=instance.number,
        )
        tell_inboxes(asked.values_list("reviewer_id", flat=True).distinct())


def inbox_scope(*, user_id: int) -> frozenset[tuple[int, str]]:
    """The user's workspaces with their roles: what their inbox reads from (any change to
    them changes the inbox, and nobody without a workspace has another's)."""
    rows = Membership.objects.filter(user_id=user_id).values_list("workspace_id", "role")
    return frozenset(rows)
