"""DRF's JSON parser, reading through `config.json_input` (depth, finite numbers) and never
more than `DATA_UPLOAD_MAX_MEMORY_SIZE` bytes of the body."""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework.parsers import BaseParser

from config.json_input import read_json


class JSONParser(BaseParser):
    media_type = "application/json"

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        limit: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        # One byte past the limit tells an oversize body without reading all of it.
        data = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(data) > limit:
            raise RequestDataTooBig("Request body exceeded settings.DATA_UPLOAD_MAX_MEMORY_SIZE.")
        # A `MalformedJson` goes up as it is (DRF re-raises what a parser raises): the error
        # handler answers it in the one shape, with the field it names.
        return read_json(data)
