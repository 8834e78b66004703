"""Path converters. `<id:...>` is a database id or a number: at most what a 64-bit signed
integer holds, so a longer one is simply no route (a JSON 404), never an overflow."""

from __future__ import annotations

from django.urls import register_converter

MAX_ID = 2**63 - 1
"""The largest value a database integer column (and so an id or number) holds."""


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > MAX_ID:
            raise ValueError(f"{value} is beyond the ids this server stores")
        return number

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
