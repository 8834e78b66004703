"""`manage.py check_savepoint`: verdicts, the table and exit codes, in a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAVEPOINTS = REPO / "tests" / "compiler" / "data" / "savepoints"
COUNTING = SAVEPOINTS / "counting.v1.savepoint"


def run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "check_savepoint", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
        env={**os.environ, **(env or {})},
    )


def variant(name: str) -> Path:
    return SAVEPOINTS / f"counting--{name}.streamgraph.json"


def test_a_version_that_restores_exits_0_with_its_table() -> None:
    result = run(COUNTING, variant("same"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Restores."
    sum_row = next(line for line in lines if line.startswith("  c27dcf7b54ef6bfd6cff02ca8870b681"))
    assert "Sum" in sum_row and "keyed 3253 B" in sum_row and "restored" in sum_row
    assert "derived-max-parallelism: the max parallelism of Sum" in result.stdout


def test_a_version_flink_refuses_exits_1_naming_the_operator_as_flink_does() -> None:
    previous = SAVEPOINTS / "counting.v1.streamgraph.json"
    result = run(COUNTING, variant("chain-break"), "--previous", previous)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Fails: state of Sum (c27dcf7b...) has no operator in this version."
    assert lines[1].startswith(
        "Flink: Cannot map checkpoint/savepoint state for operator "
        "c27dcf7b54ef6bfd6cff02ca8870b681 to the new program"
    )
    assert lines[2] == "With --allow-non-restored-state it restores."
    assert (
        "  c27dcf7b54ef6bfd6cff02ca8870b681: to restore it, set the uidHash of Sum (5) to "
        "c27dcf7b54ef6bfd6cff02ca8870b681" in lines
    )
    assert "Operators that start empty:" in lines


def test_allowing_non_restored_state_turns_it_to_0() -> None:
    result = run(COUNTING, variant("chain-break"), "--allow-non-restored-state")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Restores, dropping the state of 2 operators.")


def test_a_max_parallelism_mismatch_fails_even_allowing_it() -> None:
    result = run(COUNTING, variant("max-parallelism"), "--allow-non-restored-state", "--json")
    assert result.returncode == 1, result.stderr
    check = json.loads(result.stdout)
    assert check["failure"]["code"] == "max-parallelism-mismatch"
    assert check["restoresAllowingNonRestoredState"] is False


def test_bad_inputs_exit_2_saying_what_is_wrong(tmp_path: Path) -> None:
    document = variant("same")
    result = run(document, document)
    assert result.returncode == 2
    assert "not a savepoint this can read: byte 0: expected Flink's checkpoint metadata" in (
        result.stderr
    )

    truncated = tmp_path / "_metadata"
    truncated.write_bytes(COUNTING.read_bytes()[:22])
    result = run(truncated, document)
    assert result.returncode == 2 and "byte 20: expected 4 bytes" in result.stderr

    result = run(COUNTING, tmp_path / "missing.json")
    assert result.returncode == 2 and "cannot read the file" in result.stderr

    not_json = tmp_path / "not.json"
    not_json.write_text("{", encoding="utf-8")
    result = run(COUNTING, not_json)
    assert result.returncode == 2 and "not a JSON document" in result.stderr

    cyclic = json.loads(document.read_text("utf-8"))
    cyclic["edges"].append({**cyclic["edges"][0], "source": 7, "target": 1})
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(cyclic), encoding="utf-8")
    result = run(COUNTING, broken)
    assert result.returncode == 2 and "the document does not compile" in result.stderr


def test_a_savepoint_over_the_limit_is_not_read() -> None:
    result = run(COUNTING, variant("same"), env={"SAVEPOINT_MAX_BYTES": "1000"})
    assert result.returncode == 2
    assert "the savepoint is larger than 1,000 bytes" in result.stderr
