"""The worker-side hook, called in this process (no Spark): states, counts, errors."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any

import pytest

from runtime.events import ExecutionState
from runtime.spark import hooks
from runtime.spark.hooks import Meter, Monitored, Reporting, error_text
from tests.runtime.spark.conftest import REDIS_URL, states

VERTEX = "0" * 31 + "1"


class Doubler:
    """Reads its input and emits every record twice, counted through the meter."""

    def __init__(self, fail_at: int | None = None, delay: float = 0.0) -> None:
        self.fail_at = fail_at
        self.delay = delay

    def __call__(
        self, subtask: int, attempt: int, records: Iterator[int], meter: Meter
    ) -> Iterator[int]:
        return meter.count_out(self._double(meter.count_in(records)))

    def _double(self, records: Iterator[int]) -> Iterator[int]:
        for record in records:
            if record == self.fail_at:
                raise ValueError(f"cannot take {record}")
            if self.delay:
                time.sleep(self.delay)
            yield record
            yield record


class Counting:
    """Counts like a chain's SubtaskRun: attributes the progress thread reads."""

    def __init__(self) -> None:
        self.records_in = 0
        self.records_out = 0


class Tracked:
    def __call__(
        self, subtask: int, attempt: int, records: Iterator[int], meter: Meter
    ) -> Iterator[int]:
        counting = Counting()
        meter.track(counting)
        return self._run(records, counting)

    def _run(self, records: Iterator[int], counting: Counting) -> Iterator[int]:
        for record in records:
            counting.records_in += 1
            time.sleep(0.004)
            if record % 2:
                counting.records_out += 1
                yield record


def test_states_and_exact_counts_reach_the_run_channel(run_events):
    log = run_events()
    hook = Monitored(Reporting(log.run_key, REDIS_URL), VERTEX, Doubler())
    assert list(hook(1, iter(range(5000)))) == [x for x in range(5000) for _ in (0, 1)]
    events = log.settle()
    assert states(events) == [(0, "INITIALIZING"), (0, "RUNNING"), (0, "FINISHED")]
    assert all(e.vertex == VERTEX and e.subtask == 1 and e.source == "hook" for e in events)
    assert (events[-1].records_in, events[-1].records_out) == (5000, 10000)


def test_a_failure_is_published_with_its_error_and_propagates(run_events):
    log = run_events()
    hook = Monitored(Reporting(log.run_key, REDIS_URL), VERTEX, Doubler(fail_at=3))
    with pytest.raises(ValueError, match="cannot take 3"):
        list(hook(0, iter(range(10))))
    events = log.settle()
    assert states(events) == [(0, "INITIALIZING"), (0, "RUNNING"), (0, "FAILED")]
    assert events[-1].error == "ValueError: cannot take 3"


def test_progress_is_published_while_running_at_most_every_period(run_events):
    log = run_events()
    period = 0.1
    hook = Monitored(Reporting(log.run_key, REDIS_URL, progress_period=period), VERTEX, Tracked())
    started = time.monotonic()
    assert len(list(hook(0, iter(range(200))))) == 100
    took = time.monotonic() - started
    events = log.settle()
    progress = [e for e in events if e.state is ExecutionState.RUNNING][1:]
    assert 2 <= len(progress) <= took / period + 1
    counts = [e.records_in for e in progress]
    assert counts == sorted(counts) and 0 < counts[0] < 200
    assert (events[-1].state, events[-1].records_in, events[-1].records_out) == (
        ExecutionState.FINISHED,
        200,
        100,
    )
    gaps = [b.timestamp - a.timestamp for a, b in itertools.pairwise(progress)]
    assert min(gaps) >= period * 0.8


def test_without_redis_the_task_still_runs(monkeypatch: Any):
    monkeypatch.setattr(hooks, "_quiet_until", 0.0)
    monkeypatch.setattr(hooks, "_warned", True)
    reporting = Reporting("nobody-listens", "redis://127.0.0.1:1/0")
    started = time.monotonic()
    hook = Monitored(reporting, VERTEX, Doubler())
    assert len(list(hook(0, iter(range(100))))) == 200
    assert len(list(hook(1, iter(range(100))))) == 200
    assert time.monotonic() - started < 3  # one failed connection, then quiet


def test_error_text_keeps_the_chains_own_messages():
    from runtime.operators.base import OperatorError

    assert (
        error_text(OperatorError(2, "Map", "ZeroDivisionError: x"))
        == "Map (node 2): ZeroDivisionError: x"
    )
    assert error_text(KeyError("k")) == "KeyError: 'k'"
