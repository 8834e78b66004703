"""Each workspace's own data location: where its runs' file sources read and file sinks
write.

`<base>/workspaces/<workspace id>`, below the base URI of the cluster a run executes on
(`dataUri` of its profile), else the server's (`RUNTIME_DATA_URI`, by default the `file:`
folder `RUNTIME_DATA_DIR`): `runtime.storage`. Paths in documents are relative to it, and
the runtime refuses any that leaves it (`runtime.paths`; on `file:` also once resolved,
symbolic links included), so a run of one workspace never reads or overwrites another
workspace's files. A `file:` folder is made when a run first needs it and removed with its
workspace; on other storage the workspace's folder is the operator's to remove.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register
from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from accounts.models import Workspace
from runs.clusters import cluster_list
from runtime.clusters import ClusterConfigError, ClusterProfile
from runtime.storage import DataLocation, LocationError, data_location


def workspaces_root() -> Path:
    return Path(settings.RUNTIME_DATA_DIR) / "workspaces"


def workspace_data_dir(*, workspace_id: int, create: bool = True) -> Path:
    """The workspace's folder in the server's data folder, `RUNTIME_DATA_DIR` (made, only
    readable by this server's user, if missing)."""
    folder = workspaces_root() / str(workspace_id)
    if create and not folder.is_dir():
        folder.mkdir(mode=0o750, parents=True, exist_ok=True)
    return folder


def data_base(profile: ClusterProfile | None = None) -> DataLocation:
    """The base of the data location of runs on `profile`'s cluster (None: the server's)."""
    uri = profile.data_uri if profile is not None else None
    return data_location(
        uri or settings.RUNTIME_DATA_URI or str(Path(settings.RUNTIME_DATA_DIR).resolve())
    )


def workspace_data_location(*, workspace_id: int, profile: ClusterProfile | None = None) -> str:
    """The URI of the workspace's data location for runs on `profile`'s cluster; a `file:`
    folder is made (only readable by this server's user) if missing."""
    location = data_base(profile).child("workspaces", str(workspace_id))
    if location.is_local and not location.local_path.is_dir():
        location.local_path.mkdir(mode=0o750, parents=True, exist_ok=True)
    return location.uri


def without_server_paths(text: str, *, workspace_id: int) -> str:
    """`text` (a run's error, as its executor wrote it) as a user of the workspace may read
    it: a path in the workspace's own data folder as the path they give (relative to it),
    the repository's own files relative to it, and no other absolute path of this server."""
    for folder in sorted(_local_folders(workspace_id), key=lambda p: -len(str(p))):
        for prefix in (folder.as_uri() + "/", str(folder) + "/"):
            text = text.replace(prefix, "")
    for root, shown in ((settings.RUNTIME_DATA_DIR, "<data>"), (settings.REPO_ROOT, "")):
        for prefix in (Path(root).as_uri(), str(root)):
            text = text.replace(prefix + "/", f"{shown}/" if shown else "")
    return text


def _local_folders(workspace_id: int) -> set[Path]:
    """The workspace's folders on every `file:` base: the server's, and its clusters'."""
    try:
        profiles: list[ClusterProfile | None] = [None, *cluster_list().values()]
    except ClusterConfigError:
        profiles = [None]  # the server says so at start; its own folder still goes
    bases = {data_base(profile) for profile in profiles}
    return {
        base.child("workspaces", str(workspace_id)).local_path for base in bases if base.is_local
    }


@receiver(post_delete, sender=Workspace, dispatch_uid="runs.data_folders.workspace_deleted")
def _workspace_deleted(sender: object, instance: Workspace, **_: Any) -> None:
    folders = _local_folders(instance.pk)

    def remove() -> None:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)

    # Only once the deletion is committed: a rolled-back one keeps its files.
    transaction.on_commit(remove)


@register()
def check_data_location(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    if not settings.RUNTIME_DATA_URI:
        return []
    try:
        data_location(settings.RUNTIME_DATA_URI)
    except LocationError as error:
        return [Error(f"RUNTIME_DATA_URI: {error}", id="runs.E002", hint="See docs/RUNTIME.md.")]
    return []
