"""The driver's view of every subtask attempt: a SparkListener implemented in Python.

One `ListenerHub` is registered per SparkContext through py4j (no jar); Spark calls it
on its listener-bus thread for every scheduler event. Several runs share the context,
so the hub hands each event to the `RunTracker` of the run it belongs to:

- a job belongs to the run whose job tag it carries (`spark.job.tags`);
- a stage belongs to the run of the job that submitted it;
- a task is (stage, partition index, attempt); the tracker knows which subtask that is
  because the executor registered, per run, the RDDs that stand for its vertices (their
  ids are unique in the context). A stage contains exactly one such RDD, or the union
  of the output vertices for the final stage, and its partition index is the subtask.

The tracker also keeps every stage of the run's job as Spark ran it (`stages`): its
vertices, the stages it read, when it was submitted and completed, and whether it failed.

The tracker publishes what only the driver sees: SCHEDULED (stage submitted),
DEPLOYING (task launched), the end of every attempt (FINISHED as a confirmation,
FAILED with the error, CANCELED when killed) and, when the job ends unsuccessfully,
CANCELED for every subtask that had not ended. These events carry no record counts;
the hooks in the Python workers report those.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from runtime.events import ExecutionState, StageRun, SubtaskEvent
from runtime.spark.errors import python_error_text

if TYPE_CHECKING:
    from pyspark.core.context import SparkContext

logger = logging.getLogger(__name__)

Slot = tuple[str, int]
"""(JobVertexID, subtask index)."""

Publish = Callable[[SubtaskEvent], None]

_TAGS_PROPERTY = "spark.job.tags"
_SOURCE = "listener"


class RunTracker:
    """What the listener knows of one run: its RDD layouts and the attempts it has seen."""

    def __init__(self, tag: str, publish: Publish, subtasks: Iterable[Slot]) -> None:
        self.tag = tag
        self._publish = publish
        self._subtasks = tuple(subtasks)
        self._layouts: dict[int, tuple[Slot | None, ...]] = {}
        self._stages: dict[int, tuple[Slot | None, ...]] = {}
        self._moves: dict[int, int] = {}
        """RDD id -> the StreamEdge whose records a stage computing it moves again."""
        self._reads: dict[int, tuple[int, ...]] = {}
        """RDD id -> the file sources whose files a stage computing it reads."""
        self._writes: dict[int, int] = {}
        """RDD id -> the file sink whose parts a stage computing it writes."""
        self._stage_runs: dict[tuple[int, int], StageRun] = {}
        """(stage id, attempt) -> what was seen of it."""
        self._attempts: dict[Slot, tuple[int, ExecutionState]] = {}
        self._in_jvm: set[int] = set()
        """RDD ids of layouts whose subtasks run as Spark SQL."""
        self._jvm_stages: set[int] = set()
        self._lock = threading.Lock()
        self._job_started = threading.Event()
        self._job_ended = threading.Event()
        self._last_failure: tuple[Slot, str | None] | None = None
        self._stopping = False
        """Set by `cancelling`: stages that end with a failure from now on were stopped."""
        self.job_succeeded: bool | None = None
        self.job_error: str | None = None

    # -- set up by the executor ------------------------------------------------------

    def add_layout(
        self, rdd_id: int, slots: Sequence[Slot | None], *, in_jvm: bool = False
    ) -> None:
        """Partition i of a stage that computes RDD `rdd_id` is subtask `slots[i]` (None:
        no subtask, a part a file sink wrote, on its way to storage). `in_jvm`: the
        subtasks run as Spark SQL, with no Python hook: a task's launch is their start,
        and their end is the executor's to report, with their counts."""
        with self._lock:
            self._layouts[rdd_id] = tuple(slots)
            if in_jvm:
                self._in_jvm.add(rdd_id)

    def attempt_of(self, slot: Slot) -> int:
        """The latest attempt of a subtask seen so far."""
        with self._lock:
            return self._attempts.get(slot, (0, ExecutionState.CREATED))[0]

    def add_move(self, rdd_id: int, edge: int) -> None:
        """A stage that computes RDD `rdd_id` runs no vertex: it moves `edge`'s records."""
        with self._lock:
            self._moves[rdd_id] = edge

    def add_read(self, rdd_id: int, sources: Sequence[int]) -> None:
        """A stage that computes RDD `rdd_id` reads the files of `sources`."""
        with self._lock:
            self._reads[rdd_id] = tuple(sources)

    def add_write(self, rdd_id: int, sink: int) -> None:
        """A stage that computes RDD `rdd_id` writes the parts of `sink`."""
        with self._lock:
            self._writes[rdd_id] = sink

    def stages(self) -> tuple[StageRun, ...]:
        """Every stage attempt of the run's job seen so far, by stage id and attempt."""
        with self._lock:
            return tuple(self._stage_runs[key] for key in sorted(self._stage_runs))

    def cancelling(self) -> None:
        """Publish CANCELING for every subtask that has not ended."""
        now = time.time()
        with self._lock:
            self._stopping = True
            for slot in self._subtasks:
                attempt, state = self._attempts.get(slot, (0, ExecutionState.CREATED))
                if not state.is_terminal:
                    self._emit(slot, attempt, ExecutionState.CANCELING, now, source="driver")

    def wait_for_job_end(self, timeout: float) -> bool:
        """Wait until the listener has seen the end of the run's job."""
        return self._job_ended.wait(timeout)

    @property
    def job_started(self) -> bool:
        """Whether the listener has seen the run's job start."""
        return self._job_started.is_set()

    # -- called by the hub, on Spark's listener thread ---------------------------------

    def job_start(self) -> None:
        self._job_started.set()

    def stage_submitted(
        self,
        stage_id: int,
        rdd_ids: Iterable[int],
        *,
        attempt: int = 0,
        parents: Iterable[int] = (),
        submitted: float | None = None,
    ) -> bool:
        """Map the stage to its subtasks; False if it runs none of this run's vertices."""
        now = time.time()
        rdds = list(rdd_ids)
        with self._lock:
            known = [rdd_id for rdd_id in rdds if rdd_id in self._layouts]
            # The union of the output vertices is created after them: the highest id wins.
            layout = self._layouts[max(known)] if known else ()
            slots = [slot for slot in layout if slot is not None]
            moves = [self._moves[r] for r in rdds if r in self._moves and not known]
            reads = [node for r in sorted(rdds) for node in self._reads.get(r, ())]
            writes = [self._writes[r] for r in sorted(rdds) if r in self._writes]
            self._stage_runs[stage_id, attempt] = StageRun(
                stage=stage_id,
                attempt=attempt,
                vertices=tuple(dict.fromkeys(vertex for vertex, _ in slots)),
                edge=moves[0] if moves else None,
                reads=tuple(dict.fromkeys(reads)),
                writes=tuple(dict.fromkeys(writes)),
                parents=tuple(sorted(parents)),
                submitted=now if submitted is None else submitted,
            )
            if not known:
                return False
            self._stages[stage_id] = layout
            if max(known) in self._in_jvm:
                self._jvm_stages.add(stage_id)
            for slot in slots:
                attempt, state = self._attempts.get(slot, (0, ExecutionState.CREATED))
                if state is ExecutionState.CREATED:
                    self._attempts[slot] = (attempt, ExecutionState.SCHEDULED)
                    self._emit(slot, attempt, ExecutionState.SCHEDULED, now)
            return True

    def stage_completed(
        self, stage_id: int, attempt: int, *, failed: bool, completed: float | None = None
    ) -> None:
        with self._lock:
            seen = self._stage_runs.get((stage_id, attempt))
            if seen is not None and failed and self._stopping:
                # Spark gives a stage it cancels a failure reason: the stage did not fail,
                # the run was stopped (canceled, or out of time) before it finished.
                return
            if seen is not None:
                ended = time.time() if completed is None else completed
                self._stage_runs[stage_id, attempt] = replace(seen, completed=ended, failed=failed)

    def task_started(self, stage_id: int, index: int, attempt: int, launched: float) -> None:
        with self._lock:
            slot = self._slot(stage_id, index)
            if slot is None:
                return
            self._attempts[slot] = (attempt, ExecutionState.DEPLOYING)
            self._emit(slot, attempt, ExecutionState.DEPLOYING, launched)
            if stage_id in self._jvm_stages:
                for state in (ExecutionState.INITIALIZING, ExecutionState.RUNNING):
                    self._attempts[slot] = (attempt, state)
                    self._emit(slot, attempt, state, launched)

    def task_ended(
        self,
        stage_id: int,
        index: int,
        attempt: int,
        state: ExecutionState,
        error: str | None,
        finished: float,
    ) -> None:
        with self._lock:
            slot = self._slot(stage_id, index)
            if slot is None:
                return
            last_attempt, last_state = self._attempts.get(slot, (attempt, ExecutionState.CREATED))
            if last_attempt == attempt and last_state.is_terminal:
                return  # already ended (e.g. CANCELED when the job ended, then the kill)
            if last_attempt > attempt:
                return  # a newer attempt is under way
            if state is ExecutionState.FINISHED and stage_id in self._jvm_stages:
                # A SQL subtask's records out are known once its consumers ran: the
                # executor reports its FINISHED with them (`sqlpath`); until then it is
                # not ended, so a job that fails later cancels it.
                return
            self._attempts[slot] = (attempt, state)
            if state is ExecutionState.FAILED:
                self._last_failure = (slot, error)
            self._emit(slot, attempt, state, finished, error)

    def job_ended(self, succeeded: bool, error: str | None) -> None:
        self._end(succeeded, error, _SOURCE)

    def finish(self, succeeded: bool, error: str | None, *, source: str = "driver") -> None:
        """End the run here unless the listener saw its job end: when the job never
        started or its end was not reported in time."""
        if not self._job_ended.is_set():
            self._end(succeeded, error, source)

    def last_failure(self) -> tuple[Slot, str | None] | None:
        """The subtask whose attempt failed last, and why."""
        with self._lock:
            return self._last_failure

    def _end(self, succeeded: bool, error: str | None, source: str) -> None:
        now = time.time()
        with self._lock:
            if self._job_ended.is_set():
                return
            self.job_succeeded = succeeded
            self.job_error = error
            if not succeeded:
                # Flink cancels what still runs when a job fails or is cancelled, and a
                # subtask that never started goes from CREATED to CANCELED.
                for slot in self._subtasks:
                    attempt, state = self._attempts.get(slot, (0, ExecutionState.CREATED))
                    if state.is_terminal:
                        continue
                    self._attempts[slot] = (attempt, ExecutionState.CANCELED)
                    self._emit(slot, attempt, ExecutionState.CANCELED, now, source=source)
            self._job_ended.set()

    # -- helpers ---------------------------------------------------------------------

    def _slot(self, stage_id: int, index: int) -> Slot | None:
        layout = self._stages.get(stage_id)
        if layout is None or not 0 <= index < len(layout):
            return None
        return layout[index]

    def _emit(
        self,
        slot: Slot,
        attempt: int,
        state: ExecutionState,
        timestamp: float,
        error: str | None = None,
        *,
        source: str = _SOURCE,
    ) -> None:
        event = SubtaskEvent(
            vertex=slot[0],
            subtask=slot[1],
            attempt=attempt,
            state=state,
            timestamp=timestamp,
            error=error,
            source=source,
        )
        try:
            self._publish(event)
        except Exception:
            logger.exception("could not publish %s", event)


class ListenerHub:
    """The one py4j SparkListener of a SparkContext; dispatches events to run trackers."""

    class Java:
        implements: ClassVar[list[str]] = ["org.apache.spark.scheduler.SparkListenerInterface"]

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_tag: dict[str, RunTracker] = {}
        self._by_job: dict[int, RunTracker] = {}
        self._by_stage: dict[int, RunTracker] = {}
        self._attached = False

    def attach(self, context: SparkContext) -> None:
        from pyspark.java_gateway import ensure_callback_server_started

        gateway = context._gateway
        assert gateway is not None  # a live SparkContext has its gateway
        # The callback server lets the JVM call this object; it listens on loopback.
        ensure_callback_server_started(gateway)  # type: ignore[no-untyped-call]  # untyped in PySpark
        _scala_context(context).addSparkListener(self)
        self._attached = True

    def detach(self, context: SparkContext) -> None:
        if self._attached:
            _scala_context(context).removeSparkListener(self)
            self._attached = False

    def register(self, tracker: RunTracker) -> None:
        with self._lock:
            self._by_tag[tracker.tag] = tracker

    def unregister(self, tracker: RunTracker) -> None:
        with self._lock:
            self._by_tag.pop(tracker.tag, None)
            for table in (self._by_job, self._by_stage):
                for key in [k for k, t in table.items() if t is tracker]:
                    del table[key]

    @property
    def active_runs(self) -> int:
        with self._lock:
            return len(self._by_tag)

    # -- SparkListenerInterface (called by the JVM through py4j) ------------------------

    def onJobStart(self, event: Any) -> None:
        try:
            properties = event.properties()
            tags = properties.getProperty(_TAGS_PROPERTY) if properties is not None else None
            if not tags:
                return
            with self._lock:
                found = [self._by_tag[t] for t in tags.split(",") if t in self._by_tag]
                tracker = found[0] if found else None
                if tracker is None:
                    return
                self._by_job[int(event.jobId())] = tracker
                stage_ids = event.stageIds()
                for i in range(stage_ids.size()):
                    self._by_stage[int(stage_ids.apply(i))] = tracker
            tracker.job_start()
        except Exception:
            logger.exception("onJobStart")

    def onStageSubmitted(self, event: Any) -> None:
        try:
            info = event.stageInfo()
            stage_id = int(info.stageId())
            with self._lock:
                tracker = self._by_stage.get(stage_id)
            if tracker is None:
                return
            infos = info.rddInfos()
            rdd_ids = [int(infos.apply(i).id()) for i in range(infos.size())]
            parents = info.parentIds()
            tracker.stage_submitted(
                stage_id,
                rdd_ids,
                attempt=int(info.attemptNumber()),
                parents=[int(parents.apply(i)) for i in range(parents.size())],
                submitted=_seconds(info.submissionTime()),
            )
        except Exception:
            logger.exception("onStageSubmitted")

    def onStageCompleted(self, event: Any) -> None:
        try:
            info = event.stageInfo()
            stage_id = int(info.stageId())
            with self._lock:
                tracker = self._by_stage.get(stage_id)
            if tracker is None:
                return
            tracker.stage_completed(
                stage_id,
                int(info.attemptNumber()),
                failed=bool(info.failureReason().isDefined()),
                completed=_seconds(info.completionTime()),
            )
        except Exception:
            logger.exception("onStageCompleted")

    def onTaskStart(self, event: Any) -> None:
        try:
            stage_id = int(event.stageId())
            with self._lock:
                tracker = self._by_stage.get(stage_id)
            if tracker is None:
                return
            task = event.taskInfo()
            tracker.task_started(
                stage_id, int(task.index()), int(task.attemptNumber()), task.launchTime() / 1000.0
            )
        except Exception:
            logger.exception("onTaskStart")

    def onTaskEnd(self, event: Any) -> None:
        try:
            stage_id = int(event.stageId())
            with self._lock:
                tracker = self._by_stage.get(stage_id)
            if tracker is None:
                return
            task = event.taskInfo()
            outcome = _task_outcome(event.reason())
            if outcome is None:
                return
            state, error = outcome
            finished = task.finishTime() / 1000.0 or time.time()
            tracker.task_ended(
                stage_id, int(task.index()), int(task.attemptNumber()), state, error, finished
            )
        except Exception:
            logger.exception("onTaskEnd")

    def onJobEnd(self, event: Any) -> None:
        try:
            with self._lock:
                tracker = self._by_job.get(int(event.jobId()))
            if tracker is None:
                return
            result = event.jobResult()
            name = str(result.getClass().getSimpleName())
            if name.startswith("JobSucceeded"):
                tracker.job_ended(True, None)
            else:
                exception = result.exception()
                tracker.job_ended(False, python_error_text(str(exception.getMessage())))
        except Exception:
            logger.exception("onJobEnd")

    def __getattr__(self, name: str) -> Callable[..., None]:
        # The other 30-odd callbacks of SparkListenerInterface: nothing to do.
        if name.startswith("on"):
            return _ignore
        raise AttributeError(name)


def _ignore(*_args: object) -> None:
    return None


def _seconds(milliseconds: Any) -> float | None:
    """A Scala `Option[Long]` of epoch milliseconds, in seconds."""
    return int(milliseconds.get()) / 1000.0 if milliseconds.isDefined() else None


def _scala_context(context: SparkContext) -> Any:
    return context._jsc.sc()


def _task_outcome(reason: Any) -> tuple[ExecutionState, str | None] | None:
    """The state a task end means, with an error for failures; None to ignore it."""
    kind = str(reason.getClass().getSimpleName())
    if kind.startswith("Success"):
        return ExecutionState.FINISHED, None
    if kind.startswith("TaskKilled"):
        return ExecutionState.CANCELED, None
    if kind.startswith("Resubmitted"):
        return None  # a finished map task whose output was lost; it runs again
    # ExceptionFailure (the Python code raised), ExecutorLostFailure, FetchFailed, ...
    return ExecutionState.FAILED, python_error_text(str(reason.toErrorString()))
