"""Threads read at a version of their pipeline (or its working copy): current or outdated.

A thread follows its element (`compiler.anchors`) into every version while the element
keeps the ids it had. The causes of an outdated thread are explained from the document the
thread was written on when it is at hand: its version's, or, for a thread written on the
working copy, the working copy itself while it is still at that revision, or a version saved
from that revision. Otherwise the ids alone say what changed.

`Plans` compiles each document a request needs once, however many threads read it, and only
when a thread needs it.
"""

from __future__ import annotations

from typing import Any

from compiler.anchors import ANCHOR_KINDS, Anchor, AnchorKind, Side, anchor_changes
from compiler.pipeline import compile_document
from pipelines.models import Pipeline, PipelineVersion
from pipelines.selectors import WORKING, VersionRef, version_get
from reviews.models import CommentThread

_KINDS: dict[str, AnchorKind] = {kind: kind for kind in ANCHOR_KINDS}


class Plans:
    """The versions of one pipeline a request reads, each compiled at most once."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self._sides: dict[VersionRef, Side] = {}
        self._versions: dict[int, PipelineVersion] = {}
        self._by_revision: dict[int, int] | None = None

    def version(self, number: int) -> PipelineVersion:
        """The pipeline's version `number`; `NotFound` if it has none."""
        if number not in self._versions:
            self._versions[number] = version_get(pipeline=self.pipeline, number=number)
        return self._versions[number]

    def side(self, ref: VersionRef) -> Side:
        if ref not in self._sides:
            if ref == WORKING:
                document: dict[str, Any] = self.pipeline.document
                name = "the working copy"
            else:
                document = self.version(int(ref)).document
                name = f"version {ref}"
            self._sides[ref] = Side(document, compile_document(document), name)
        return self._sides[ref]

    def revision(self, ref: VersionRef) -> int:
        """The working copy's revision `ref` holds."""
        return self.pipeline.revision if ref == WORKING else self.version(int(ref)).revision

    def saved_from(self, revision: int) -> int | None:
        """A version saved from this revision of the working copy (the latest), if any."""
        if self._by_revision is None:
            self._by_revision = dict(
                PipelineVersion.objects.filter(pipeline=self.pipeline)
                .order_by("number")
                .values_list("revision", "number")
            )
        return self._by_revision.get(revision)


def thread_anchor(thread: CommentThread) -> Anchor:
    """The anchor a thread stored."""
    kind = _KINDS[thread.kind]
    edge = None
    if kind == "edge":
        assert thread.edge_source is not None and thread.edge_target is not None
        assert thread.edge_type_number is not None and thread.edge_index is not None
        edge = (thread.edge_source, thread.edge_target, thread.edge_type_number, thread.edge_index)
    return Anchor(
        kind=kind,
        node=thread.node,
        edge=edge,
        operator_id=thread.operator_id or None,
        source_operator_id=thread.source_operator_id or None,
        target_operator_id=thread.target_operator_id or None,
        label=thread.label,
    )


def _origin(thread: CommentThread, plans: Plans) -> VersionRef | None:
    """Which document the thread was written on, if it is still at hand."""
    if thread.version is not None:
        return int(thread.version.number)
    if thread.revision == plans.pipeline.revision:
        return WORKING
    return plans.saved_from(thread.revision)


def thread_outdated(thread: CommentThread, plans: Plans, at: VersionRef) -> bool:
    """Whether the thread is outdated at `at` (ids only: no document of its own compiled)."""
    later = plans.revision(at) >= thread.revision
    return bool(
        anchor_changes(thread_anchor(thread), origin=None, target=plans.side(at), later=later)
    )


def thread_causes(thread: CommentThread, plans: Plans, at: VersionRef) -> list[str]:
    """Why the thread is outdated at `at`, explained from its own document when at hand."""
    anchor, target = thread_anchor(thread), plans.side(at)
    later = plans.revision(at) >= thread.revision
    causes = anchor_changes(anchor, origin=None, target=target, later=later)
    origin = _origin(thread, plans)
    if causes and origin is not None:
        causes = anchor_changes(anchor, origin=plans.side(origin), target=target, later=later)
    return causes
