"""`manage.py wire_schema`: write the JSON Schema of the browser's wire shapes.

`config.wire` builds it from the pydantic models; `--check` writes nothing and fails when
the committed file differs (`make test` runs it; `make wire` writes the file and the
TypeScript generated from it).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.wire import WIRE_SCHEMA, wire_schema_text


class Command(BaseCommand):
    help = "Write the JSON Schema the browser's wire types are generated from."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check", action="store_true", help="Fail if the committed schema is stale."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        text = wire_schema_text()
        if options["check"]:
            current = WIRE_SCHEMA.read_text() if WIRE_SCHEMA.exists() else ""
            if current != text:
                raise CommandError(
                    f"{WIRE_SCHEMA.name} is not what the models give: run `make wire`"
                )
            return
        WIRE_SCHEMA.write_text(text)
        self.stdout.write(f"Wrote {WIRE_SCHEMA.name}.")
