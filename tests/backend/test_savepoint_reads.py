"""A stored savepoint is read once per process while it is among the last few read."""

from __future__ import annotations

import pytest

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


def test_the_reads_kept_are_bounded_and_the_oldest_goes_first() -> None:
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
