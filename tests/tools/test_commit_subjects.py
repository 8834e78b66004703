"""The commit message check `make lint` runs, on messages and on a real repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.commit_subjects import AREAS, MAX_SUBJECT, Commit, problems

REPO = Path(__file__).resolve().parents[2]
WHY = "The plan diff said nothing about state, so reviewers guessed."


@pytest.mark.parametrize(
    "subject",
    [
        "compiler: Name the first unmapped operator as Flink does",
        "docs: Embed the process picture in the architecture map",
        "runs: Bring the run page's states in line with the journal",
        "versions: Say which operator loses its state.",
        "api: " + "A" * (MAX_SUBJECT - len("api: ")),
    ],
)
def test_a_good_message_passes(subject: str) -> None:
    assert problems(Commit("0" * 40, subject, WHY)) == []


@pytest.mark.parametrize(
    ("subject", "body", "expected"),
    [
        ("Fix the chain reasons", WHY, "subject is not `area: Imperative sentence`"),
        ("compiler:Fix the chain reasons", WHY, "subject is not `area: Imperative sentence`"),
        ("misc: Fix the chain reasons", WHY, "area 'misc' is not one of: "),
        ("compiler: fix the chain reasons", WHY, "the sentence starts with a capital letter"),
        ("compiler: Fixed the chain reasons", WHY, "'Fixed': say what the commit does"),
        ("compiler: Fixing the chain reasons", WHY, "'Fixing': say what the commit does"),
        ("compiler: " + "x" * 70, WHY, "subject is 80 characters, at most 72"),
        ("compiler: Fix the chain reasons", "  \n", "no body: say why the change is made"),
    ],
)
def test_a_bad_message_is_named(subject: str, body: str, expected: str) -> None:
    found = problems(Commit("0" * 40, subject, body))

    assert any(problem.startswith(expected) for problem in found), found


def test_every_area_is_a_lowercase_word() -> None:
    assert all(area.isalpha() and area.islower() for area in AREAS)


def _git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
    }
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _commit(cwd: Path, name: str, message: str) -> None:
    (cwd / name).parent.mkdir(parents=True, exist_ok=True)
    (cwd / name).write_text(message)
    _git(cwd, "add", name)
    _git(cwd, "commit", "-q", "-m", message)


def _check(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "tools" / "commit_subjects.py")],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def test_only_commits_after_the_check_came_in_are_checked(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    _commit(tmp_path, "old.txt", "whatever we wrote before the rule")
    _commit(tmp_path, "tools/commit_subjects.py", f"build: Check commit messages\n\n{WHY}")
    _commit(tmp_path, "a.txt", f"compiler: Name the unmapped operator\n\n{WHY}")

    passed = _check(tmp_path)
    assert passed.returncode == 0, passed.stdout
    assert "2 checked, 0 to reword" in passed.stdout

    _commit(tmp_path, "b.txt", "fixed stuff")
    failed = _check(tmp_path)

    assert failed.returncode == 1
    assert "fixed stuff\n    subject is not `area: Imperative sentence`" in failed.stdout
    assert "no body: say why the change is made" in failed.stdout
    assert "3 checked, 1 to reword" in failed.stdout
