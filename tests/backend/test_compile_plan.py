"""`manage.py compile_plan`: formats, --out-dir, --timings and exit codes, in a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "compiler" / "data" / "fixtures"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "compile_plan", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )


def test_default_format_prints_the_jobgraph_flink_built() -> None:
    result = run(FIXTURES / "word-count.streamgraph.json")
    assert result.returncode == 0, result.stderr
    expected = json.loads((FIXTURES / "word-count.expected.json").read_text("utf-8"))
    assert json.loads(result.stdout) == expected


def test_out_dir_writes_one_jobgraph_per_input(tmp_path: Path) -> None:
    names = ["simple-chain", "union-two", "batch-dataset-reuse"]
    result = run(*(FIXTURES / f"{n}.streamgraph.json" for n in names), "--out-dir", tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{n}.jobgraph.json" for n in names)
    for name in names:
        written = json.loads((tmp_path / f"{name}.jobgraph.json").read_text("utf-8"))
        assert written == json.loads((FIXTURES / f"{name}.expected.json").read_text("utf-8"))


def test_flink_plan_format_is_byte_identical(tmp_path: Path) -> None:
    result = run(
        FIXTURES / "side-outputs.streamgraph.json", "--format", "flink-plan", "--out-dir", tmp_path
    )
    assert result.returncode == 0, result.stderr
    written = (tmp_path / "side-outputs.plan.json").read_bytes()
    assert written == (FIXTURES / "side-outputs.plan.json").read_bytes()


@pytest.mark.parametrize("output_format", ["execution", "explain"])
def test_other_formats_are_json_documents(output_format: str) -> None:
    result = run(FIXTURES / "partition-rescale.streamgraph.json", "--format", output_format)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["format"] in {"executiongraph/v1", "explain/v1"}


def test_invalid_document_exits_2_and_other_inputs_are_processed(tmp_path: Path) -> None:
    broken = json.loads((FIXTURES / "simple-chain.streamgraph.json").read_text("utf-8"))
    broken["edges"][0]["target"] = 999
    bad = tmp_path / "broken.streamgraph.json"
    bad.write_text(json.dumps(broken), "utf-8")
    not_json = tmp_path / "garbage.streamgraph.json"
    not_json.write_text("{nope", "utf-8")
    out = tmp_path / "out"
    result = run(bad, not_json, FIXTURES / "union-two.streamgraph.json", "--out-dir", out)
    assert result.returncode == 2
    assert "edge #0" in result.stderr and "edge.unknown-node" in result.stderr
    assert "999" in result.stderr
    assert "garbage.streamgraph.json: error: not a JSON document" in result.stderr
    assert [p.name for p in out.iterdir()] == ["union-two.jobgraph.json"]


def test_timings_prints_median_ms_per_pass_to_stderr() -> None:
    result = run(FIXTURES / "long-chain.streamgraph.json", "--timings", "--repeat", "3")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stderr.strip().splitlines()[-1])
    assert summary["repeat"] == 3
    assert set(summary["medianMs"]) == {
        "read",
        "chainable",
        "hashing",
        "chaining",
        "jobgraph",
        "execution",
        "total",
    }
    assert all(ms >= 0 for ms in summary["medianMs"].values())


def test_a_deeply_nested_or_oversize_file_is_refused_and_the_others_processed(
    tmp_path: Path,
) -> None:
    deep = tmp_path / "deep.streamgraph.json"
    deep.write_text('{"nodes": ' + "[" * 5_000 + "]" * 5_000 + "}", "utf-8")
    huge = tmp_path / "huge.streamgraph.json"
    huge.write_text('{"pad": "' + "x" * (6 * 1024 * 1024) + '"}', "utf-8")
    out = tmp_path / "out"
    result = run(deep, huge, FIXTURES / "union-two.streamgraph.json", "--out-dir", out)
    assert result.returncode == 2
    assert "deep.streamgraph.json: error: not a JSON document" in result.stderr
    assert "deeper than 64 levels (byte offset 73)" in result.stderr
    assert "huge.streamgraph.json: error: the file is larger than" in result.stderr
    assert [p.name for p in out.iterdir()] == ["union-two.jobgraph.json"]
