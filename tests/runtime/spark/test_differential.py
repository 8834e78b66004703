"""Every way of running a pipeline gives the reference executor's run, on generated pipelines.

Each batch of random runnable pipelines (`tests.runtime.differential`) runs three times:
in the in-process reference executor (`runtime.local`), on Spark with every vertex in
Python, and on Spark with the SQL path on. All three must agree exactly on what a user
sees: the run's outcome, every subtask's final state with its records in and out (as the
monitor folds the published events), and every sink's records per subtask with their
previews in order, which is also the subtask every key landed on. A fast path is
admitted only through this test: a new one adds its executor here.

`make test` runs `DIFFERENTIAL_BATCHES` batches (default 6) of a fixed seed; `make
nightly` runs many more from a seed of the day, printed so that a failure can be run
again with `DIFFERENTIAL_SEED`. A difference is reported as the pipeline that shows it,
alone, as a document.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_document
from runtime.events import RunResult, SubtaskEvent
from runtime.local import run_locally
from runtime.plan import RunPlan
from runtime.planner import RunOptions, build_run_plan
from runtime.runnability import runnability
from runtime.spark.session import Session
from runtime.spark.sqlpath import choose, sql_session
from tests.runtime.differential import Case, Generator, alone, write_inputs
from tests.runtime.spark.conftest import monitor_of, run_spark

SEED = int(os.environ.get("DIFFERENTIAL_SEED", "25"))
BATCHES = int(os.environ.get("DIFFERENTIAL_BATCHES", "6"))
PIPELINES = int(os.environ.get("DIFFERENTIAL_PIPELINES", "8"))
"""Pipelines per batch: one Spark job runs them side by side."""


def batch_seed(batch: int) -> int:
    return SEED * 100_003 + batch


@dataclass
class Batch:
    document: dict[str, Any]
    cases: list[Case]
    plan: RunPlan
    data: Path
    options: RunOptions


def make_batch(batch: int, folder: Path) -> Batch:
    generator = Generator(batch_seed(batch))
    write_inputs(folder, generator.rng)
    document, cases = generator.batch(PIPELINES)
    problems = runnability(document)
    assert not problems, (problems, json.dumps(document, indent=1))
    compilation = compile_document(document)
    assert compilation.ok, compilation.diagnostics
    preview = random.Random(batch_seed(batch)).choice((10_000, 10_000, 6))
    options = RunOptions(data_dir=str(folder), preview_size=preview, seed=7)
    plan = build_run_plan(document, compilation, options)
    return Batch(document, cases, plan, folder, options)


@dataclass
class Observed:
    """What a user sees of a run."""

    outcome: str
    error: str | None
    subtasks: dict[tuple[str, int], tuple[str, int, int]]
    """(vertex, subtask) -> (state, records in, records out)."""
    sinks: dict[tuple[int, int], tuple[int, tuple[str, ...], bool]]
    """(sink node, subtask) -> (records, preview in order, truncated)."""


def observe(plan: RunPlan, result: RunResult, events: list[SubtaskEvent]) -> Observed:
    monitor = monitor_of(plan, events)
    subtasks = {}
    for vertex in plan.vertices:
        for subtask in range(vertex.parallelism):
            shown = monitor.subtask_json(vertex.id, subtask)
            state = monitor.subtask_state(vertex.id, subtask)
            subtasks[vertex.id, subtask] = (
                state.value,
                shown["recordsIn"],
                shown["recordsOut"],
            )
    sinks = {(s.node, s.subtask): (s.records, s.preview, s.truncated) for s in result.sinks}
    return Observed(result.outcome.value, result.error, subtasks, sinks)


def differences(plan: RunPlan, reference: Observed, other: Observed) -> dict[int, list[str]]:
    """Per node (a vertex's head, or a sink), what differs from the reference."""
    found: dict[int, list[str]] = {}
    heads = {v.id: v.head for v in plan.vertices}
    for key in sorted(set(reference.subtasks) | set(other.subtasks)):
        expected, got = reference.subtasks.get(key), other.subtasks.get(key)
        if expected != got:
            found.setdefault(heads[key[0]], []).append(
                f"subtask {key[1]} of {key[0]}: (state, in, out) {got}, reference {expected}"
            )
    for sink in sorted(set(reference.sinks) | set(other.sinks)):
        expected_sink, got_sink = reference.sinks.get(sink), other.sinks.get(sink)
        if expected_sink != got_sink:
            found.setdefault(sink[0], []).append(
                f"sink {sink[0]} subtask {sink[1]}: {_short(got_sink)}, "
                f"reference {_short(expected_sink)}"
            )
    return found


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 600 else text[:600] + "..."


def report(batch: Batch, path: str, reference: Observed, other: Observed) -> str:
    """The pipelines that differ, each alone as a document to run again."""
    if reference.outcome != other.outcome or reference.error != other.error:
        header = (
            f"{path}: the run {other.outcome} ({other.error}), the reference "
            f"{reference.outcome} ({reference.error})"
        )
        return header + "\n" + "\n".join(_case_text(batch, case, []) for case in batch.cases)
    found = differences(batch.plan, reference, other)
    lines = [f"{path} differs from the reference executor (seed {SEED}):"]
    for case in batch.cases:
        mine = [text for node in case.nodes for text in found.get(node, [])]
        if mine:
            lines.append(_case_text(batch, case, mine))
    return "\n".join(lines)


def _case_text(batch: Batch, case: Case, found: list[str]) -> str:
    document = json.dumps(alone(batch.document, case), ensure_ascii=False)
    return "\n".join(
        [f"- pipeline {case.number}: {'; '.join(case.notes)}", *found, f"  document: {document}"]
    )


@pytest.mark.parametrize("batch", range(BATCHES))
def test_every_path_gives_the_reference_run(
    spark: Session, run_events: Any, tmp_path: Path, viewfs: Callable[[Path], str], batch: int
) -> None:
    made = make_batch(batch, tmp_path)
    plan = made.plan
    local_events: list[SubtaskEvent] = []
    reference = observe(plan, run_locally(plan, local_events.append), local_events)
    paths = [("spark, all in Python", plan, False), ("spark with the SQL path", plan, True)]
    if batch % 2 == 0:  # the same files on a scheme only Hadoop's file systems reach
        options = replace(made.options, data_dir=viewfs(made.data))
        hadoop = build_run_plan(made.document, compile_document(made.document), options)
        paths.append(("spark with the SQL path on viewfs:", hadoop, True))
    for path, run_plan, sql in paths:
        log = run_events()
        result = run_spark(spark, run_plan, log, sql=sql)
        observed = observe(plan, result, log.settle())
        assert observed == reference, report(made, path, reference, observed)


def test_the_generated_pipelines_exercise_the_sql_path(spark: Session, tmp_path: Path) -> None:
    """The batches above hold pipelines the SQL path runs and ones it refuses for
    several reasons, so a gate that starts refusing everything cannot go unnoticed."""
    feeds = 0
    heads: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for batch in range(BATCHES):
        made = make_batch(batch, tmp_path / str(batch))
        choice = choose(made.plan, lambda: sql_session(spark.spark))
        feeds += len(choice.feeds)
        heads.update(f.consumer.node(f.consumer.head).kind for f in choice.feeds.values())
        reasons.update(reason.split(":")[-1].strip() for reason in choice.reasons.values())
    assert feeds >= BATCHES, (feeds, reasons)
    assert {"reduce", "count", "window.reduce", "window.aggregate"} <= set(heads), heads
    assert len(reasons) >= 8, reasons
