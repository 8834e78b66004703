"""RunMonitor: subtask, vertex and run state folded from events in any order."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.pipeline import compile_document
from runtime.events import ExecutionState, RunOutcome, SubtaskEvent
from runtime.monitoring import (
    NO_CHANGES,
    SYNTHESIZED,
    Changes,
    MonitoredVertex,
    RunMonitor,
    RunStatus,
    monitored_vertices,
)

S = ExecutionState
SOURCE = MonitoredVertex(
    id="a" * 32, name="Source: Orders -> Map", parallelism=2, max_parallelism=128
)
SINK = MonitoredVertex(
    id="b" * 32, name="Reduce -> Sink: Print", parallelism=3, max_parallelism=128
)


def monitor() -> RunMonitor:
    return RunMonitor([SOURCE, SINK])


def event(
    vertex: MonitoredVertex,
    subtask: int,
    state: S,
    *,
    attempt: int = 0,
    at: float = 100.0,
    records_in: int = 0,
    records_out: int = 0,
    error: str | None = None,
    source: str = "hook",
) -> SubtaskEvent:
    return SubtaskEvent(
        vertex=vertex.id,
        subtask=subtask,
        attempt=attempt,
        state=state,
        timestamp=at,
        records_in=records_in,
        records_out=records_out,
        error=error,
        source=source,
    )


def run_through(
    vertex: MonitoredVertex, subtask: int, *, attempt: int = 0, start: float = 100.0
) -> list[SubtaskEvent]:
    """One attempt from SCHEDULED to FINISHED as hook and listener report it."""
    return [
        event(vertex, subtask, S.SCHEDULED, attempt=attempt, at=start, source="listener"),
        event(vertex, subtask, S.DEPLOYING, attempt=attempt, at=start + 1, source="listener"),
        event(vertex, subtask, S.RUNNING, attempt=attempt, at=start + 2, records_in=1),
        event(
            vertex, subtask, S.FINISHED, attempt=attempt, at=start + 3, records_in=5, records_out=4
        ),
        event(vertex, subtask, S.FINISHED, attempt=attempt, at=start + 4, source="listener"),
    ]


def subtask(m: RunMonitor, vertex: MonitoredVertex, index: int) -> dict[str, Any]:
    return m.subtask_json(vertex.id, index)


# Starting state ---------------------------------------------------------------------------


def test_every_subtask_exists_in_created_from_the_start() -> None:
    m = monitor()
    state = m.to_json()
    assert state["status"] == "CREATED"
    assert [v["id"] for v in state["vertices"]] == [SOURCE.id, SINK.id]
    assert [(s["vertex"], s["subtask"]) for s in state["subtasks"]] == [
        (SOURCE.id, 0),
        (SOURCE.id, 1),
        (SINK.id, 0),
        (SINK.id, 1),
        (SINK.id, 2),
    ]
    first = state["subtasks"][2]
    assert first == {
        "vertex": SINK.id,
        "subtask": 0,
        "name": "Reduce -> Sink: Print (1/3)",
        "keyGroups": [0, 42],
        "attempt": 0,
        "state": "CREATED",
        "recordsIn": 0,
        "recordsOut": 0,
        "startTime": None,
        "endTime": None,
        "error": None,
        "failedNode": None,
        "attempts": [
            {
                "attempt": 0,
                "state": "CREATED",
                "recordsIn": 0,
                "recordsOut": 0,
                "startTime": None,
                "endTime": None,
                "error": None,
                "failedNode": None,
            }
        ],
    }
    assert [s["keyGroups"] for s in state["subtasks"][2:]] == [[0, 42], [43, 85], [86, 127]]
    sink = state["vertices"][1]
    assert sink["status"] == "CREATED"
    assert sink["statusCounts"] == {
        "CREATED": 3,
        "SCHEDULED": 0,
        "DEPLOYING": 0,
        "INITIALIZING": 0,
        "RUNNING": 0,
        "FINISHED": 0,
        "CANCELING": 0,
        "CANCELED": 0,
        "FAILED": 0,
    }
    assert (sink["recordsIn"], sink["recordsOut"], sink["startTime"], sink["endTime"]) == (
        0,
        0,
        None,
        None,
    )


def test_built_from_a_compiled_plan() -> None:
    document = {
        "format": "streamgraph/v1",
        "name": "orders",
        "config": {"defaultParallelism": 2},
        "nodes": [
            {"id": 1, "name": "Source: Orders", "operator": "source", "factory": "SOURCE"},
            {"id": 2, "name": "Reduce", "operator": "reduce", "parallelism": 3},
        ],
        "edges": [{"source": 1, "target": 2, "partitioner": "HASH", "key": {"fn": "x"}}],
    }
    compilation = compile_document(document)
    assert compilation.execution is not None
    vertices = monitored_vertices(compilation.execution)
    assert [(v.name, v.parallelism, v.max_parallelism) for v in vertices] == [
        ("Source: Orders", 2, 128),
        ("Reduce", 3, 128),
    ]
    assert all(len(v.id) == 32 for v in vertices)
    m = RunMonitor.for_execution(compilation.execution)
    assert len(m.to_json()["subtasks"]) == 5
    assert MonitoredVertex.from_json(vertices[1].to_json()) == vertices[1]


def test_a_plan_with_a_vertex_twice_or_no_subtasks_is_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        RunMonitor([SOURCE, SOURCE])
    with pytest.raises(ValueError, match="parallelism"):
        RunMonitor([MonitoredVertex(id="c" * 32, name="x", parallelism=0, max_parallelism=1)])


# One attempt -------------------------------------------------------------------------------


def test_an_attempt_moves_through_its_states_and_reports_changes() -> None:
    m = monitor()
    changes = m.apply([event(SOURCE, 0, S.SCHEDULED, source="listener")])
    # The vertex's status counts changed, its status did not.
    assert changes == Changes(
        subtasks=frozenset({(SOURCE.id, 0)}), vertices=frozenset({SOURCE.id}), status=True
    )
    # SCHEDULED and DEPLOYING collapse under CREATED in Flink's vertex status.
    assert m.vertex_json(SOURCE.id)["status"] == "CREATED"
    assert m.status is RunStatus.RUNNING

    changes = m.apply([event(SOURCE, 0, S.RUNNING, at=102, records_in=3, records_out=2)])
    assert changes.subtasks == {(SOURCE.id, 0)} and changes.vertices == {SOURCE.id}
    assert not changes.status
    assert m.vertex_json(SOURCE.id)["status"] == "RUNNING"

    m.apply([event(SOURCE, 0, S.FINISHED, at=103, records_in=10, records_out=9)])
    assert m.vertex_json(SOURCE.id)["status"] == "RUNNING"  # 1 of 2 finished
    m.apply(run_through(SOURCE, 1, start=110))
    vertex = m.vertex_json(SOURCE.id)
    assert vertex["status"] == "FINISHED"
    assert vertex["statusCounts"]["FINISHED"] == 2
    assert (vertex["recordsIn"], vertex["recordsOut"]) == (15, 13)
    assert (vertex["startTime"], vertex["endTime"]) == (102, 113)
    first = subtask(m, SOURCE, 0)
    assert (first["state"], first["startTime"], first["endTime"]) == ("FINISHED", 102, 103)


def test_a_state_never_goes_backwards_within_an_attempt() -> None:
    m = monitor()
    m.apply([event(SOURCE, 0, S.FINISHED, at=105, records_in=7, records_out=7)])
    for late in (S.RUNNING, S.DEPLOYING, S.SCHEDULED, S.CREATED, S.INITIALIZING):
        m.apply([event(SOURCE, 0, late, at=101)])
        assert subtask(m, SOURCE, 0)["state"] == "FINISHED"
    # The RUNNING seen late still tells when the attempt started.
    assert subtask(m, SOURCE, 0)["startTime"] == 101


def test_duplicates_change_nothing() -> None:
    m = monitor()
    events = run_through(SOURCE, 0)
    m.apply(events)
    assert m.apply(events) == NO_CHANGES
    assert not m.apply([events[3]])


def test_records_never_decrease_within_an_attempt() -> None:
    m = monitor()
    m.apply([event(SOURCE, 0, S.RUNNING, records_in=50, records_out=40)])
    changes = m.apply([event(SOURCE, 0, S.RUNNING, records_in=20, records_out=60)])
    assert changes.subtasks == {(SOURCE.id, 0)}
    assert (subtask(m, SOURCE, 0)["recordsIn"], subtask(m, SOURCE, 0)["recordsOut"]) == (50, 60)


def test_spark_killing_a_task_whose_python_finished_wins() -> None:
    m = monitor()
    m.apply(
        [
            event(SOURCE, 0, S.FINISHED, at=101, records_out=1000),
            event(SOURCE, 0, S.CANCELED, at=103, source="listener", error="TaskKilled"),
        ]
    )
    state = subtask(m, SOURCE, 0)
    assert (state["state"], state["endTime"], state["recordsOut"]) == ("CANCELED", 103, 1000)


def test_an_observed_end_beats_an_inferred_one() -> None:
    m = monitor()
    m.apply([event(SOURCE, 0, S.RUNNING)])
    m.apply([event(SOURCE, 0, S.CANCELED, source=SYNTHESIZED, at=200)])
    m.apply([event(SOURCE, 0, S.FINISHED, source="listener", at=199)])
    assert subtask(m, SOURCE, 0)["state"] == "FINISHED"
    m.apply([event(SOURCE, 0, S.CANCELED, source="driver", at=201)])
    assert subtask(m, SOURCE, 0)["state"] == "FINISHED"


def test_the_hooks_error_text_is_kept() -> None:
    m = monitor()
    m.apply(
        [
            event(SOURCE, 0, S.FAILED, source="listener", error="ExceptionFailure(...)"),
            event(SOURCE, 0, S.FAILED, source="hook", error="ZeroDivisionError: division by zero"),
        ]
    )
    assert subtask(m, SOURCE, 0)["error"] == "ZeroDivisionError: division by zero"


def test_a_failed_attempt_names_the_operator_its_error_is_about() -> None:
    m = monitor()
    m.apply(
        [
            event(SOURCE, 0, S.FAILED, source="listener", error="Python worker exited"),
            event(SOURCE, 0, S.FAILED, source="hook", error="Map (node 2): ZeroDivisionError: x"),
            event(SOURCE, 1, S.FAILED, error="HASH edge into Reduce (node 6): key is a list"),
            event(SINK, 0, S.FAILED, source="driver", error="lost worker: w1 stopped reporting"),
        ]
    )
    assert subtask(m, SOURCE, 0)["failedNode"] == 2
    assert subtask(m, SOURCE, 0)["attempts"][0]["failedNode"] == 2
    assert subtask(m, SOURCE, 1)["failedNode"] == 6
    assert subtask(m, SINK, 0)["failedNode"] is None


# Attempts ----------------------------------------------------------------------------------


def test_a_retry_is_a_new_attempt_and_the_failed_one_stays_in_the_history() -> None:
    m = monitor()
    m.apply(
        [
            event(SOURCE, 0, S.RUNNING, at=101, records_in=4),
            event(SOURCE, 0, S.FAILED, at=102, records_in=5, error="ValueError: boom"),
        ]
    )
    assert m.vertex_json(SOURCE.id)["status"] == "FAILED"
    changes = m.apply([event(SOURCE, 0, S.DEPLOYING, attempt=1, at=103, source="listener")])
    assert changes.subtasks == {(SOURCE.id, 0)} and changes.vertices == {SOURCE.id}
    state = subtask(m, SOURCE, 0)
    assert (state["attempt"], state["state"], state["recordsIn"], state["error"]) == (
        1,
        "DEPLOYING",
        0,
        None,
    )
    assert state["attempts"][0] == {
        "attempt": 0,
        "state": "FAILED",
        "recordsIn": 5,
        "recordsOut": 0,
        "startTime": 101,
        "endTime": 102,
        "error": "ValueError: boom",
        "failedNode": None,
    }
    # The vertex counts current attempts only: no longer failed.
    assert m.vertex_json(SOURCE.id)["status"] == "CREATED"
    m.apply(run_through(SOURCE, 0, attempt=1, start=104))
    m.apply(run_through(SOURCE, 1))
    assert m.vertex_json(SOURCE.id)["status"] == "FINISHED"
    assert [a["state"] for a in subtask(m, SOURCE, 0)["attempts"]] == ["FAILED", "FINISHED"]


def test_a_retry_seen_before_the_failure_it_follows() -> None:
    m = monitor()
    m.apply([event(SOURCE, 0, S.RUNNING, attempt=1, at=104)])
    assert subtask(m, SOURCE, 0)["attempt"] == 1
    changes = m.apply([event(SOURCE, 0, S.FAILED, attempt=0, at=102, error="boom")])
    assert changes.subtasks == {(SOURCE.id, 0)}  # the history changed
    assert not changes.vertices  # the current attempt did not
    state = subtask(m, SOURCE, 0)
    assert (state["attempt"], state["state"]) == (1, "RUNNING")
    assert state["attempts"][0]["error"] == "boom"


# Vertex status (Flink's getAggregateJobVertexState) ----------------------------------------


@pytest.mark.parametrize(
    ("states", "expected"),
    [
        ((S.CREATED, S.SCHEDULED, S.DEPLOYING), "CREATED"),
        ((S.RUNNING, S.DEPLOYING, S.CREATED), "RUNNING"),
        ((S.RUNNING, S.INITIALIZING, S.FINISHED), "INITIALIZING"),
        ((S.FINISHED, S.FINISHED, S.CREATED), "RUNNING"),
        ((S.FINISHED, S.FINISHED, S.FINISHED), "FINISHED"),
        ((S.FINISHED, S.CANCELED, S.RUNNING), "CANCELED"),
        ((S.CANCELED, S.CANCELING, S.RUNNING), "CANCELING"),
        ((S.FAILED, S.CANCELING, S.FINISHED), "FAILED"),
    ],
)
def test_vertex_status_follows_flink(states: tuple[S, S, S], expected: str) -> None:
    m = monitor()
    m.apply(event(SINK, i, state) for i, state in enumerate(states))
    assert m.vertex_json(SINK.id)["status"] == expected


# Cancel, finish, abandon -------------------------------------------------------------------


def test_cancel_marks_deployed_subtasks_canceling_and_the_rest_canceled() -> None:
    m = monitor()
    m.apply(run_through(SOURCE, 0))
    m.apply([event(SOURCE, 1, S.RUNNING), event(SINK, 0, S.SCHEDULED, source="listener")])
    events, changes = m.request_cancel(timestamp=300)
    assert m.status is RunStatus.CANCELING and changes.status
    assert {(e.vertex, e.subtask, e.state, e.source) for e in events} == {
        (SOURCE.id, 1, S.CANCELING, SYNTHESIZED),
        (SINK.id, 0, S.CANCELED, SYNTHESIZED),
        (SINK.id, 1, S.CANCELED, SYNTHESIZED),
        (SINK.id, 2, S.CANCELED, SYNTHESIZED),
    }
    assert changes.subtasks == {(e.vertex, e.subtask) for e in events}
    assert m.vertex_json(SOURCE.id)["status"] == "CANCELING"
    assert m.request_cancel(timestamp=301) == ((), NO_CHANGES)
    # Spark kills the running task; the run ends canceled.
    m.apply([event(SOURCE, 1, S.CANCELED, at=302, source="listener")])
    events, changes = m.finish(RunOutcome.CANCELED, timestamp=303)
    assert events == () and changes == Changes(status=True)
    assert m.status is RunStatus.CANCELED
    assert [s["state"] for s in m.to_json()["subtasks"]] == [
        "FINISHED",
        "CANCELED",
        "CANCELED",
        "CANCELED",
        "CANCELED",
    ]


def test_finish_ends_whatever_is_still_going() -> None:
    m = monitor()
    m.apply([event(SOURCE, 0, S.RUNNING, attempt=0), event(SOURCE, 0, S.RUNNING, attempt=1)])
    m.apply(run_through(SINK, 0))
    events, changes = m.finish(RunOutcome.FINISHED, timestamp=400)
    assert m.status is RunStatus.FINISHED and changes.status
    assert {(e.subtask, e.attempt, e.state) for e in events if e.vertex == SOURCE.id} == {
        (0, 0, S.FAILED),
        (0, 1, S.FINISHED),
        (1, 0, S.FINISHED),
    }
    assert m.all_terminal()
    assert m.finish(RunOutcome.FAILED, timestamp=401) == ((), NO_CHANGES)
    assert m.status is RunStatus.FINISHED
    # Late events still fold, but the run's outcome stays.
    assert not m.apply([event(SINK, 1, S.RUNNING, at=402)]).status


def test_a_failed_run_cancels_the_rest() -> None:
    m = monitor()
    m.apply([event(SOURCE, 0, S.FAILED, error="boom"), event(SOURCE, 1, S.RUNNING)])
    events, _ = m.finish(RunOutcome.FAILED, timestamp=500)
    assert m.status is RunStatus.FAILED
    assert subtask(m, SOURCE, 0)["state"] == "FAILED"
    assert {e.state for e in events} == {S.CANCELED}
    assert len(events) == 4


def test_abandon_fails_deployed_subtasks_with_the_error() -> None:
    m = monitor()
    m.apply([event(SOURCE, 0, S.RUNNING), event(SOURCE, 1, S.SCHEDULED, source="listener")])
    m.apply(run_through(SINK, 0))
    events, changes = m.abandon(timestamp=600, error="lost worker")
    assert m.status is RunStatus.FAILED and changes.status
    states = {
        (s["vertex"], s["subtask"]): (s["state"], s["error"]) for s in m.to_json()["subtasks"]
    }
    assert states[(SOURCE.id, 0)] == ("FAILED", "lost worker")
    assert states[(SOURCE.id, 1)] == ("CANCELED", None)
    assert states[(SINK.id, 0)] == ("FINISHED", None)
    assert len(events) == 4


def test_unknown_vertices_and_subtasks_are_ignored() -> None:
    m = monitor()
    stray = [
        SubtaskEvent(vertex="f" * 32, subtask=0, attempt=0, state=S.RUNNING, timestamp=1),
        event(SOURCE, 2, S.RUNNING),
        event(SOURCE, -1, S.RUNNING),
        event(SOURCE, 0, S.RUNNING, attempt=-1),
    ]
    assert m.apply(stray) == NO_CHANGES
    assert m.ignored == 4
    assert m.status is RunStatus.CREATED


def test_changes_json_holds_only_what_changed() -> None:
    m = monitor()
    changes = m.apply([event(SINK, 2, S.RUNNING, records_in=1)])
    body = m.changes_json(changes)
    assert body["status"] == "RUNNING"
    assert [v["id"] for v in body["vertices"]] == [SINK.id]
    assert [(s["vertex"], s["subtask"]) for s in body["subtasks"]] == [(SINK.id, 2)]
    body = m.changes_json(m.apply([event(SINK, 2, S.RUNNING, records_in=2)]))
    assert "status" not in body
    assert body["vertices"][0]["recordsIn"] == 2


def test_replaying_the_stored_events_gives_the_same_state() -> None:
    live = monitor()
    stored: list[SubtaskEvent] = []

    def keep(events: Any) -> None:
        stored.extend(events)

    observed = [*run_through(SOURCE, 0), event(SOURCE, 1, S.RUNNING), event(SINK, 0, S.RUNNING)]
    live.apply(observed)
    keep(observed)
    events, _ = live.request_cancel(timestamp=700)
    keep(events)
    events, _ = live.finish(RunOutcome.CANCELED, timestamp=701)
    keep(events)

    replayed = monitor()
    replayed.apply(reversed(stored))
    live_state, replayed_state = live.to_json(), replayed.to_json()
    assert live_state["status"] == "CANCELED" and replayed_state["status"] == "RUNNING"
    del live_state["status"], replayed_state["status"]
    assert replayed_state == live_state


# Properties --------------------------------------------------------------------------------

VERTICES = [SOURCE, SINK]
_ORDER = [S.CREATED, S.SCHEDULED, S.DEPLOYING, S.INITIALIZING, S.RUNNING, S.CANCELING]

events_strategy = st.lists(
    st.builds(
        SubtaskEvent,
        vertex=st.sampled_from([SOURCE.id, SINK.id, "c" * 32]),
        subtask=st.integers(0, 3),
        attempt=st.integers(0, 2),
        state=st.sampled_from(list(ExecutionState)),
        timestamp=st.sampled_from([1.0, 2.0, 3.0, 4.5]),
        records_in=st.integers(0, 20),
        records_out=st.integers(0, 20),
        error=st.sampled_from([None, None, "boom", "killed"]),
        source=st.sampled_from(["hook", "listener", "driver", SYNTHESIZED]),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), events=events_strategy)
def test_any_order_of_the_same_events_ends_in_the_same_state(
    data: st.DataObject, events: list[SubtaskEvent]
) -> None:
    shuffled = data.draw(st.permutations(events))
    one, other = RunMonitor(VERTICES), RunMonitor(VERTICES)
    one.apply(events)
    for e in shuffled:  # one at a time, as they would trickle in
        other.apply([e])
    assert one.to_json() == other.to_json()
    assert one.ignored == other.ignored


@settings(max_examples=300, deadline=None)
@given(events=events_strategy)
def test_changes_name_exactly_what_changed_and_nothing_goes_backwards(
    events: list[SubtaskEvent],
) -> None:
    m = RunMonitor(VERTICES)
    before = m.to_json()
    for e in events:
        changes = m.apply([e])
        after = m.to_json()
        changed_subtasks = {
            (new["vertex"], new["subtask"])
            for old, new in zip(before["subtasks"], after["subtasks"], strict=True)
            if old != new
        }
        changed_vertices = {
            new["id"]
            for old, new in zip(before["vertices"], after["vertices"], strict=True)
            if old != new
        }
        assert changes.subtasks == changed_subtasks
        assert changes.vertices == changed_vertices
        assert changes.status == (before["status"] != after["status"])
        for old, new in zip(before["subtasks"], after["subtasks"], strict=True):
            assert new["attempt"] >= old["attempt"]
            new_attempts = {a["attempt"]: a for a in new["attempts"]}
            for old_attempt in old["attempts"]:
                assert_not_backwards(old_attempt, new_attempts[old_attempt["attempt"]])
        before = copy.deepcopy(after)


def assert_not_backwards(old: dict[str, Any], new: dict[str, Any]) -> None:
    old_state, new_state = S(old["state"]), S(new["state"])
    if old_state.is_terminal:
        assert new_state.is_terminal
    elif not new_state.is_terminal:
        assert _ORDER.index(new_state) >= _ORDER.index(old_state)
    assert new["recordsIn"] >= old["recordsIn"]
    assert new["recordsOut"] >= old["recordsOut"]


@settings(max_examples=200, deadline=None)
@given(data=st.data(), events=events_strategy, cancel=st.booleans())
def test_finishing_leaves_every_subtask_terminal_and_replays_exactly(
    data: st.DataObject, events: list[SubtaskEvent], cancel: bool
) -> None:
    m = RunMonitor(VERTICES)
    m.apply(events)
    stored = list(events)
    if cancel:
        stored += m.request_cancel(timestamp=10.0)[0]
    outcome = data.draw(st.sampled_from(list(RunOutcome)))
    stored += m.finish(outcome, timestamp=11.0)[0]
    assert m.all_terminal()
    assert m.status.value == outcome.value
    replayed = RunMonitor(VERTICES)
    replayed.apply(data.draw(st.permutations(stored)))
    assert replayed.to_json()["subtasks"] == m.to_json()["subtasks"]
    assert replayed.to_json()["vertices"] == m.to_json()["vertices"]
