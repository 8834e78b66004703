"""Savepoint benchmark: reading `_metadata` files and checking a restore, as a request pays.

Prints the median milliseconds over interleaved repetitions of:

* reading each real Flink savepoint of `tests/compiler/data/savepoints`;
* checking the 1,000-operator plan of `tests/compiler/data/perf/large-1000` against a
  savepoint of 1,000 operator states written by that same plan (every state restores);
* the same against a version whose every OperatorID changed (its source got a uid),
  with unclaimed state allowed and the previous version given, so that every row is
  explained by what changed: the check's slowest path;
* once, the worst a file within the reader's caps can cost: `MAX_OPERATOR_STATES`
  operator states holding `MAX_SUBTASK_STATES` empty subtask states between them (44 MB,
  under the upload limit), printed, not held to a goal (a process reads it once).

Goal: reading the savepoints and the first check under 50 ms together. The plans are
compiled once beforehand; compiling is `compiler_bench`'s.

    python -m benchmarks.savepoint_bench [--repeat N]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compiler.pipeline import Compilation, compile_document
from compiler.state.restore import check_restore
from compiler.state.savepoint import (
    MAGIC,
    MAX_OPERATOR_STATES,
    MAX_SUBTASK_STATES,
    OperatorState,
    StateKind,
    StateSize,
    read_savepoint,
)

DATA = Path(__file__).resolve().parents[1] / "tests" / "compiler" / "data"
GOAL_MS = 50.0


def written_by(plan: Compilation) -> tuple[OperatorState, ...]:
    """The savepoint a run of `plan` leaves: keyed state for reducers, splits and an
    enumerator for sources, empty subtask states for every other operator."""
    assert plan.graph is not None and plan.execution is not None
    states = []
    for vertex in plan.execution.vertices:
        job_vertex = vertex.job_vertex
        for node, (generated, user) in zip(job_vertex.nodes, job_vertex.operator_ids, strict=True):
            operator = plan.graph.nodes[node].operator
            sizes: tuple[StateSize, ...] = ()
            if operator.startswith("source"):
                sizes = (
                    StateSize(StateKind.OPERATOR_LIST, 530),
                    StateSize(StateKind.COORDINATOR, 16),
                )
            elif operator == "reduce":
                sizes = (StateSize(StateKind.KEYED_MANAGED, 3253),)
            states.append(
                OperatorState(
                    operator_id=user if user is not None else generated,
                    name=plan.graph.nodes[node].name,
                    uid=plan.graph.nodes[node].uid,
                    parallelism=vertex.parallelism,
                    max_parallelism=vertex.max_parallelism,
                    subtasks=vertex.parallelism,
                    finished_subtasks=0,
                    fully_finished=False,
                    sizes=sizes,
                    has_state=bool(sizes),
                )
            )
    return tuple(states)


def at_the_caps() -> bytes:
    """A version 6 `_metadata` at both caps: every subtask state is present and empty (no
    operator or keyed handle, no channel state), the most entries its bytes can hold."""
    per_operator, extra = divmod(MAX_SUBTASK_STATES, MAX_OPERATOR_STATES)
    parts = [struct.pack(">iiqii", MAGIC, 6, 1, 0, MAX_OPERATOR_STATES)]
    empty = struct.pack(">iiBBii", 0, 0, 0, 0, 0, 0)
    for number in range(MAX_OPERATOR_STATES):
        subtasks = per_operator + (1 if number < extra else 0)
        # No name, no uid, the OperatorID, parallelism and max parallelism, no coordinator.
        parts.append(b"\0\0\0\0" + number.to_bytes(16, "big"))
        parts.append(struct.pack(">iiBi", subtasks, subtasks, 0, subtasks))
        parts.extend(struct.pack(">i", index) + empty for index in range(subtasks))
    parts.append(_real_properties())
    return b"".join(parts)


def _real_properties() -> bytes:
    """The checkpoint properties Flink wrote at the end of a real savepoint."""
    data = (DATA / "savepoints" / "counting.v1.savepoint").read_bytes()
    return data[data.rindex(b"\xac\xed\x00\x05") :]


def worst_case_read() -> None:
    data = at_the_caps()
    start = time.perf_counter()
    read = read_savepoint(data)
    elapsed = time.perf_counter() - start
    assert len(read.operators) == MAX_OPERATOR_STATES
    assert sum(o.subtasks for o in read.operators) == MAX_SUBTASK_STATES
    print(
        f"read a file at the caps ({MAX_OPERATOR_STATES} operator states, "
        f"{MAX_SUBTASK_STATES} subtask states, {len(data) / 2**20:.1f} MiB): "
        f"{elapsed * 1000:.0f} ms, once"
    )


def _reading(data: bytes) -> Callable[[], object]:
    return lambda: read_savepoint(data)


def _median_ms(runs: list[float]) -> str:
    return f"{statistics.median(runs):9.3f} [{min(runs):.3f}]"


def main(repeat: int) -> None:
    savepoints = {
        path.name: path.read_bytes() for path in sorted((DATA / "savepoints").glob("*.savepoint"))
    }
    document: dict[str, Any] = json.loads(
        (DATA / "perf" / "large-1000.streamgraph.json").read_text("utf-8")
    )
    rechained = copy.deepcopy(document)
    source = next(n for n in rechained["nodes"] if n["operator"].startswith("source"))
    source["uid"] = "numbers"  # its ID now comes from the uid: every ID downstream moves
    plan, changed = compile_document(document), compile_document(rechained)
    assert plan.ok and changed.ok
    states = written_by(plan)
    assert len(states) == 1000

    tasks: dict[str, Callable[[], object]] = {
        **{f"read {name}": _reading(data) for name, data in savepoints.items()},
        "check 1,000 states, all restore": lambda: check_restore(states, plan),
        "check 1,000 states, all lost": lambda: check_restore(
            states, changed, allow_non_restored_state=True, previous=plan
        ),
    }
    for task in tasks.values():  # warm-up
        task()
    runs: dict[str, list[float]] = {name: [] for name in tasks}
    for _ in range(repeat):
        for name, task in tasks.items():
            start = time.perf_counter()
            task()
            runs[name].append((time.perf_counter() - start) * 1000.0)

    restored = check_restore(states, plan)
    lost = check_restore(states, changed, allow_non_restored_state=True, previous=plan)
    assert restored.restores and {o.outcome for o in restored.operators} == {"restored"}
    assert {o.outcome for o in lost.operators} <= {"lost", "empty"}

    print(f"Savepoints, median ms over {repeat} interleaved runs (min in brackets)")
    for name in tasks:
        print(f"{name:<44}{_median_ms(runs[name])}")
    together = sum(
        statistics.median(runs[name])
        for name in tasks
        if name.startswith("read ") or name == "check 1,000 states, all restore"
    )
    verdict = "within" if together < GOAL_MS else "OVER"
    print(f"read every savepoint + check 1,000 states: {together:.3f} ms ({verdict} the goal)")
    print(f"goal: under {GOAL_MS:.0f} ms together")
    worst_case_read()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    main(parser.parse_args().repeat)
