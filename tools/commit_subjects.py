"""Check the commits a branch adds: `area: Imperative sentence`, at most 72 characters,
and a body that says why.

    python tools/commit_subjects.py [BASE]

checks the commits in BASE..HEAD (merges aside). Without BASE it checks every commit
since the one that brought in this check, so the history written before the rule
stands as it is and everything after it follows the rule. `make lint` runs it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

MAX_SUBJECT: Final = 72

# One per part of the project a commit can be about; a new area is added here on purpose.
AREAS: Final = frozenset(
    {
        "accounts",  # backend/accounts: users, workspaces, roles, tokens
        "activity",  # backend/activity: a pipeline's activity feed
        "api",  # what crosses the wire: REST, websocket messages, generated types
        "benchmarks",  # benchmarks/ and `make bench`
        "build",  # Makefile, requirements, package.json, CI entry point, tools/
        "canvas",  # frontend/src/canvas: the shared graph canvas
        "compiler",  # backend/compiler: the pure Flink plan compiler
        "config",  # backend/config: settings, URLs, serving, shared plumbing
        "docker",  # docker/
        "docs",  # docs/ and README.md
        "editor",  # frontend/src/editor
        "frontend",  # the browser app as a whole
        "pipelines",  # backend/pipelines: documents, versions, co-editing
        "savepoints",  # backend/savepoints: uploaded savepoints, restore checks
        "reviews",  # backend/reviews: comments, review requests, verdicts, policies
        "runs",  # backend/runs: runs, the worker task, the run socket
        "runtime",  # backend/runtime: executing plans on Spark
        "tests",  # tests/
        "versions",  # saved versions and their diffs
    }
)
SUBJECT: Final = re.compile(r"^(?P<area>[a-z]+): (?P<sentence>\S.*)$")
# Past tense and gerunds start a description, not an instruction ("Added", "Fixing").
# Verbs that merely end so are instructions all the same.
NOT_IMPERATIVE: Final = re.compile(r"^[A-Z][a-z]+(ed|ing)$")
ENDS_SO_ANYWAY: Final = frozenset(
    [
        "Bring",
        "Embed",
        "Exceed",
        "Feed",
        "Need",
        "Proceed",
        "Seed",
        "Shed",
        "Speed",
        "String",
        "Succeed",
    ]
)
THIS_FILE: Final = "tools/commit_subjects.py"


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    body: str


def problems(commit: Commit) -> list[str]:
    """What is wrong with one commit's message; empty when nothing is."""
    found: list[str] = []
    subject = commit.subject
    if len(subject) > MAX_SUBJECT:
        found.append(f"subject is {len(subject)} characters, at most {MAX_SUBJECT}")
    match = SUBJECT.match(subject)
    if match is None:
        found.append("subject is not `area: Imperative sentence`")
    else:
        area, sentence = match["area"], match["sentence"]
        if area not in AREAS:
            found.append(f"area {area!r} is not one of: {', '.join(sorted(AREAS))}")
        first = sentence.split()[0]
        if not first[0].isupper():
            found.append("the sentence starts with a capital letter")
        elif NOT_IMPERATIVE.match(first) and first not in ENDS_SO_ANYWAY:
            found.append(f"{first!r}: say what the commit does, in the imperative")
    if not commit.body.strip():
        found.append("no body: say why the change is made")
    return found


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout.strip()


def default_base() -> str | None:
    """The parent of the commit that added this check, or None before it was added."""
    added = _git("log", "--diff-filter=A", "--format=%H", "--", THIS_FILE).splitlines()
    if not added:
        return None
    first = added[-1]
    parents = _git("rev-list", "--parents", "-n", "1", first).split()[1:]
    return parents[0] if parents else None


def commits(base: str) -> list[Commit]:
    # NUL between fields and records: bodies hold any other character.
    log = _git("log", "--no-merges", "--format=%H%x00%s%x00%b%x00", f"{base}..HEAD")
    fields = log.split("\0")
    return [
        Commit(sha.strip(), subject, body)
        for sha, subject, body in zip(fields[0::3], fields[1::3], fields[2::3], strict=False)
        if sha.strip()
    ]


def main(argv: list[str]) -> int:
    if not Path(".git").exists():
        print("commit subjects: not a git checkout, nothing to check")
        return 0
    base = argv[1] if len(argv) > 1 else default_base()
    if base is None:
        print("commit subjects: the check is not committed yet, nothing to check")
        return 0
    try:
        checked = commits(base)
    except subprocess.CalledProcessError as error:  # e.g. a shallow clone without BASE
        print(f"commit subjects: cannot list {base}..HEAD: {error.stderr.strip()}")
        return 2
    failures = [(commit, problems(commit)) for commit in checked]
    failures = [(commit, found) for commit, found in failures if found]
    for commit, found in failures:
        print(f"{commit.sha[:10]} {commit.subject}")
        for problem in found:
            print(f"    {problem}")
    print(f"commit subjects: {len(checked)} checked, {len(failures)} to reword")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
