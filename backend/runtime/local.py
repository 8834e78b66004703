"""The reference executor: a run plan executed in this process, subtask by subtask.

Vertices run in the plan's (topological) order; each subtask's input is what its
producers' routers sent it, in the order of its input edges, then producer subtasks,
then records. It uses the very chains and routers the Spark executor runs, so for a
deterministic pipeline the Spark executor must produce the same sink outputs; it is
also the fast way to test operator semantics.

It publishes the `SubtaskEvent`s the Spark side publishes: CREATED for every subtask
when the run starts, then per attempt SCHEDULED, DEPLOYING, INITIALIZING, RUNNING and
FINISHED with its records in and out, or FAILED with the error. A failed attempt is
retried up to `max_attempts` (Spark's `local[N,F]`); its outputs are dropped, as a
failed Spark task's are. When a subtask fails for good, or `cancel` is set, the
subtasks that did not finish are CANCELED and the run ends. The file sinks' parts are
committed when the run has finished, or removed when it has not
(`operators.sinks.commit_file_sinks`). It reads and writes files on `file:` locations
only: the other schemes are reached through Spark's JVM.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from runtime.chains import SubtaskRun
from runtime.events import (
    ExecutionState,
    RunOutcome,
    RunResult,
    SinkOutput,
    StageRun,
    SubtaskEvent,
)
from runtime.operators.sinks import (
    FILE_SINKS,
    commit_file_sinks,
    file_sink_folders,
    pending_parts,
)
from runtime.operators.sources import FILE_SOURCES
from runtime.paths import PathError
from runtime.plan import RunPlan, VertexPlan
from runtime.storage import LocalStorage, data_location

_CHECK_CANCEL_EVERY = 4096


class _Canceled(Exception):
    pass


def run_locally(
    plan: RunPlan,
    publish: Callable[[SubtaskEvent], None],
    *,
    max_attempts: int = 1,
    cancel: threading.Event | None = None,
) -> RunResult:
    """Run `plan` here; `publish` receives every state change of every subtask."""
    started = time.perf_counter()
    runner = _LocalRun(plan, publish, max(1, max_attempts), cancel)
    location = data_location(plan.data_dir)
    if location.is_local:
        outcome, error = runner.run()
        outcome, error = runner.commit(LocalStorage(location), outcome, error)
    elif not any(
        node.kind in FILE_SOURCES | FILE_SINKS
        for vertex in plan.vertices
        for node in (*vertex.chained_sources, *vertex.nodes)
    ):
        outcome, error = runner.run()  # it names no file
    else:
        outcome, error = runner.refuse(
            f"the local executor reads and writes files only on file: locations, not on "
            f"{location.scheme}: ({location.uri}); run it on Spark"
        )
    details: dict[str, Any] = {
        "executor": "local",
        "seconds": round(time.perf_counter() - started, 6),
        "seed": plan.seed,
    }
    return RunResult(
        outcome=outcome,
        sinks=tuple(runner.sinks),
        error=error,
        details=details,
        stages=tuple(runner.stages),
    )


class _LocalRun:
    def __init__(
        self,
        plan: RunPlan,
        publish: Callable[[SubtaskEvent], None],
        max_attempts: int,
        cancel: threading.Event | None,
    ) -> None:
        self.plan = plan
        self.publish_event = publish
        self.max_attempts = max_attempts
        self.cancel = cancel
        self.sinks: list[SinkOutput] = []
        self.committed: list[tuple[SinkOutput, int]] = []
        """The sink outputs of the attempts that finished, with their attempt numbers."""
        self.stages: list[StageRun] = []
        """One per vertex begun: its position in the plan is its stage id."""
        # Per vertex and subtask: per input position, the records in producer subtask order.
        self.inboxes: dict[str, list[dict[int, list[Any]]]] = {
            v.id: [{} for _ in range(v.parallelism)] for v in plan.vertices
        }
        self.attempts: dict[tuple[str, int], int] = {}
        self.done: set[tuple[str, int]] = set()

    def publish(
        self,
        vertex: VertexPlan,
        subtask: int,
        attempt: int,
        state: ExecutionState,
        *,
        records: tuple[int, int] = (0, 0),
        error: str | None = None,
        source: str = "hook",
    ) -> None:
        self.publish_event(
            SubtaskEvent(
                vertex=vertex.id,
                subtask=subtask,
                attempt=attempt,
                state=state,
                timestamp=time.time(),
                records_in=records[0],
                records_out=records[1],
                error=error,
                source=source,
            )
        )

    def run(self) -> tuple[RunOutcome, str | None]:
        for vertex in self.plan.vertices:
            for subtask in range(vertex.parallelism):
                self.publish(vertex, subtask, 0, ExecutionState.CREATED, source="driver")
        position = {v.id: i for i, v in enumerate(self.plan.vertices)}
        for vertex in self.plan.vertices:
            started = time.time()
            ended = self.run_vertex(vertex)
            failed = ended is not None and ended[0] is RunOutcome.FAILED
            self.stages.append(
                StageRun(
                    stage=position[vertex.id],
                    attempt=0,
                    vertices=(vertex.id,),
                    parents=tuple(sorted({position[i.producer] for i in vertex.inputs})),
                    submitted=started,
                    completed=None if ended is not None and not failed else time.time(),
                    failed=failed,
                )
            )
            if ended is not None:
                return ended
        return RunOutcome.FINISHED, None

    def run_vertex(self, vertex: VertexPlan) -> tuple[RunOutcome, str] | None:
        """Run every subtask of a vertex; how the run ended if it ended here."""
        for subtask in range(vertex.parallelism):
            try:
                failure = self.run_subtask(vertex, subtask)
            except _Canceled:
                self.cancel_rest()
                return RunOutcome.CANCELED, "the run was canceled"
            if failure is not None:
                self.cancel_rest()
                return RunOutcome.FAILED, failure
        return None

    def canceled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def run_subtask(self, vertex: VertexPlan, subtask: int) -> str | None:
        """Run one subtask until an attempt succeeds; the last error if none does."""
        error = None
        for attempt in range(self.max_attempts):
            if self.canceled():
                raise _Canceled
            self.attempts[vertex.id, subtask] = attempt
            for state in (
                ExecutionState.SCHEDULED,
                ExecutionState.DEPLOYING,
                ExecutionState.INITIALIZING,
            ):
                self.publish(vertex, subtask, attempt, state, source="driver")
            run = None
            try:
                run = SubtaskRun(vertex, subtask, attempt)
                self.publish(vertex, subtask, attempt, ExecutionState.RUNNING)
                inbox = self.inboxes[vertex.id][subtask]
                records = [
                    (position, record) for position in sorted(inbox) for record in inbox[position]
                ]
                sent = self.execute(vertex, subtask, run.run(records))
            except _Canceled:
                self.publish(
                    vertex,
                    subtask,
                    attempt,
                    ExecutionState.CANCELED,
                    records=_counts(run),
                    source="driver",
                )
                self.done.add((vertex.id, subtask))
                raise
            except Exception as failure:
                error = _describe(failure)
                self.publish(
                    vertex,
                    subtask,
                    attempt,
                    ExecutionState.FAILED,
                    records=_counts(run),
                    error=error,
                )
                continue
            for consumer, target, (position, record) in sent:
                self.inboxes[consumer][target].setdefault(position, []).append(record)
            outputs = run.sink_outputs()
            self.sinks.extend(outputs)
            self.committed.extend((output, attempt) for output in outputs)
            self.publish(
                vertex,
                subtask,
                attempt,
                ExecutionState.FINISHED,
                records=(run.records_in, run.records_out),
            )
            self.done.add((vertex.id, subtask))
            self.inboxes[vertex.id][subtask] = {}  # consumed
            return None
        self.done.add((vertex.id, subtask))
        return f"{vertex.subtask_name(subtask)} failed: {error}"

    def execute(
        self, vertex: VertexPlan, subtask: int, outputs: Any
    ) -> list[tuple[str, int, tuple[int, Any]]]:
        """Run the chain and route what it sends; nothing is delivered before it succeeds."""
        produced: list[list[Any]] = [[] for _ in vertex.outputs]
        for count, (position, record) in enumerate(outputs, 1):
            produced[position].append(record)
            if not count % _CHECK_CANCEL_EVERY and self.canceled():
                raise _Canceled
        sent: list[tuple[str, int, tuple[int, Any]]] = []
        for output, records in zip(vertex.outputs, produced, strict=True):
            for target, record in output.router.route(subtask, records):
                sent.append((output.consumer, target, (output.consumer_input, record)))
        return sent

    def commit(
        self, storage: LocalStorage, outcome: RunOutcome, error: str | None
    ) -> tuple[RunOutcome, str | None]:
        """Make the file sinks' parts visible if the run finished; else leave none."""
        finished = outcome is RunOutcome.FINISHED
        try:
            folders = file_sink_folders(self.plan, storage)
            staged = pending_parts(self.plan, folders, self.committed)
            commit_file_sinks(self.plan, storage, folders, staged, succeeded=finished)
        except (OSError, PathError) as failure:
            if finished:
                return RunOutcome.FAILED, f"the file sinks' parts could not be committed: {failure}"
        return outcome, error

    def refuse(self, error: str) -> tuple[RunOutcome, str]:
        """End the run before any subtask started."""
        for vertex in self.plan.vertices:
            for subtask in range(vertex.parallelism):
                self.publish(vertex, subtask, 0, ExecutionState.CREATED, source="driver")
        self.cancel_rest()
        return RunOutcome.FAILED, error

    def cancel_rest(self) -> None:
        for vertex in self.plan.vertices:
            for subtask in range(vertex.parallelism):
                if (vertex.id, subtask) not in self.done:
                    attempt = self.attempts.get((vertex.id, subtask), 0)
                    self.publish(vertex, subtask, attempt, ExecutionState.CANCELED, source="driver")


def _counts(run: Any) -> tuple[int, int]:
    return (run.records_in, run.records_out) if run is not None else (0, 0)


def _describe(error: BaseException) -> str:
    text = str(error)
    if type(error).__name__ in ("OperatorError", "RoutingError", "InjectedFault"):
        return text
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
