"""Reads of a pipeline's savepoints. The caller has the pipeline through
`pipelines.selectors.pipeline_get_for_user`, so the user is a member of its workspace."""

from __future__ import annotations

import threading
from collections import OrderedDict

from django.db.models import QuerySet

from compiler.hashing import to_hex
from compiler.pipeline import Compilation, compile_document
from compiler.rescale import Rescale, RescaleRefused, apply_edits, rescale_edits
from compiler.state.restore import check_restore
from compiler.state.savepoint import READER_VERSION, SavepointError, read_savepoint
from compiler.state.savepoint import Savepoint as SavepointRead
from config.errors import Conflict, InvalidRequest, NotFound
from config.messages import UserRef
from pipelines.models import Pipeline
from pipelines.selectors import WORKING, VersionRef, version_get
from savepoints.events import (
    RestoreCheck,
    SavepointDetail,
    SavepointSummary,
    operators_of,
)
from savepoints.models import Savepoint


def savepoint_list(*, pipeline: Pipeline) -> QuerySet[Savepoint]:
    """The pipeline's savepoints, newest first, without their files."""
    return (
        Savepoint.objects.filter(pipeline=pipeline)
        .select_related("uploaded_by", "written_by")
        .defer("data", "written_by__document")
        .order_by("-uploaded_at", "-id")
    )


def savepoint_get(*, pipeline: Pipeline, savepoint_id: int) -> Savepoint:
    """The savepoint; its file is fetched only if `savepoint_read` has not read it yet."""
    savepoint = (
        Savepoint.objects.filter(pipeline=pipeline, pk=savepoint_id)
        .select_related("uploaded_by", "written_by")
        .defer("data")
        .first()
    )
    if savepoint is None:
        raise NotFound(f"The pipeline has no savepoint {savepoint_id}.")
    return savepoint


def savepoint_current(*, pipeline: Pipeline) -> Savepoint | None:
    """The savepoint marked current (its file fetched only when read); None when there is
    none."""
    return Savepoint.objects.filter(pipeline=pipeline, is_current=True).defer("data").first()


READ_CACHE_SIZE = 64
"""Stored savepoints whose reads a process keeps as objects: the State tab checks again
after every edit, and turning a large kept read back into objects takes milliseconds."""
_reads: OrderedDict[tuple[int, int], SavepointRead] = OrderedDict()
_reads_lock = threading.Lock()


def savepoint_read(*, savepoint: Savepoint) -> SavepointRead:
    """What the stored file holds: the read kept beside it, when this reader made it; else
    the file is read again (a reader that reads differently answers for old uploads too) and
    the read kept. A file this reader refuses although an older one accepted it is a
    `Conflict` that says so, not a server error."""
    key = (savepoint.pk, READER_VERSION)
    with _reads_lock:
        read = _reads.get(key)
        if read is not None:
            _reads.move_to_end(key)
            return read
    kept = Savepoint.objects.filter(pk=savepoint.pk, read_by=READER_VERSION).values_list(
        "read", flat=True
    )
    stored = kept.first()
    read = SavepointRead.from_json(stored) if stored is not None else _read_again(savepoint)
    with _reads_lock:
        _reads[key] = read
        _reads.move_to_end(key)
        while len(_reads) > READ_CACHE_SIZE:
            _reads.popitem(last=False)
    return read


def _read_again(savepoint: Savepoint) -> SavepointRead:
    data = Savepoint.objects.filter(pk=savepoint.pk).values_list("data", flat=True).first()
    try:
        read = read_savepoint(bytes(data or b""))
    except SavepointError as error:
        # Read when it was uploaded, but not by this reader: one that refuses more.
        raise Conflict(
            f"The savepoint “{savepoint.label}” no longer reads ({error}): the "
            "studio accepted it when it was uploaded and reads savepoints more strictly now. "
            "Delete it and upload another savepoint of the job.",
            code="savepoint-unreadable",
        ) from error
    # Kept for the next check (a write in a read: the read is what the file holds, the same
    # whoever asks, and the file never changes).
    Savepoint.objects.filter(pk=savepoint.pk).update(read=read.to_json(), read_by=READER_VERSION)
    return read


def savepoint_summary(savepoint: Savepoint) -> SavepointSummary:
    user = savepoint.uploaded_by
    return SavepointSummary(
        id=savepoint.pk,
        label=savepoint.label,
        size=savepoint.size,
        sha256=savepoint.sha256,
        formatVersion=savepoint.format_version,
        checkpointId=savepoint.checkpoint_id,
        operatorCount=savepoint.operator_count,
        isCurrent=savepoint.is_current,
        uploadedBy=None if user is None else UserRef(id=user.pk, username=user.get_username()),
        writtenBy=None if savepoint.written_by is None else savepoint.written_by.number,
        uploadedAt=savepoint.uploaded_at,
    )


def savepoint_detail(*, savepoint: Savepoint) -> SavepointDetail:
    summary = savepoint_summary(savepoint)
    return SavepointDetail(
        **summary.model_dump(), operators=operators_of(savepoint_read(savepoint=savepoint))
    )


def _compiled(document: object, what: str) -> Compilation:
    compilation = compile_document(document)
    if not compilation.ok or compilation.graph is None:
        first = next(iter(compilation.diagnostics), None)
        detail = "" if first is None else f": {first.location.describe()}: {first.message}"
        raise Conflict(
            f"{what} does not compile, so there is no job to start from the savepoint{detail}.",
            code="plan-not-compiled",
            diagnostics=compilation.diagnostics,
        )
    return compilation


def savepoint_check(
    *,
    pipeline: Pipeline,
    savepoint: Savepoint,
    ref: VersionRef = WORKING,
    allow_non_restored_state: bool = False,
    rescale: Rescale | None = None,
) -> RestoreCheck:
    """What Flink 2.3 does when version `ref` (or the working copy) starts from `savepoint`
    (`compiler.state.restore`), rescaled first if `rescale` is given (`compiler.rescale`, as
    `flink run -p` or a vertex's new parallelism would); `Conflict` when that does not
    compile."""
    if ref == WORKING:
        document, what, revision = pipeline.document, "The working copy", pipeline.revision
    else:
        version = version_get(pipeline=pipeline, number=int(ref))
        document, what, revision = version.document, f"Version {version.number}", None
    plan = _compiled(document, what)
    if rescale is not None:
        try:
            # Only the rescaled document: its key groups per subtask are the Rescale view's.
            rescaled = apply_edits(document, rescale_edits(document, plan, rescale))
        except RescaleRefused as refused:
            raise InvalidRequest(
                f"{refused.parameter}: {refused.message}",
                fields={refused.parameter: [refused.message]},
            ) from refused
        if rescale.vertex is None:
            what = f"{what} at default parallelism {rescale.parallelism}"
        else:
            what = f"{what} with JobVertex {to_hex(rescale.vertex)} at parallelism"
            what += f" {rescale.parallelism}"
        plan = _compiled(rescaled, what)
    written_by = savepoint.written_by
    previous = None
    if written_by is not None:
        compiled = compile_document(written_by.document)
        previous = compiled if compiled.ok and compiled.graph is not None else None
    check = check_restore(
        savepoint_read(savepoint=savepoint).operators,
        plan,
        allow_non_restored_state=allow_non_restored_state,
        previous=previous,
    )
    return RestoreCheck.of(
        check.to_json(),
        savepoint=savepoint_summary(savepoint),
        checked=ref,
        revision=revision,
        comparedWith=None if previous is None or written_by is None else written_by.number,
        rescale=None
        if rescale is None
        else {
            "vertex": None if rescale.vertex is None else to_hex(rescale.vertex),
            "parallelism": rescale.parallelism,
        },
    )
