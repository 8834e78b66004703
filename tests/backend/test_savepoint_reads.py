"""A stored savepoint is read once: what the reader found is kept beside the file, read
again only by a reader that reads differently, and a process keeps the last few reads as
objects."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.state.savepoint import READER_VERSION, read_savepoint
from compiler.state.savepoint import Savepoint as SavepointRead
from config.errors import Conflict
from savepoints import selectors
from savepoints.models import Savepoint
from savepoints.services import savepoint_upload
from tests.backend.factories import make_savepoint, make_team
from tests.compiler.savepoint_writer import MetadataWriter

pytestmark = pytest.mark.django_db

SUM_ID = "c27dcf7b54ef6bfd6cff02ca8870b681"


def _fresh(savepoint: Savepoint) -> Savepoint:
    """The row fetched again, as the next request would."""
    found = selectors.savepoint_get(pipeline=savepoint.pipeline, savepoint_id=savepoint.pk)
    assert found is not savepoint
    return found


def test_the_same_stored_savepoint_reads_to_the_same_object() -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline, current=True)

    first = selectors.savepoint_read(savepoint=_fresh(savepoint))
    current = selectors.savepoint_current(pipeline=team.pipeline)
    assert current is not None

    assert selectors.savepoint_read(savepoint=_fresh(savepoint)) is first
    assert selectors.savepoint_read(savepoint=current) is first
    assert len(first.operators) == savepoint.operator_count


def test_the_reads_kept_are_bounded_and_the_oldest_goes_first(settings: Any) -> None:
    settings.SAVEPOINTS_PER_PIPELINE = selectors.READ_CACHE_SIZE + 1
    team = make_team()
    owner = team.owner
    stored = [
        savepoint_upload(
            pipeline=team.pipeline,
            actor=owner,
            label=f"checkpoint {number}",
            # A distinct file each: another checkpoint ID.
            data=MetadataWriter(checkpoint_id=1000 + number).operator(SUM_ID).build(),
        )
        for number in range(selectors.READ_CACHE_SIZE + 1)
    ]
    reads = [selectors.savepoint_read(savepoint=_fresh(s)) for s in stored]

    assert [r.checkpoint_id for r in reads] == [1000 + n for n in range(len(stored))]
    assert len(selectors._reads) == selectors.READ_CACHE_SIZE
    # The newest are kept; the first, read longest ago, was dropped and reads anew.
    assert selectors.savepoint_read(savepoint=_fresh(stored[-1])) is reads[-1]
    again = selectors.savepoint_read(savepoint=_fresh(stored[0]))
    assert again is not reads[0] and again == reads[0]
    assert len(selectors._reads) == selectors.READ_CACHE_SIZE


def test_what_was_read_is_kept_and_a_check_reads_no_file() -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline)
    stored = Savepoint.objects.get(pk=savepoint.pk)
    assert stored.read_by == READER_VERSION
    assert SavepointRead.from_json(stored.read) == read_savepoint(bytes(stored.data))

    # Even a file gone bad is not read again while what was read is kept.
    Savepoint.objects.filter(pk=savepoint.pk).update(data=b"not a savepoint")
    selectors._reads.clear()
    read = selectors.savepoint_read(savepoint=_fresh(savepoint))
    assert len(read.operators) == savepoint.operator_count


def test_a_read_by_an_older_reader_is_read_again_once_and_kept() -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline)
    Savepoint.objects.filter(pk=savepoint.pk).update(read=None, read_by=READER_VERSION - 1)
    selectors._reads.clear()

    read = selectors.savepoint_read(savepoint=_fresh(savepoint))

    stored = Savepoint.objects.get(pk=savepoint.pk)
    assert stored.read_by == READER_VERSION
    assert SavepointRead.from_json(stored.read) == read


def test_a_file_this_reader_refuses_is_a_409_that_says_so() -> None:
    team = make_team()
    savepoint = make_savepoint(pipeline=team.pipeline)
    data = bytes(Savepoint.objects.get(pk=savepoint.pk).data)
    Savepoint.objects.filter(pk=savepoint.pk).update(data=data[:-1], read=None, read_by=None)
    selectors._reads.clear()

    with pytest.raises(Conflict) as refused:
        selectors.savepoint_read(savepoint=_fresh(savepoint))

    assert refused.value.code == "savepoint-unreadable"
    assert "reads savepoints more strictly now" in refused.value.message
