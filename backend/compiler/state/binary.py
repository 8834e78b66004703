"""A cursor over bytes with Java `DataInputStream`'s primitives, every read checked against
the bytes left: what the readers of Flink's files stand on (`compiler.state.savepoint`, and
the Java object stream inside one, `compiler.state.javaserial`). Each reader raises its own
`BinaryFormatError` subclass, which says what was expected at which byte offset."""

from __future__ import annotations

import struct
from typing import ClassVar

U16 = struct.Struct(">H")
I32 = struct.Struct(">i")
I64 = struct.Struct(">q")


class BinaryFormatError(ValueError):
    """The bytes are not what the reader expected where it expected it."""

    def __init__(self, offset: int, expected: str, found: str | None = None) -> None:
        self.offset = offset
        self.expected = expected
        self.found = found
        text = f"byte {offset}: expected {expected}"
        super().__init__(text if found is None else f"{text}, found {found}")


class ByteCursor:
    error: ClassVar[type[BinaryFormatError]] = BinaryFormatError
    """What a read past the end (or a subclass's check) raises."""

    def __init__(self, data: bytes, start: int = 0) -> None:
        self.data = data
        self.pos = start

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def _check(self, count: int, what: str) -> None:
        if count < 0 or count > self.remaining():
            raise self.error(
                self.pos, f"{count} bytes ({what})", f"the file ends after {self.remaining()}"
            )

    def skip(self, count: int, what: str) -> None:
        """Pass over `count` bytes the reader does not need, without copying them."""
        self._check(count, what)
        self.pos += count

    def take(self, count: int, what: str) -> bytes:
        start = self.pos
        end = start + count
        if count < 0 or end > len(self.data):
            self._check(count, what)
        self.pos = end
        return self.data[start:end]

    # The primitives check the bytes left inline: a reader makes millions of these calls.

    def u8(self, what: str) -> int:
        pos = self.pos
        if pos >= len(self.data):
            self._check(1, what)
        self.pos = pos + 1
        return self.data[pos]

    def u16(self, what: str) -> int:
        pos = self.pos
        if pos + 2 > len(self.data):
            self._check(2, what)
        self.pos = pos + 2
        value: int = U16.unpack_from(self.data, pos)[0]
        return value

    def i32(self, what: str) -> int:
        pos = self.pos
        if pos + 4 > len(self.data):
            self._check(4, what)
        self.pos = pos + 4
        value: int = I32.unpack_from(self.data, pos)[0]
        return value

    def i64(self, what: str) -> int:
        pos = self.pos
        if pos + 8 > len(self.data):
            self._check(8, what)
        self.pos = pos + 8
        value: int = I64.unpack_from(self.data, pos)[0]
        return value


def modified_utf8(raw: bytes) -> str:
    """Java's modified UTF-8: NUL as C0 80, and characters beyond the BMP as two encoded
    UTF-16 surrogates (CESU-8)."""
    if raw.isascii():
        return raw.decode("ascii")
    text = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
