"""Compiler benchmark: the large graphs of `tests/compiler/data/perf` against real Flink.

Prints, per graph, the median milliseconds of every pass over interleaved
repetitions (graphs take turns, so machine noise spreads over all of them),
peak memory of one compilation, and the ratios to Flink 2.3's own times from
`flink-timings.md`:

* compile = chainable + hashing + chaining + jobgraph, against Flink's
  `createJobGraph` (goal: at least 6x faster);
* hashing, and chainable + hashing, against Flink's JIT-warmed
  `StreamGraphHasherV2` (goal: within 3x). Flink's hasher decides chainability
  inside; here it is its own pass, so both figures are shown.

Hash seeds are cached per process; the cold figure (first compilation with an
empty cache) is printed too. Then an ExecutionGraph of two vertices at
parallelism 10,000, joined all-to-all and pointwise, and the rescale simulator on a job of
5,000 vertices: a page of the answer against every vertex described (what one request
used to cost).

    python -m benchmarks.compiler_bench [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import tracemalloc
from pathlib import Path
from typing import Any

from compiler import hashing
from compiler.execution import build_execution_graph
from compiler.pipeline import PASSES, compile_document
from compiler.rescale import VERTICES_SHOWN, Rescale, simulate_rescale

PERF_DIR = Path(__file__).resolve().parents[1] / "tests" / "compiler" / "data" / "perf"
COMPILE_PASSES = ("chainable", "hashing", "chaining", "jobgraph")


def flink_timings(path: Path) -> dict[str, dict[str, float]]:
    """Median ms of Flink's hashing and createJobGraph per graph, from the table."""
    result: dict[str, dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 7 and cells[0].startswith("large-"):
            # "0.415 (0.369-0.710)": the median comes first.
            hashing_ms, create_ms = (float(c.split()[0]) for c in cells[5:7])
            result[cells[0]] = {"hashing": hashing_ms, "createJobGraph": create_ms}
    return result


def _clear_hash_caches() -> None:
    hashing._PLAIN_SEEDS.clear()
    hashing._MIXED_SEEDS.clear()


def bench_graphs(repeat: int) -> None:
    flink = flink_timings(PERF_DIR / "flink-timings.md")
    documents = {
        path.name.removesuffix(".streamgraph.json"): json.loads(path.read_text("utf-8"))
        for path in sorted(PERF_DIR.glob("*.streamgraph.json"))
    }
    documents = dict(sorted(documents.items(), key=lambda kv: len(kv[1]["nodes"])))

    cold: dict[str, float] = {}
    for name, document in documents.items():
        _clear_hash_caches()
        cold[name] = compile_document(document).timings_ms["hashing"]
    for document in documents.values():  # warm-up
        compile_document(document)

    runs: dict[str, list[dict[str, float]]] = {name: [] for name in documents}
    for _ in range(repeat):
        for name, document in documents.items():
            runs[name].append(compile_document(document).timings_ms)

    print(f"Compiler passes, median ms over {repeat} interleaved runs (min in brackets)")
    header = f"{'graph':<22}" + "".join(f"{p:>15}" for p in PASSES) + f"{'peak MiB':>10}"
    print(header)
    for name, document in documents.items():
        cells = []
        for p in PASSES:
            values = [r[p] for r in runs[name]]
            cells.append(f"{statistics.median(values):8.3f} [{min(values):.2f}]".rjust(15))
        tracemalloc.start()
        compile_document(document)
        peak = tracemalloc.get_traced_memory()[1] / (1 << 20)
        tracemalloc.stop()
        print(f"{name:<22}" + "".join(cells) + f"{peak:10.1f}")

    print()
    print("Against Flink 2.3 (same graphs; Flink: JIT-warmed medians from flink-timings.md)")
    print(
        f"{'graph':<22}{'compile ms':>11}{'Flink cJG':>11}{'faster':>8}"
        f"{'hash ms':>9}{'chain+hash':>11}{'cold hash':>10}{'Flink hash':>11}"
        f"{'hash/F':>8}{'c+h/F':>7}"
    )
    for name in documents:
        compile_ms = statistics.median(sum(r[p] for p in COMPILE_PASSES) for r in runs[name])
        hash_ms = statistics.median(r["hashing"] for r in runs[name])
        chain_hash_ms = statistics.median(r["hashing"] + r["chainable"] for r in runs[name])
        reference = flink.get(name)
        if reference is None:
            continue
        print(
            f"{name:<22}{compile_ms:11.3f}{reference['createJobGraph']:11.3f}"
            f"{reference['createJobGraph'] / compile_ms:7.1f}x"
            f"{hash_ms:9.3f}{chain_hash_ms:11.3f}{cold[name]:10.3f}{reference['hashing']:11.3f}"
            f"{hash_ms / reference['hashing']:7.2f}x{chain_hash_ms / reference['hashing']:6.2f}x"
        )
    print("goals: compile at least 6x faster than createJobGraph; hashing within 3x of Flink's")


def _two_vertices(parallelism: int, partitioner: str) -> dict[str, Any]:
    node = {"maxParallelism": -1, "chainingStrategy": "ALWAYS", "slotSharingGroup": "default"}
    return {
        "format": "streamgraph/v1",
        "name": f"two-vertices-{partitioner.lower()}",
        "config": {"defaultParallelism": parallelism},
        "nodes": [
            {"id": 1, "name": "Source: wide", "parallelism": parallelism, **node},
            {"id": 2, "name": "Sink: wide", "parallelism": parallelism, **node},
        ],
        "edges": [{"source": 1, "target": 2, "partitioner": partitioner}],
    }


def bench_execution(repeat: int, parallelism: int = 10_000) -> None:
    print()
    print(f"ExecutionGraph of two vertices at parallelism {parallelism:,} (median of {repeat})")
    for partitioner, label in (("REBALANCE", "all-to-all"), ("RESCALE", "pointwise")):
        compilation = compile_document(_two_vertices(parallelism, partitioner), until="jobgraph")
        job_graph = compilation.job_graph
        assert job_graph is not None
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            execution, _problems = build_execution_graph(job_graph)
            times.append((time.perf_counter() - start) * 1000)
        tracemalloc.start()
        execution, _problems = build_execution_graph(job_graph)
        # Touch every consumer's wiring, as a client listing them would.
        edge = execution.edges[0]
        wired = sum(
            len(edge.group_of_consumer(i).partitions) for i in range(edge.consumer_parallelism)
        )
        peak = tracemalloc.get_traced_memory()[1] / (1 << 20)
        tracemalloc.stop()
        print(
            f"  {label:<11} build {statistics.median(times):8.3f} ms   groups {len(edge.groups):>6}"
            f"   consumer->partition links {wired:>12,}   peak {peak:6.2f} MiB"
        )


def _rescale_cases() -> dict[str, tuple[dict[str, Any], int]]:
    """A 5,000-vertex job (the large graph with chaining off) rescaled from 64 to 100, and
    the same with every vertex at 32,000 subtasks and a max parallelism of its own, grown
    by one: the widest per-vertex totals a request can ask for."""
    document = json.loads((PERF_DIR / "large-5000.streamgraph.json").read_text("utf-8"))
    document["config"].update(chainingEnabled=False, defaultParallelism=64)
    for node in document["nodes"]:
        node["parallelism"] = -1
    widest = json.loads(json.dumps(document))
    widest["config"]["defaultParallelism"] = 32_000
    for index, node in enumerate(widest["nodes"]):
        node["maxParallelism"] = 32_768 - index % 700
    return {"5000 vertices 64->100": (document, 100), "5000 x 32000->32001": (widest, 32_001)}


def bench_rescale(repeat: int) -> None:
    print()
    print(f"Rescale simulator, whole job (median ms of {repeat}; the answer's JSON)")
    for label, (document, parallelism) in _rescale_cases().items():
        before = compile_document(document)
        times, every = [], []
        for _ in range(repeat):
            start = time.perf_counter()
            simulation = simulate_rescale(document, Rescale(parallelism), before=before)
            page = json.dumps(simulation.to_json())
            times.append((time.perf_counter() - start) * 1000)
        tracemalloc.start()
        simulate_rescale(document, Rescale(parallelism), before=before).to_json()
        peak = tracemalloc.get_traced_memory()[1] / (1 << 20)
        tracemalloc.stop()
        line = (
            f"  {label:<22} page of {VERTICES_SHOWN}: {statistics.median(times):7.1f} ms "
            f"{len(page) / 1024:7.1f} KiB  peak {peak:5.1f} MiB"
        )
        if parallelism < 1000:  # the widest takes minutes to describe whole
            start = time.perf_counter()
            whole = json.dumps(simulation.to_json(limit=len(simulation.vertices)))
            every.append((time.perf_counter() - start) * 1000)
            line += (
                f"   every vertex described (what one request cost): "
                f"+{every[0]:7.1f} ms {len(whole) / (1 << 20):5.1f} MiB"
            )
        print(line)
    print("  goal: a request's work and answer bounded by the page, not the job's size")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=31)
    args = parser.parse_args()
    bench_graphs(args.repeat)
    bench_execution(max(5, args.repeat // 3))
    bench_rescale(max(3, args.repeat // 10))


if __name__ == "__main__":
    main()
