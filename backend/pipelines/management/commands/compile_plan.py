"""`manage.py compile_plan FILE...`: compile streamgraph/v1 documents from the shell."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from compiler.pipeline import compile_document, median_pass_timings
from compiler.render import FILE_SUFFIXES, FORMATS, render_text
from config.errors import MalformedJson
from config.json_input import read_json

INVALID_DOCUMENT_STATUS = 2
_INPUT_SUFFIX = ".streamgraph.json"


def output_stem(path: Path) -> str:
    """`word-count.streamgraph.json` -> `word-count`; other names lose their last suffix."""
    name = path.name
    return name[: -len(_INPUT_SUFFIX)] if name.endswith(_INPUT_SUFFIX) else path.stem


class Command(BaseCommand):
    help = (
        "Compile streamgraph/v1 documents as Flink 2.3 would: JobGraph (default), "
        "ExecutionGraph, Flink's execution plan JSON, or chaining/hash explanations. "
        "Exits with status 2 if any document is invalid (after processing the others)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE", type=Path)
        parser.add_argument(
            "--out-dir", type=Path, help="write <stem><suffix> per input instead of printing"
        )
        parser.add_argument("--format", choices=FORMATS, default="jobgraph")
        parser.add_argument(
            "--timings",
            action="store_true",
            help="print median milliseconds per pass to stderr (JSON, one line per file)",
        )
        parser.add_argument("--repeat", type=int, default=5, help="runs measured by --timings")

    def handle(self, *args: Any, **options: Any) -> None:
        out_dir: Path | None = options["out_dir"]
        output_format: str = options["format"]
        if options["repeat"] < 1:
            raise CommandError("--repeat must be at least 1")
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
        failed = False
        for path in options["files"]:
            document = self._load(path)
            if document is None:
                failed = True
                continue
            compilation = compile_document(document)
            if not compilation.ok:
                failed = True
                for diagnostic in compilation.diagnostics:
                    self.stderr.write(f"{path}: {diagnostic}")
                continue
            for diagnostic in compilation.diagnostics:  # warnings only, here
                self.stderr.write(f"{path}: {diagnostic}")
            text = render_text(compilation, output_format)
            if out_dir is None:
                self.stdout.write(text)
            else:
                target = out_dir / (output_stem(path) + FILE_SUFFIXES[output_format])
                target.write_text(
                    text if output_format == "flink-plan" else text + "\n", encoding="utf-8"
                )
            if options["timings"]:
                timings = median_pass_timings(document, repeat=options["repeat"])
                summary = {
                    "file": str(path),
                    "repeat": options["repeat"],
                    "medianMs": {name: round(ms, 4) for name, ms in timings.items()},
                }
                self.stderr.write(json.dumps(summary))
        if failed:
            self.stderr.flush()
            sys.exit(INVALID_DOCUMENT_STATUS)

    def _load(self, path: Path) -> object | None:
        """The file's JSON, read as the API reads a document: at most the document limit,
        through the bounded reader (depth, finite numbers)."""
        limit: int = settings.PIPELINE_MAX_DOCUMENT_BYTES
        try:
            with path.open("rb") as file:
                data = file.read(limit + 1)
        except OSError as error:
            self.stderr.write(f"{path}: error: cannot read the file: {error.strerror}")
            return None
        if len(data) > limit:
            self.stderr.write(
                f"{path}: error: the file is larger than {limit:,} bytes, the largest "
                "document the studio reads (PIPELINE_MAX_DOCUMENT_BYTES)"
            )
            return None
        try:
            return read_json(data, what="The file")
        except MalformedJson as error:
            self.stderr.write(f"{path}: error: not a JSON document: {error.message}")
        return None
