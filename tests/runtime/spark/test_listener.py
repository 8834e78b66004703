"""The run tracker's bookkeeping, fed the way the listener feeds it (no Spark)."""

from __future__ import annotations

from runtime.events import ExecutionState, StageRun, SubtaskEvent
from runtime.spark.listener import RunTracker

A, B = "a" * 32, "b" * 32
SLOTS = [(A, 0), (A, 1), (B, 0)]
S = ExecutionState


def tracker() -> tuple[RunTracker, list[SubtaskEvent]]:
    published: list[SubtaskEvent] = []
    run = RunTracker("tag", published.append, SLOTS)
    run.add_layout(10, [(A, 0), (A, 1)])
    run.add_layout(20, [(B, 0)])
    return run, published


def seen(events: list[SubtaskEvent]) -> list[tuple[str, int, int, str]]:
    return [(e.vertex[0], e.subtask, e.attempt, e.state.value) for e in events]


def test_stages_map_to_the_subtasks_of_their_anchor():
    run, published = tracker()
    assert run.stage_submitted(3, [8, 9, 10]) is True
    assert run.stage_submitted(4, [11, 12]) is False  # no anchor: not one of the run's stages
    run.task_started(3, 1, 0, 100.0)
    run.task_started(4, 0, 0, 100.0)
    run.task_ended(3, 1, 0, S.FINISHED, None, 101.0)
    assert seen(published) == [
        ("a", 0, 0, "SCHEDULED"),
        ("a", 1, 0, "SCHEDULED"),
        ("a", 1, 0, "DEPLOYING"),
        ("a", 1, 0, "FINISHED"),
    ]
    assert all(e.source == "listener" and e.records_in == 0 for e in published)
    assert published[2].timestamp == 100.0


def test_the_latest_registered_rdd_of_a_stage_wins():
    run, published = tracker()
    run.add_layout(30, [(A, 0), (A, 1), (B, 0)])  # the union of the output vertices
    run.stage_submitted(5, [10, 20, 30])
    run.task_started(5, 2, 0, 1.0)
    assert seen(published)[-1] == ("b", 0, 0, "DEPLOYING")


def test_a_retry_is_a_new_attempt_and_late_events_of_old_ones_are_dropped():
    run, published = tracker()
    run.stage_submitted(3, [10])
    run.task_started(3, 0, 0, 1.0)
    run.task_ended(3, 0, 0, S.FAILED, "ValueError: boom", 2.0)
    run.task_started(3, 0, 1, 3.0)
    run.task_ended(3, 0, 0, S.CANCELED, None, 4.0)  # stale
    run.task_ended(3, 0, 1, S.FINISHED, None, 5.0)
    assert seen(published)[2:] == [
        ("a", 0, 0, "DEPLOYING"),
        ("a", 0, 0, "FAILED"),
        ("a", 0, 1, "DEPLOYING"),
        ("a", 0, 1, "FINISHED"),
    ]
    assert published[3].error == "ValueError: boom"
    assert run.last_failure() == ((A, 0), "ValueError: boom")


def test_a_failed_job_cancels_what_has_not_ended_once():
    run, published = tracker()
    run.stage_submitted(3, [10])
    run.task_started(3, 0, 0, 1.0)
    run.task_started(3, 1, 0, 1.0)
    run.task_ended(3, 1, 0, S.FINISHED, None, 2.0)
    run.cancelling()
    run.job_ended(False, "cancelled")
    run.task_ended(3, 0, 0, S.CANCELED, None, 4.0)  # the kill lands after the job ended
    run.finish(False, None)  # the executor's fallback: the job end was already seen
    tail = seen(published)[5:]
    assert tail == [
        ("a", 0, 0, "CANCELING"),
        ("b", 0, 0, "CANCELING"),
        ("a", 0, 0, "CANCELED"),
        ("b", 0, 0, "CANCELED"),
    ]
    assert [e.source for e in published[5:]] == ["driver", "driver", "listener", "listener"]
    assert run.wait_for_job_end(0) and run.job_succeeded is False


def test_without_a_job_the_executor_ends_every_subtask():
    run, published = tracker()
    run.finish(False, None)
    assert seen(published) == [
        ("a", 0, 0, "CANCELED"),
        ("a", 1, 0, "CANCELED"),
        ("b", 0, 0, "CANCELED"),
    ]
    assert {e.source for e in published} == {"driver"}


def test_every_stage_of_the_job_is_kept_with_its_vertices_parents_and_times():
    run, published = tracker()
    run.add_layout(30, [(A, 0), (A, 1), (B, 0)])  # the union of the output vertices
    run.add_move(40, 6)
    run.stage_submitted(3, [9, 10], submitted=1.0)
    run.stage_submitted(4, [40, 41], parents=[3], submitted=2.0)  # moves edge 6 again
    run.stage_submitted(5, [10, 20, 30], parents=[4, 3], submitted=3.0)
    run.stage_completed(3, 0, failed=False, completed=1.5)
    run.stage_completed(4, 0, failed=True, completed=2.5)
    run.stage_submitted(4, [40], attempt=1, parents=[3], submitted=2.6)
    run.stage_completed(4, 1, failed=False, completed=2.8)
    run.stage_completed(8, 0, failed=False)  # never submitted: not the run's
    assert run.stages() == (
        StageRun(3, 0, (A,), submitted=1.0, completed=1.5),
        StageRun(4, 0, (), edge=6, parents=(3,), submitted=2.0, completed=2.5, failed=True),
        StageRun(4, 1, (), edge=6, parents=(3,), submitted=2.6, completed=2.8),
        StageRun(5, 0, (A, B), parents=(3, 4), submitted=3.0),
    )
    # A stage that runs no vertex publishes nothing.
    assert {e.vertex for e in published} == {A, B}


def test_a_stage_stopped_by_a_cancel_did_not_finish_rather_than_fail():
    # Spark gives the stages it cancels a failure reason; the run page would say "failed"
    # of a stage the user stopped.
    run, _ = tracker()
    run.stage_submitted(3, [10], submitted=1.0)
    run.stage_submitted(4, [20], parents=[3], submitted=1.5)
    run.stage_completed(3, 0, failed=False, completed=1.2)
    run.cancelling()
    run.stage_completed(4, 0, failed=True, completed=2.0)
    assert run.stages() == (
        StageRun(3, 0, (A,), submitted=1.0, completed=1.2),
        StageRun(4, 0, (B,), parents=(3,), submitted=1.5),
    )
