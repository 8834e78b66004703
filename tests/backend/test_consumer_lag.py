"""When a pipeline socket decides its client missed a broadcast (`consumers.Lag`)."""

from __future__ import annotations

from pipelines.consumers import SYNC_SECONDS, Lag


def test_a_client_one_behind_a_stream_of_edits_missed_nothing() -> None:
    lag = Lag()
    # Each check finds the newest edit committed but not yet delivered.
    for check in range(20):
        stored = 10 + 5 * check
        assert not lag.lost(stored=stored, delivered=stored - 1, now=check * SYNC_SECONDS)


def test_a_revision_that_never_arrives_was_lost() -> None:
    lag = Lag()
    assert not lag.lost(stored=7, delivered=5, now=0.0)
    assert not lag.lost(stored=9, delivered=6, now=0.5 * SYNC_SECONDS)
    assert lag.lost(stored=9, delivered=6, now=SYNC_SECONDS)
    # Told once: the snapshot it got brings it to the stored revision.
    assert not lag.lost(stored=9, delivered=9, now=2 * SYNC_SECONDS)


def test_catching_up_starts_the_watch_again() -> None:
    lag = Lag()
    assert not lag.lost(stored=3, delivered=2, now=0.0)
    assert not lag.lost(stored=4, delivered=3, now=SYNC_SECONDS)  # 3 arrived: a new gap
    assert not lag.lost(stored=4, delivered=3, now=1.5 * SYNC_SECONDS)
    assert lag.lost(stored=4, delivered=3, now=2 * SYNC_SECONDS)
