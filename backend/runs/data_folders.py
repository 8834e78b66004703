"""Each workspace's own data folder: where its runs' file sources read and file sinks write.

`RUNTIME_DATA_DIR/workspaces/<workspace id>/`. Paths in documents are relative to it, and
the runtime refuses any that leaves it once resolved, symbolic links included
(`runtime.operators.sources.resolve`), so a run of one workspace never reads or overwrites
another workspace's files. The folder is made when a run first needs it and removed with
its workspace.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from accounts.models import Workspace


def workspaces_root() -> Path:
    return Path(settings.RUNTIME_DATA_DIR) / "workspaces"


def workspace_data_dir(*, workspace_id: int, create: bool = True) -> Path:
    """The workspace's data folder (made, only readable by this server's user, if missing)."""
    folder = workspaces_root() / str(workspace_id)
    if create and not folder.is_dir():
        folder.mkdir(mode=0o750, parents=True, exist_ok=True)
    return folder


@receiver(post_delete, sender=Workspace, dispatch_uid="runs.data_folders.workspace_deleted")
def _workspace_deleted(sender: object, instance: Workspace, **_: Any) -> None:
    folder = workspace_data_dir(workspace_id=instance.pk, create=False)
    # Only once the deletion is committed: a rolled-back one keeps its files.
    transaction.on_commit(lambda: shutil.rmtree(folder, ignore_errors=True))
