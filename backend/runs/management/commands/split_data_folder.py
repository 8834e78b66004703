"""`manage.py split_data_folder`: give each workspace its own copy of the files its
pipelines name in the data folder all workspaces shared before each had one of its own.

Paths in documents are now relative to the workspace's folder (`runs.data_folders`), so a
file the old shared folder holds at `in/words.txt` is read at
`workspaces/<id>/in/words.txt`. For every workspace, each source and sink path of its
pipelines' working copies and versions that names something in the old folder is copied
there (a file, or a folder with what it holds but its symbolic links), unless the
workspace already has it.
Copies, not moves: two workspaces may name the same file. Nothing is deleted: remove the
old files once the copies are checked.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from accounts.models import Workspace
from pipelines.models import Pipeline, PipelineVersion
from runs.data_folders import workspace_data_dir, workspaces_root
from runtime.operators.sinks import FILE_SINKS
from runtime.operators.sources import FILE_SOURCES
from runtime.paths import PathError, resolve

_FILE_KINDS = FILE_SOURCES | FILE_SINKS


def document_paths(document: Any) -> Iterator[str]:
    """The source and sink paths a document names."""
    nodes = document.get("nodes") if isinstance(document, dict) else None
    for node in nodes if isinstance(nodes, list) else ():
        if not isinstance(node, dict) or node.get("operator") not in _FILE_KINDS:
            continue
        params = node.get("params")
        path = params.get("path") if isinstance(params, dict) else None
        if isinstance(path, str):
            yield path


def _links(folder: str, names: list[str]) -> list[str]:
    """Symbolic links are not copied: they could lead anywhere from their new place."""
    return [name for name in names if (Path(folder) / name).is_symlink()]


class Command(BaseCommand):
    help = "Copy the files each workspace's pipelines name into the workspace's own folder."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="say what would be copied")

    def handle(self, *args: Any, **options: Any) -> None:
        root = Path(settings.RUNTIME_DATA_DIR).resolve()
        inner = workspaces_root().resolve()
        copied = 0
        for workspace in Workspace.objects.order_by("pk"):
            for path in sorted(self._paths(workspace)):
                try:
                    source = resolve(str(root), path)
                except PathError:
                    continue  # not in the old folder (or not a safe path): nothing to copy
                if source == root or inner in (source, *source.parents):
                    continue
                target = workspace_data_dir(workspace_id=workspace.pk, create=False) / path
                if target.exists():
                    continue
                self.stdout.write(f"workspace {workspace.pk} ({workspace.name}): {path}")
                copied += 1
                if options["dry_run"]:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                if source.is_dir():
                    shutil.copytree(source, target, ignore=_links)
                else:
                    shutil.copy2(source, target)
        verb = "would copy" if options["dry_run"] else "copied"
        self.stdout.write(f"{verb} {copied} path(s)")

    def _paths(self, workspace: Workspace) -> set[str]:
        documents = [
            *(p.document for p in Pipeline.objects.filter(workspace=workspace)),
            *PipelineVersion.objects.filter(pipeline__workspace=workspace).values_list(
                "document", flat=True
            ),
        ]
        return {path for document in documents for path in document_paths(document)}
