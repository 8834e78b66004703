"""Spark runtime benchmark: the studio's word count against hand-written PySpark, and
how late subtask state changes reach a run monitor websocket.

1. Throughput. A word count over a generated text file (default 100 MiB: a seeded
   vocabulary of 20,000 words drawn Zipf-like, 10 words a line) four ways, on the
   same master and the same file, interleaved round by round (studio, studio Python,
   RDD, DataFrame, studio, ...), because the machine is shared and noisy:

   - studio: a saved `streamgraph/v1` pipeline in BATCH mode, `source.text` ->
     `flat_map` (`x.lower().split()`) -> `map` (`(x, 1)`) -> HASH on `x[0]` ->
     `reduce` (`(a[0], a[1] + b[1])`) -> `sink.collect`, run through the product: a live
     `manage.py serve` (uvicorn, its Celery worker and that worker's Spark session), a
     throwaway SQLite database, Redis. Timed from the REST `POST .../runs/` to the
     websocket update that says FINISHED; the executor's own time (`details.seconds`,
     from the start of `run_on_spark` to its return) is printed beside it. Its two
     vertices run as Spark SQL (`runtime/spark/sqlpath.py`).
   - studio Python: the same through a second server with `RUN_SPARK_SQL=0`, every
     vertex its Python chain; both studio runs must give the same subtask states,
     records in and out, and sink outputs.
   - RDD: the same job by hand with the same keyBy placement (`wordcount_programs`).
   - DataFrame: `explode(split(lower))` -> `groupBy` -> `count` (Spark SQL).

   The hand-written programs run in this process's own Spark session, built like the
   worker's (`runtime.spark.session`); both sessions are warmed by a small run first.
   Source, reduce and RDD partitions are all `--parallelism`. Printed: every wall time,
   the CPU seconds of the process tree that did the work (the server's, or this
   process's without the server), medians, the ratios of both studio paths to RDD and
   DataFrame (of the medians, and per round) with the goal studio / DataFrame <= 1.5
   in wall and CPU time, the load average, and whether the results agree (total and
   distinct words, every word's count between RDD and DataFrame; each studio run's sink
   previews, per-subtask key counts and Flink's key placement).

   Then the scaling cost: a smaller file (`--scaling-mb`, 20 MiB) counted by both
   studio paths at parallelism 1, 2, 4 and 8, and through a chain of 50 operators
   (source, split, pair, 45 maps that pass the pair on, reduce, sink), one run each.

2. Shapes. The pipelines users write beyond the word count (`benchmarks.shapes`: a keyed
   count, the word count in STREAMING mode, a split with an index and `int()`, arithmetic
   over a sequence, event-time windows), each through the same server with its SQL path
   on and as the DataFrame program a person would write, interleaved round by round
   (`--shape-mb` inputs, default 100 MiB, and `--shape-rounds`). Printed: per shape the
   ratio studio / DataFrame of the median wall and CPU times against the goal <= 1.5,
   which engines ran its vertices, and whether the studio's records and every previewed
   one match the hand-written answer.

3. Latency. Runs of a 4-vertex pipeline at parallelism 8 (32 subtasks) through the
   same kind of server, on SQLite and, when reachable, on a throwaway PostgreSQL
   database. A websocket client notes the wall-clock time it reads each `run_update`;
   afterwards the run's stored journal says which `SubtaskEvent`s every entry folded.
   For each change of a subtask's state (or attempt) that the client sees, the latency
   is the time it read the update minus the `timestamp` of the event that reported that
   state: taken with `time.time()` by the Python worker's hook or by the driver's
   listener (Spark's own task launch and end times), all on this machine's clock.

    python -m benchmarks.spark_bench [--size-mb 100] [--rounds 3] [--parallelism 4]
        [--scaling-mb 20] [--shape-mb 100] [--shape-rounds 3] [--latency-runs 5]
        [--no-throughput] [--no-shapes] [--no-latency] [--postgres-url URL]

Quick run: `--size-mb 20 --rounds 1 --scaling-mb 5 --shape-mb 5 --shape-rounds 1`. The
input files are written once into `var/bench/` (named by their parameters) and reused;
each server has a data folder of
its own (`RUNTIME_DATA_DIR`) and reads them, hard-linked, in its workspace's folder there.
Needs Redis at `REDIS_URL` and Java for Spark.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import shutil
import statistics
import string
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.shapes import Shape, check, edge, events_file, node, sequence_numbers, shapes
from benchmarks.studio import REPO, Followed, Studio, follow, server_environment, serving
from benchmarks.wordcount_programs import (
    FlinkKeyGroups,
    dataframe_word_count,
    rdd_word_count,
)

BENCH_DIR = REPO / "var" / "bench"
WORDS_PER_LINE = 10
WARM_UP_MB = 2
RATIO_GOAL = 1.15
LATENCY_GOAL_MS = 250.0
DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"


# The text file -------------------------------------------------------------------------------


def vocabulary(rng: random.Random, size: int) -> list[str]:
    """`size` distinct lower-case words of 3 to 10 letters, in rank order."""
    words: dict[str, None] = {}
    while len(words) < size:
        length = rng.randint(3, 10)
        words["".join(rng.choices(string.ascii_lowercase, k=length))] = None
    return list(words)


def words_file(size_mb: int, words: int, seed: int) -> Path:
    """The text file of these parameters in `var/bench/`, written if missing.

    Lines of `WORDS_PER_LINE` words drawn with Zipf weights (rank r has weight 1/r),
    the first word of a line capitalised (so `lower()` has work), until the file
    holds `size_mb` MiB.
    """
    path = BENCH_DIR / f"words-{size_mb}mib-{words}w-{WORDS_PER_LINE}pl-seed{seed}.txt"
    if path.exists():
        return path
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    vocab = vocabulary(rng, words)
    weights = list(itertools.accumulate(1.0 / rank for rank in range(1, words + 1)))
    target = size_mb << 20
    written, started, reported = 0, time.monotonic(), 0
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    print(f"Writing {path.name} ({size_mb} MiB) ...", flush=True)
    with partial.open("w", encoding="ascii", newline="\n") as out:
        while written < target:
            drawn = rng.choices(vocab, cum_weights=weights, k=WORDS_PER_LINE * 1000)
            lines = []
            for start in range(0, len(drawn), WORDS_PER_LINE):
                line = drawn[start : start + WORDS_PER_LINE]
                line[0] = line[0].capitalize()
                lines.append(" ".join(line))
            block = "\n".join(lines) + "\n"
            out.write(block)
            written += len(block)
            if written - reported >= 20 << 20:
                reported = written
                print(f"  {written >> 20} MiB, {time.monotonic() - started:.0f} s", flush=True)
    partial.rename(path)
    return path


def count_lines(path: Path) -> int:
    with path.open("rb") as stream:
        return sum(block.count(b"\n") for block in iter(lambda: stream.read(1 << 22), b""))


# CPU time of process trees --------------------------------------------------------------------


Process = tuple[int, int]
"""A process: (pid, start time in clock ticks since boot), so a reused pid is another."""


def _processes() -> dict[int, tuple[int, Process, float]]:
    """pid -> (parent pid, the process, its own CPU seconds so far)."""
    tick = os.sysconf("SC_CLK_TCK")
    table: dict[int, tuple[int, Process, float]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                text = stat.read().decode(errors="replace")
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()
        # Fields 4, 14, 15 and 22 of proc(5): ppid, utime, stime, starttime.
        pid = int(entry.name)
        cpu = (int(fields[11]) + int(fields[12])) / tick
        table[pid] = (int(fields[1]), (pid, int(fields[19])), cpu)
    return table


def _tree(root: int, without: int | None) -> dict[Process, float]:
    """CPU seconds so far of `root` and each of its descendants (not the `without` subtree)."""
    table = _processes()
    children: dict[int, list[int]] = defaultdict(list)
    for pid, (parent, _, _) in table.items():
        children[parent].append(pid)
    result: dict[Process, float] = {}
    stack = [root]
    while stack:
        pid = stack.pop()
        if pid == without or pid not in table:
            continue
        _, process, cpu = table[pid]
        result[process] = cpu
        stack.extend(children[pid])
    return result


class CpuMeter:
    """CPU seconds a process tree uses during a `with` block.

    Own times only, sampled every `period` seconds: Spark's Python worker daemon ignores
    SIGCHLD, so the time of a worker that exits is never added to a parent's children
    times; a process that ends between samples loses at most its last `period`.
    """

    def __init__(self, root: int, *, without: int | None = None, period: float = 1.0) -> None:
        self.root, self.without, self.period = root, without, period
        self.first: dict[Process, float] = {}
        self.last: dict[Process, float] = {}
        self.seconds = float("nan")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="cpu-meter", daemon=True)

    def __enter__(self) -> CpuMeter:
        if Path("/proc/self/stat").exists():
            self.first = _tree(self.root, self.without)
            self.last = dict(self.first)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._thread.is_alive():
            return
        self._stop.set()
        self._thread.join()
        self.last.update(_tree(self.root, self.without))
        self.seconds = sum(cpu - self.first.get(p, 0.0) for p, cpu in self.last.items())

    def _sample(self) -> None:
        while not self._stop.wait(self.period):
            self.last.update(_tree(self.root, self.without))


def load() -> float:
    return os.getloadavg()[0]


# Pipelines ------------------------------------------------------------------------------------


def word_count_document(path: str, parallelism: int) -> dict[str, Any]:
    return {
        "format": "streamgraph/v1",
        "name": "bench word count",
        "config": {"defaultParallelism": parallelism, "runtimeMode": "BATCH"},
        "nodes": [
            node(1, "Source: Text File", "source.text", path=path),
            node(2, "FlatMap", "flat_map", fn="x.lower().split()"),
            node(3, "Map", "map", fn="(x, 1)"),
            node(4, "Reduce", "reduce", fn="(a[0], a[1] + b[1])"),
            node(5, "Sink: Collect", "sink.collect"),
        ],
        "edges": [
            edge(1, 2, "FORWARD"),
            edge(2, 3, "FORWARD"),
            edge(3, 4, "HASH", key="x[0]"),
            edge(4, 5, "FORWARD"),
        ],
    }


def chain_document(path: str, parallelism: int, operators: int) -> dict[str, Any]:
    """Word count whose chain has `operators` operators in all: source, split, pair, then
    maps that pass the pair on, reduce and sink."""
    maps = operators - 5
    nodes = [
        node(1, "Source: Text File", "source.text", path=path),
        node(2, "FlatMap", "flat_map", fn="x.lower().split()"),
        node(3, "Map", "map", fn="(x, 1)"),
    ]
    nodes += [node(10 + i, f"Map {i}", "map", fn="(x[0], x[1] * 1)") for i in range(maps)]
    last = 10 + maps - 1 if maps else 3
    nodes += [
        node(4, "Reduce", "reduce", fn="(a[0], a[1] + b[1])"),
        node(5, "Sink: Collect", "sink.collect"),
    ]
    edges = [edge(1, 2, "FORWARD"), edge(2, 3, "FORWARD")]
    edges += [edge(3 if i == 0 else 9 + i, 10 + i, "FORWARD") for i in range(maps)]
    edges += [edge(last, 4, "HASH", key="x[0]"), edge(4, 5, "FORWARD")]
    return {
        "format": "streamgraph/v1",
        "name": f"bench chain of {operators}",
        "config": {"defaultParallelism": parallelism, "runtimeMode": "BATCH"},
        "nodes": nodes,
        "edges": edges,
    }


def latency_document(records: int, parallelism: int) -> dict[str, Any]:
    """Four vertices: numbers + map | rebalance | filter | keyBy | reduce | rebalance | map +
    sink, each with `parallelism` subtasks."""
    return {
        "format": "streamgraph/v1",
        "name": "bench latency",
        "config": {"defaultParallelism": parallelism, "runtimeMode": "BATCH"},
        "nodes": [
            node(1, "Source: Numbers", "source.sequence", **{"from": 1, "to": records}),
            node(2, "Map", "map", fn="(x % 1000, x)"),
            node(3, "Filter", "filter", predicate="x[1] % 7 != 0"),
            node(4, "Reduce", "reduce", fn="(a[0], a[1] + b[1])"),
            node(5, "Map", "map", fn="(x[0], x[1] % 1000003)"),
            node(6, "Sink: Collect", "sink.collect"),
        ],
        "edges": [
            edge(1, 2, "FORWARD"),
            edge(2, 3, "REBALANCE"),
            edge(3, 4, "HASH", key="x[0]"),
            edge(4, 5, "REBALANCE"),
            edge(5, 6, "FORWARD"),
        ],
    }


# Figures -------------------------------------------------------------------------------------


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[round(fraction * (len(ordered) - 1))]


@dataclass
class Timing:
    wall: float
    cpu: float
    executor: float | None = None


@dataclass
class Round:
    timings: dict[str, Timing] = field(default_factory=dict)


JOBS = ("studio", "studio Python", "RDD", "DataFrame")
"""`studio`: the vertices that translate run as Spark SQL (the default); `studio Python`:
a second server with `RUN_SPARK_SQL=0`, every vertex's Python chain."""
SQL_GOAL = 1.5
"""studio / DataFrame, wall and CPU (issue 17)."""
SCALING_PARALLELISM = (1, 2, 4, 8)
CHAIN_OPERATORS = 50


# Throughput ----------------------------------------------------------------------------------


@dataclass
class StudioPipeline:
    studio: Studio
    server_pid: int
    pipeline: int

    def run(self, path: str | None = None) -> tuple[Timing, dict[str, Any]]:
        """A run of the saved version; `path`: its source node 1 reads this file."""
        with CpuMeter(self.server_pid) as cpu:
            started = time.perf_counter()
            params = None if path is None else {"1": {"path": path}}
            run = self.studio.start_run(self.pipeline, params)
            followed = asyncio.run(follow(self.studio.host, self.studio.token, run))
            wall = followed.ended_at - started
        detail = self.studio.run_detail(run)
        if detail["status"] != "FINISHED":
            raise RuntimeError(
                f"the studio's run {run} ended {detail['status']}: {detail['error']}"
            )
        return Timing(wall, cpu.seconds, detail["details"].get("seconds")), detail


@dataclass
class HandWritten:
    spark: Any
    server_pid: int

    def run(
        self, program: Callable[[Any, str, int], list[tuple[str, int]]], path: Path, p: int
    ) -> tuple[Timing, list[tuple[str, int]]]:
        with CpuMeter(os.getpid(), without=self.server_pid) as cpu:
            started = time.perf_counter()
            result = program(self.spark, path.resolve().as_uri(), p)
            wall = time.perf_counter() - started
        return Timing(wall, cpu.seconds), result


def hand_written(args: argparse.Namespace, name: str, server_pid: int) -> HandWritten:
    """This process's Spark session for the hand-written programs, built like the worker's."""
    from runtime.spark.session import SparkSettings, get_session

    settings = SparkSettings(
        master=args.master,
        app_name=f"StreamGraph bench: {name}",
        python_path=(str(REPO),),
        # Local files in `parallelism` byte ranges, as the studio's text source reads them
        # (Hadoop splits at the 32 MiB local block size otherwise).
        conf=(("spark.hadoop.fs.local.block.size", str(1 << 40)),),
    )
    return HandWritten(get_session(settings).spark, server_pid)


def verify(
    detail: dict[str, Any],
    rdd: list[tuple[str, int]],
    dataframe: list[tuple[str, int]],
    parallelism: int,
) -> list[str]:
    """What differs between the three results (nothing: an empty list)."""
    problems: list[str] = []
    counts = dict(rdd)
    if len(counts) != len(rdd):
        problems.append("the RDD program returned a word twice (placement differs by key)")
    if dict(dataframe) != counts:
        differing = sum(1 for w, c in dataframe if counts.get(w) != c)
        problems.append(f"RDD and DataFrame differ on {differing} words")
    reduce = next(v for v in detail["vertices"] if v["name"].startswith("Reduce"))
    if reduce["recordsIn"] != sum(counts.values()):
        problems.append(
            f"the studio's reduce read {reduce['recordsIn']} words, the RDD program counted "
            f"{sum(counts.values())}"
        )
    placement = FlinkKeyGroups(parallelism)
    per_subtask = Counter(placement(word) for word in counts)
    previewed: dict[str, int] = {}
    for sink in detail["sinks"]:
        if sink["records"] != per_subtask[sink["subtask"]]:
            problems.append(
                f"the studio's sink subtask {sink['subtask']} has {sink['records']} words, "
                f"Flink's key groups place {per_subtask[sink['subtask']]} there"
            )
        for text in sink["preview"]:
            word, count = json.loads(text)
            previewed[word] = count
            if counts.get(word) != count or placement(word) != sink["subtask"]:
                problems.append(
                    f"the studio counted {word!r} {count} times in subtask {sink['subtask']}; "
                    f"the RDD program {counts.get(word)}"
                )
    top = sorted(counts, key=lambda w: -counts[w])[:10]
    missing = [word for word in top if word not in previewed]
    if missing:
        problems.append(f"top words not in the studio's previews: {missing}")
    return problems


def workspace_file(data_dir: Path, workspace: int, source: Path) -> None:
    """Put `source` in the workspace's data folder under its own name, where the studio's
    runs read (a hard link; a copy across file systems)."""
    folder = data_dir / "workspaces" / str(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    if target.exists():
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


@dataclass
class Server:
    host: str
    pid: int
    studio: Studio
    data_dir: Path


def throughput(args: argparse.Namespace, sql: Server, python: Server) -> int:
    """The interleaved word count rounds; the number of problems found in the results."""
    path = words_file(args.size_mb, args.words, args.seed)
    warm = words_file(WARM_UP_MB, args.words, args.seed)
    scaled = words_file(args.scaling_mb, args.words, args.seed)
    for server in (sql, python):
        for file in (path, warm, scaled):
            workspace_file(server.data_dir, server.studio.workspace, file)
    p = args.parallelism
    lines = count_lines(path)
    print(
        f"\nWord count over {path.name}: {path.stat().st_size / 1e6:.1f} MB, {lines:,} lines; "
        f"master {args.master}, parallelism {p} (source, reduce, RDD partitions)"
    )
    studios = {
        "studio": StudioPipeline(
            sql.studio, sql.pid, sql.studio.saved_pipeline(word_count_document(path.name, p))
        ),
        "studio Python": StudioPipeline(
            python.studio,
            python.pid,
            python.studio.saved_pipeline(word_count_document(path.name, p)),
        ),
    }

    from runtime.spark.session import stop_session

    print("Warming up: the workers' Spark sessions and this process's ...", flush=True)
    warm_started = time.perf_counter()
    for word_count in studios.values():
        word_count.run(warm.name)
    hand = hand_written(args, "hand-written", sql.pid)
    for program in (rdd_word_count, dataframe_word_count):
        hand.run(program, warm, p)
    print(f"  {time.perf_counter() - warm_started:.1f} s", flush=True)

    rounds: list[Round] = []
    results: dict[str, Any] = {}
    load_start = os.getloadavg()
    try:
        for number in range(1, args.rounds + 1):
            current = Round()
            rounds.append(current)
            for job in JOBS:
                load_now = load()
                if job in studios:
                    timing, results[job] = studios[job].run(path.name)
                elif job == "RDD":
                    timing, results[job] = hand.run(rdd_word_count, path, p)
                else:
                    timing, results[job] = hand.run(dataframe_word_count, path, p)
                current.timings[job] = timing
                executor = (
                    f"  (executor {timing.executor:.2f} s)" if timing.executor is not None else ""
                )
                print(
                    f"  round {number}  {job:<10}{timing.wall:8.2f} s wall  "
                    f"{timing.cpu:7.1f} CPU-s  load {load_now:4.1f}{executor}",
                    flush=True,
                )
    finally:
        stop_session()
    load_end = os.getloadavg()

    print(f"\nWord count, {args.rounds} interleaved rounds (medians; CPU-s of the process tree)")
    print(f"{'job':<12}{'wall s':>9}{'CPU-s':>9}  {'walls':<30}")
    medians: dict[str, float] = {}
    cpu_medians: dict[str, float] = {}
    for job in JOBS:
        walls = [r.timings[job].wall for r in rounds]
        medians[job] = statistics.median(walls)
        cpu_medians[job] = statistics.median(r.timings[job].cpu for r in rounds)
        listed = " / ".join(f"{w:.1f}" for w in walls)
        print(f"{job:<12}{medians[job]:9.2f}{cpu_medians[job]:9.1f}  {listed:<30}")
    executors = [r.timings["studio"].executor for r in rounds]
    if all(e is not None for e in executors):
        executor_median = statistics.median(e for e in executors if e is not None)
        print(
            f"{'  executor':<12}{executor_median:9.2f}{'':9}  "
            f"(run_on_spark alone; the rest is queue, plan, journal, websocket)"
        )
    for job, other, goal in (
        ("studio", "DataFrame", SQL_GOAL),
        ("studio", "RDD", RATIO_GOAL),
        ("studio Python", "DataFrame", None),
        ("studio Python", "RDD", RATIO_GOAL),
    ):
        per_round = " / ".join(f"{r.timings[job].wall / r.timings[other].wall:.2f}" for r in rounds)
        wall_ratio = medians[job] / medians[other]
        cpu_ratio = cpu_medians[job] / cpu_medians[other]
        goal_text = ""
        if goal:
            met = "met" if wall_ratio <= goal and cpu_ratio <= goal else "NOT met"
            goal_text = f"   goal <= {goal:.2f} wall and CPU: {met}"
        print(
            f"{job} / {other:<10} {wall_ratio:5.2f} of medians "
            f"(per round {per_round}); CPU-s {cpu_ratio:.2f}{goal_text}"
        )
    print(
        f"load average (1, 5, 15 min): start {' '.join(f'{x:.1f}' for x in load_start)}, "
        f"end {' '.join(f'{x:.1f}' for x in load_end)}; {os.cpu_count()} cores"
    )
    for job in studios:
        engines = results[job]["details"].get("engines", {})
        print(f"The {job} run's vertices in its last round (first subtask start to last end):")
        for vertex in results[job]["vertices"]:
            print(
                f"  {vertex['name']:<40}{vertex['parallelism']:>3} subtasks"
                f"{vertex['recordsIn']:>13,} in{vertex['recordsOut']:>13,} out"
                f"{vertex['endTime'] - vertex['startTime']:9.2f} s  "
                f"{engines.get(vertex['id'], '?')}"
            )
    same = _same_runs(results["studio"], results["studio Python"])
    print(
        "Both studio paths: "
        + ("the same records in and out per subtask, states and sink output" if not same else "")
        + "; ".join(same)
    )

    problems = same + verify(results["studio"], results["RDD"], results["DataFrame"], p)
    problems += verify(results["studio Python"], results["RDD"], results["DataFrame"], p)
    counts = dict(results["RDD"])
    if problems:
        print("RESULTS DIFFER (the comparison is void):")
        for problem in problems:
            print(f"  {problem}")
    else:
        previews = sum(len(s["preview"]) for s in results["studio"]["sinks"])
        print(
            f"Results agree: {sum(counts.values()):,} words, {len(counts):,} distinct; "
            f"RDD = DataFrame for every word; the studio's {previews} previewed counts, "
            f"its words per subtask and their placement match (top 10 words included)"
        )
    scaling(args, scaled, sql, python)
    return len(problems)


def _same_runs(sql: dict[str, Any], python: dict[str, Any]) -> list[str]:
    """What differs between the two paths' runs of one pipeline (an empty list: nothing)."""

    def subtasks(run: dict[str, Any]) -> list[tuple[Any, ...]]:
        fields = ("vertex", "index", "state", "recordsIn", "recordsOut")
        return sorted(tuple(s.get(f) for f in fields) for s in run["subtasks"])

    def sinks(run: dict[str, Any]) -> list[tuple[Any, ...]]:
        fields = ("node", "subtask", "records", "preview", "truncated")
        return sorted(tuple(json.dumps(s.get(f)) for f in fields) for s in run["sinks"])

    problems = []
    if subtasks(sql) != subtasks(python):
        problems.append("their subtasks' states or records in and out differ")
    if sinks(sql) != sinks(python):
        problems.append("their sinks' outputs differ")
    return problems


def scaling(args: argparse.Namespace, path: Path, sql: Server, python: Server) -> None:
    """The same input at parallelism 1, 2, 4, 8, and through a chain of 50 operators,
    through both paths (one run each, the paths interleaved)."""
    servers = {"SQL": sql, "Python": python}
    print(
        f"\nScaling: word count over {path.name} ({path.stat().st_size / 1e6:.1f} MB), "
        "one run per row and path, wall s / CPU-s of the server"
    )
    print(f"{'':<24}{'SQL':>18}{'Python':>18}{'Python / SQL':>14}")
    cases = [(f"parallelism {p}", word_count_document(path.name, p)) for p in SCALING_PARALLELISM]
    cases.append(
        (
            f"{CHAIN_OPERATORS} operators, p {args.parallelism}",
            chain_document(path.name, args.parallelism, CHAIN_OPERATORS),
        )
    )
    for label, document in cases:
        timings = {}
        for name, server in servers.items():
            pipeline = server.studio.saved_pipeline(document)
            timing, detail = StudioPipeline(server.studio, server.pid, pipeline).run(path.name)
            timings[name] = timing
            if name == "SQL":
                engines = set(detail["details"].get("engines", {}).values())
        cells = "".join(f"{t.wall:9.2f} /{t.cpu:6.1f}" for t in timings.values())
        ratio = timings["Python"].wall / timings["SQL"].wall
        print(f"{label:<24}{cells}{ratio:12.2f}x  (SQL run: {', '.join(sorted(engines))})")


# Shapes --------------------------------------------------------------------------------------


def _by_hand(shape: Shape, *, answer: bool) -> Callable[[Any, str, int], list[tuple[Any, Any]]]:
    """The shape's DataFrame job: run to its end and dropped, as a job that writes its
    result runs (timed: the studio keeps only previews), or collected (`answer`, untimed,
    to check the studio's records)."""

    def program(spark: Any, uri: str, p: int) -> list[tuple[Any, Any]]:
        spark.conf.set("spark.sql.files.minPartitionNum", str(p))
        spark.conf.set("spark.sql.shuffle.partitions", str(p))
        frame = shape.dataframe(spark, uri, p)
        if answer:
            return [tuple(row) for row in frame.collect()]
        frame.write.format("noop").mode("overwrite").save()
        return []

    return program


def shape_rounds(args: argparse.Namespace, sql: Server) -> int:
    """Each shape of `benchmarks.shapes` in the studio (its SQL path on) and by hand with
    DataFrames, interleaved round by round; the number of problems in the results."""
    p = args.parallelism
    inputs = {
        "words": words_file(args.shape_mb, args.words, args.seed),
        "events": events_file(BENCH_DIR, args.shape_mb, args.seed),
    }
    warm_inputs = {
        "words": words_file(WARM_UP_MB, args.words, args.seed),
        "events": events_file(BENCH_DIR, WARM_UP_MB, args.seed),
    }
    for file in (*inputs.values(), *warm_inputs.values()):
        workspace_file(sql.data_dir, sql.studio.workspace, file)
    numbers = sequence_numbers(args.shape_mb)
    print(
        f"\nShapes: {args.shape_mb} MiB inputs ({inputs['words'].name}, "
        f"{inputs['events'].name}), {numbers:,} numbers; parallelism {p}; studio (SQL path "
        f"on) against the DataFrame program by hand, {args.shape_rounds} interleaved rounds"
    )
    from runtime.spark.session import stop_session

    hand = hand_written(args, "shapes by hand", sql.pid)
    listed = shapes(args.shape_mb)
    studios: list[StudioPipeline] = []
    warm_studios: list[StudioPipeline] = []
    for shape, warm in zip(listed, shapes(WARM_UP_MB), strict=True):
        for target, files, chosen in ((studios, inputs, shape), (warm_studios, warm_inputs, warm)):
            name = files[chosen.input].name if chosen.input != "none" else ""
            pipeline = sql.studio.saved_pipeline(chosen.document(name, p))
            target.append(StudioPipeline(sql.studio, sql.pid, pipeline))
    print("Warming up ...", flush=True)
    for shape, studio in zip(listed, warm_studios, strict=True):
        studio.run()
        hand.run(_by_hand(shape, answer=False), warm_inputs.get(shape.input, Path(".")), p)
    timings: dict[tuple[str, str], list[Timing]] = defaultdict(list)
    details: dict[str, dict[str, Any]] = {}
    answers: dict[str, list[tuple[Any, Any]]] = {}
    try:
        for number in range(1, args.shape_rounds + 1):
            for shape, studio in zip(listed, studios, strict=True):
                timing, details[shape.label] = studio.run()
                timings[shape.label, "studio"].append(timing)
                path = inputs.get(shape.input, Path("."))
                mine, _ = hand.run(_by_hand(shape, answer=False), path, p)
                timings[shape.label, "DataFrame"].append(mine)
                print(
                    f"  round {number}  {shape.label:<40} studio {timing.wall:6.2f} s "
                    f"{timing.cpu:5.1f} CPU-s (executor {timing.executor or 0:5.2f} s)   "
                    f"DataFrame {mine.wall:6.2f} s {mine.cpu:5.1f} CPU-s   load {load():4.1f}",
                    flush=True,
                )
        for shape in listed:
            path = inputs.get(shape.input, Path("."))
            _, answers[shape.label] = hand.run(_by_hand(shape, answer=True), path, p)
    finally:
        stop_session()
    print(f"\n{'shape':<40}{'studio / DataFrame wall':>24}{'CPU':>8}  goal <= {SQL_GOAL}  engines")
    problems: list[str] = []
    for shape in listed:
        studio_runs, hand_runs = timings[shape.label, "studio"], timings[shape.label, "DataFrame"]
        wall = statistics.median(t.wall for t in studio_runs) / statistics.median(
            t.wall for t in hand_runs
        )
        cpu = statistics.median(t.cpu for t in studio_runs) / max(
            statistics.median(t.cpu for t in hand_runs), 1e-9
        )
        met = "met" if wall <= SQL_GOAL and cpu <= SQL_GOAL else "NOT met"
        engines = details[shape.label]["details"].get("engines", {})
        paths = "+".join(sorted(set(engines.values())))
        print(f"{shape.label:<40}{wall:24.2f}{cpu:8.2f}  {met:<11}{paths}")
        problems += check(shape, details[shape.label], answers[shape.label])
    if problems:
        print("RESULTS DIFFER (the comparison is void):")
        for problem in problems:
            print(f"  {problem}")
    else:
        print("Results agree: every shape's records, and every previewed one, match by hand")
    return len(problems)


# Latency -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    ms: float
    """From the event's timestamp to the client reading the update that carried it."""
    stored_ms: float
    """From the event's timestamp to the creation of the journal entry holding it."""
    state: str
    source: str


def visible_changes(followed: Followed, journal: list[dict[str, Any]]) -> tuple[list[Sample], int]:
    """Latency of every subtask state change the client saw, and how many changes had no
    reported event (states the worker inferred at the run's end)."""
    events = {entry["seq"]: entry["events"] for entry in journal}
    stored = {
        entry["seq"]: datetime.fromisoformat(entry["createdAt"]).timestamp() for entry in journal
    }
    seen = {
        (s["vertex"], s["subtask"]): (s["attempt"], s["state"])
        for s in followed.snapshot["subtasks"]
    }
    samples, inferred = [], 0
    for received, update in followed.updates:
        for subtask in update["subtasks"]:
            key = (subtask["vertex"], subtask["subtask"])
            now = (subtask["attempt"], subtask["state"])
            if seen.get(key) == now:
                continue  # new record counts only
            seen[key] = now
            reported = [
                event
                for event in events.get(update["seq"], [])
                if (event["vertex"], event["subtask"], event["attempt"], event["state"])
                == (*key, *now)
                and event["source"] != "monitor"
            ]
            if not reported:
                inferred += 1
                continue
            first = min(reported, key=lambda event: event["timestamp"])
            happened = first["timestamp"]
            samples.append(
                Sample(
                    (received - happened) * 1000,
                    (stored[update["seq"]] - happened) * 1000,
                    now[1],
                    first["source"],
                )
            )
    return samples, inferred


def latency(args: argparse.Namespace, database: str, host: str, studio: Studio) -> None:
    p, records = args.latency_parallelism, args.latency_records
    pipeline = studio.saved_pipeline(latency_document(records, p))
    warm = studio.start_run(pipeline, {"1": {"to": 1000}})  # warms the worker's Spark session
    asyncio.run(follow(host, studio.token, warm))
    samples: list[Sample] = []
    inferred, walls, subtasks = 0, [], 0
    load_start = load()
    for _ in range(args.latency_runs):
        started = time.perf_counter()
        run = studio.start_run(pipeline)
        followed = asyncio.run(follow(host, studio.token, run))
        walls.append(followed.ended_at - started)
        if followed.status != "FINISHED":
            print(f"  run {run} ended {followed.status}")
        subtasks = len(followed.snapshot["subtasks"])
        found, unreported = visible_changes(followed, studio.journal(run))
        samples += found
        inferred += unreported
    print(
        f"\nSubtask state change -> websocket client, {database}: {args.latency_runs} runs of "
        f"{subtasks} subtasks ({records:,} records, runs took "
        f"{' / '.join(f'{w:.1f}' for w in walls)} s), load {load_start:.1f} -> {load():.1f}"
    )
    if not samples:
        print("  no state changes seen")
        return
    print(f"{'changes':<26}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")

    def line(label: str, values: list[float], goal: str = "") -> None:
        print(
            f"{label:<26}{len(values):>7}{percentile(values, 0.5):9.1f}"
            f"{percentile(values, 0.95):9.1f}{max(values):9.1f}{goal}"
        )

    line("all", [s.ms for s in samples], f"   goal p95 <= {LATENCY_GOAL_MS:.0f}")
    for source in sorted({s.source for s in samples}):
        line(f"  reported by {source}", [s.ms for s in samples if s.source == source])
    for state in ("SCHEDULED", "DEPLOYING", "INITIALIZING", "RUNNING", "FINISHED", "FAILED"):
        values = [s.ms for s in samples if s.state == state]
        if values:
            line(f"  to {state}", values)
    line("event -> entry stored", [s.stored_ms for s in samples])
    line("entry stored -> client", [s.ms - s.stored_ms for s in samples])
    if inferred:
        print(f"  ({inferred} changes carried no reported event: inferred at the run's end)")


# Databases and servers -----------------------------------------------------------------------


@contextmanager
def postgres_database(url: str) -> Iterator[str | None]:
    """A new empty database on the server of `url`, dropped afterwards; None if the
    server cannot be reached."""
    try:
        import psycopg

        admin = psycopg.connect(url, autocommit=True, connect_timeout=3)
    except Exception as error:
        print(f"\nPostgreSQL at {url} not reachable ({type(error).__name__}); skipped")
        yield None
        return
    name = f"streamgraph_bench_{uuid.uuid4().hex[:10]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            base, _, _ = url.rpartition("/")
            yield f"{base}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def studio_server(
    args: argparse.Namespace,
    database_url: str,
    folder: Path,
    label: str,
    extra: dict[str, str] | None = None,
) -> Iterator[tuple[str, int, Studio, Path]]:
    """A server on its own database and data folder, and a signed-in client; yields
    `host:port`, the server's process id, the client and the data folder."""
    data_dir = folder / f"data-{label}"
    env = server_environment(
        database_url=database_url, data_dir=data_dir, master=args.master, extra=extra
    )
    log_path = folder / f"server-{label}.log"
    with log_path.open("wb") as log:
        try:
            with serving(env, log) as (host, pid):
                studio = Studio(host)
                studio.register(f"bench-{uuid.uuid4().hex[:8]}")
                yield host, pid, studio, data_dir
        except BaseException:
            log.flush()
            tail = log_path.read_bytes()[-4000:].decode(errors="replace")
            print(f"The server's last output ({label}):\n{tail}", file=sys.stderr)
            raise


def main() -> None:
    parser = argparse.ArgumentParser(description="Spark runtime: throughput and event latency")
    parser.add_argument("--size-mb", type=int, default=100, help="MiB of text (default 100)")
    parser.add_argument("--words", type=int, default=20_000, help="vocabulary size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parallelism", type=int, default=4)
    parser.add_argument(
        "--scaling-mb", type=int, default=20, help="MiB of text of the scaling runs (default 20)"
    )
    parser.add_argument(
        "--master",
        default=os.environ.get("SPARK_MASTER", "").strip() or "local[*,3]",
        help="Spark master of the server's worker and of the hand-written programs",
    )
    parser.add_argument("--latency-runs", type=int, default=5)
    parser.add_argument("--latency-parallelism", type=int, default=8)
    parser.add_argument("--latency-records", type=int, default=1_000_000)
    parser.add_argument("--no-throughput", action="store_true")
    parser.add_argument(
        "--shape-mb", type=int, default=100, help="MiB of each shape's input (default 100)"
    )
    parser.add_argument("--shape-rounds", type=int, default=3)
    parser.add_argument("--no-shapes", action="store_true")
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get("TEST_POSTGRES_URL") or DEFAULT_POSTGRES,
        help="a PostgreSQL server to create a throwaway database on ('' to skip)",
    )
    args = parser.parse_args()

    problems = 0
    with tempfile.TemporaryDirectory(prefix="streamgraph-bench-") as temp:
        folder = Path(temp)
        sqlite = f"sqlite:///{folder / 'bench.sqlite3'}"
        with studio_server(args, sqlite, folder, "sqlite") as (host, pid, studio, data_dir):
            if not args.no_throughput:
                python_sqlite = f"sqlite:///{folder / 'bench-python.sqlite3'}"
                with studio_server(
                    args, python_sqlite, folder, "python", {"RUN_SPARK_SQL": "0"}
                ) as python:
                    problems += throughput(
                        args, Server(host, pid, studio, data_dir), Server(*python)
                    )
            if not args.no_shapes:
                problems += shape_rounds(args, Server(host, pid, studio, data_dir))
            if not args.no_latency:
                latency(args, "SQLite", host, studio)
        if not args.no_latency and args.postgres_url:
            with postgres_database(args.postgres_url) as url:
                if url is not None:
                    with studio_server(args, url, folder, "postgres") as (host, _, studio, _):
                        latency(args, "PostgreSQL", host, studio)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
