"""`manage.py check_savepoint METADATA DOCUMENT`: would this pipeline start from that savepoint?

Exit status 0 when Flink 2.3 would restore it, 1 when it would refuse, 2 when an input is
bad (not a savepoint's `_metadata` file, not a document, a document that does not compile).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from compiler.pipeline import compile_document
from compiler.state.restore import OperatorRestore, RestoreCheck, check_restore
from compiler.state.savepoint import SavepointError, read_savepoint
from config.errors import MalformedJson
from config.json_input import read_json

RESTORES_STATUS = 0
REFUSED_STATUS = 1
BAD_INPUT_STATUS = 2


class Command(BaseCommand):
    help = (
        "Check whether Flink 2.3 would start a streamgraph/v1 document from a savepoint's "
        "_metadata file: prints the verdict and what becomes of every operator's state. "
        "Exits 0 if it restores, 1 if not, 2 if an input is bad."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("metadata", metavar="METADATA", type=Path)
        parser.add_argument("document", metavar="DOCUMENT", type=Path)
        parser.add_argument(
            "--allow-non-restored-state",
            action="store_true",
            help="allow state no operator takes, as Flink's --allowNonRestoredState",
        )
        parser.add_argument(
            "--previous",
            metavar="DOCUMENT",
            type=Path,
            help="the version that wrote the savepoint: explains lost state, warns of changes",
        )
        parser.add_argument("--json", action="store_true", help="print the check as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        data = self._read(options["metadata"], settings.SAVEPOINT_MAX_BYTES, "savepoint")
        try:
            savepoint = read_savepoint(data)
        except SavepointError as error:
            self._bad(f"{options['metadata']}: not a savepoint this can read: {error}")
        plan = compile_document(self._document(options["document"]))
        if not plan.ok:
            for diagnostic in plan.diagnostics:
                self.stderr.write(f"{options['document']}: {diagnostic}")
            self._bad(f"{options['document']}: the document does not compile")
        previous = None
        if options["previous"] is not None:
            previous = compile_document(self._document(options["previous"]))
        check = check_restore(
            savepoint.operators,
            plan,
            allow_non_restored_state=options["allow_non_restored_state"],
            previous=previous,
        )
        if options["json"]:
            self.stdout.write(json.dumps(check.to_json(), indent=2))
        else:
            self.stdout.write(render(check))
        sys.exit(RESTORES_STATUS if check.restores else REFUSED_STATUS)

    def _read(self, path: Path, limit: int, what: str) -> bytes:
        try:
            with path.open("rb") as file:
                data = file.read(limit + 1)
        except OSError as error:
            self._bad(f"{path}: cannot read the file: {error.strerror}")
        if len(data) > limit:
            self._bad(f"{path}: the {what} is larger than {limit:,} bytes")
        return data

    def _document(self, path: Path) -> object:
        data = self._read(path, settings.PIPELINE_MAX_DOCUMENT_BYTES, "document")
        try:
            return read_json(data, what="The file")
        except MalformedJson as error:
            self._bad(f"{path}: not a JSON document: {error.message}")

    def _bad(self, message: str) -> NoReturn:
        self.stderr.write(f"error: {message}")
        self.stderr.flush()
        sys.exit(BAD_INPUT_STATUS)


def render(check: RestoreCheck) -> str:
    """The verdict, Flink's refusal, the per-operator table, new operators and warnings."""
    lines = [check.verdict + "."]
    if check.failure is not None:
        lines.append(f"Flink: {check.failure.message}")
        if not check.allow_non_restored_state:
            also = "restores" if check.restores_allowing_non_restored_state else "still fails"
            lines.append(f"With --allow-non-restored-state it {also}.")
    lines += ["", "Savepoint operators:"]
    header = ("operator id", "name", "p", "max p", "state", "outcome", "into")
    table = [header] + [_row(row) for row in check.operators]
    widths = [max(len(cells[i]) for cells in table) for i in range(len(header))]
    for cells in table:
        padded = "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))
        lines.append(("  " + padded).rstrip())
    for row in check.operators:
        if row.outcome != "restored" or row.target is None:
            lines += [f"  {row.operator_id}: {reason}" for reason in row.reasons]
    if check.new_operators:
        lines += ["", "Operators that start empty:"]
        lines += [
            f"  {o.operator_id}  {o.name} ({o.node}, {o.operator})"
            + ("  keeps state" if o.stateful else "")
            for o in check.new_operators
        ]
    if check.warnings:
        lines += ["", "Warnings:"]
        lines += [f"  {w.code}: {w.message}" for w in check.warnings]
    return "\n".join(lines)


def _row(row: OperatorRestore) -> tuple[str, ...]:
    state = ", ".join(f"{s.kind.value} {s.bytes} B" for s in row.sizes) or "-"
    into = "-"
    if row.target is not None:
        into = f"{row.target.name} ({row.target.node}) in {row.target.vertex_id[:8]}"
    return (
        row.operator_id,
        row.name or "-",
        str(row.parallelism),
        str(row.max_parallelism),
        state,
        row.outcome,
        into,
    )
