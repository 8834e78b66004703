"""Reading an uploaded `_metadata` file into memory, never past the savepoint size limit."""

from __future__ import annotations

from io import BytesIO
from typing import Any

from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler

from config.errors import ApplicationError, InvalidRequest

FILE_FIELD = "file"


class UploadTooLarge(ApplicationError):
    status_code = 413
    code = "upload-too-large"


def too_large(limit: int) -> UploadTooLarge:
    return UploadTooLarge(
        f"The savepoint file is larger than {limit} bytes ({limit / 1024 / 1024:g} MiB), "
        "the largest this server takes (SAVEPOINT_MAX_BYTES).",
        fields={FILE_FIELD: [f"Larger than {limit} bytes."]},
    )


class SavepointUploadHandler(FileUploadHandler):
    """Keeps the one file of field `file` in memory and refuses it once it passes `limit`
    bytes, while it streams in: a larger file is never held whole."""

    def __init__(self, limit: int, request: Any = None) -> None:
        super().__init__(request)
        self.limit = limit
        self.buffer = BytesIO()
        self.taken = False

    def new_file(self, field_name: str, *args: Any, **kwargs: Any) -> None:
        super().new_file(field_name, *args, **kwargs)
        if field_name != FILE_FIELD or self.taken:
            raise InvalidRequest(
                f"Send one file, in the field {FILE_FIELD!r}.",
                fields={field_name: [f"Only one file, in the field {FILE_FIELD!r}."]},
            )
        self.taken = True

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        if start + len(raw_data) > self.limit:
            raise too_large(self.limit)
        self.buffer.write(raw_data)

    def file_complete(self, file_size: int) -> InMemoryUploadedFile:
        self.buffer.seek(0)
        return InMemoryUploadedFile(
            file=self.buffer,
            field_name=self.field_name,
            name=self.file_name,
            content_type=self.content_type,
            size=file_size,
            charset=self.charset,
            content_type_extra=self.content_type_extra,
        )
