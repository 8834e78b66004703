"""A Java object serialization stream, walked as `ObjectInputStream.readObject` reads it.

Checkpoint metadata of format 4 and later ends with the checkpoint's properties written by
`ObjectOutputStream.writeObject`; Flink reads them back with `readObject` and fails to load
a file in which that object is cut short or malformed. To refuse exactly those files, this
walks the stream's grammar (the Java Object Serialization Specification, chapter 6) from its
header to the end of the first object: class descriptions with their fields and
superclasses, objects with each class's field values, strings, enum constants, arrays,
block data, and back references to earlier handles. It builds no Java values: it answers
which class the object is of and where it ends.

Every length is checked against the bytes that remain, and nesting is bounded, so a hostile
stream costs time linear in its size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from compiler.state.binary import BinaryFormatError, ByteCursor, modified_utf8

STREAM_MAGIC: Final = b"\xac\xed\x00\x05"
"""`STREAM_MAGIC` then `STREAM_VERSION` 5."""

_TC_NULL: Final = 0x70
_TC_REFERENCE: Final = 0x71
_TC_CLASSDESC: Final = 0x72
_TC_OBJECT: Final = 0x73
_TC_STRING: Final = 0x74
_TC_ARRAY: Final = 0x75
_TC_CLASS: Final = 0x76
_TC_BLOCKDATA: Final = 0x77
_TC_ENDBLOCKDATA: Final = 0x78
_TC_RESET: Final = 0x79
_TC_BLOCKDATALONG: Final = 0x7A
_TC_LONGSTRING: Final = 0x7C
_TC_PROXYCLASSDESC: Final = 0x7D
_TC_ENUM: Final = 0x7E
_BASE_WIRE_HANDLE: Final = 0x7E0000

_SC_WRITE_METHOD: Final = 0x01
_SC_SERIALIZABLE: Final = 0x02
_SC_EXTERNALIZABLE: Final = 0x04
_SC_BLOCK_DATA: Final = 0x08

_PRIMITIVE_BYTES: Final = {"B": 1, "C": 2, "D": 8, "F": 4, "I": 4, "J": 8, "S": 2, "Z": 1}
_MAX_NESTING: Final = 32
"""Objects inside objects; Flink's checkpoint properties nest three deep."""


class JavaStreamError(BinaryFormatError):
    """The stream is not one `readObject` reads to its end: says what was expected where."""


@dataclass(frozen=True, slots=True)
class _Field:
    typecode: str
    name: str


@dataclass(frozen=True, slots=True)
class _ClassDesc:
    name: str
    flags: int
    fields: tuple[_Field, ...]
    superclass: _ClassDesc | None


@dataclass(frozen=True, slots=True)
class JavaObject:
    class_name: str
    """The class of the stream's first object."""
    end: int
    """The offset just past it."""


def read_java_object(data: bytes, start: int = 0) -> JavaObject:
    """The first object of the serialization stream at `data[start:]`; `JavaStreamError`
    if `readObject` would not read it whole."""
    return _Stream(data, start).first_object()


class _Stream(ByteCursor):
    error = JavaStreamError

    def __init__(self, data: bytes, start: int) -> None:
        super().__init__(data, start)
        self.handles: list[object] = []
        self.depth = 0

    def utf(self, what: str) -> str:
        begin = self.pos
        raw = self.take(self.u16(f"the length of {what}"), what)
        try:
            return modified_utf8(raw)
        except UnicodeError:
            raise JavaStreamError(
                begin, f"{what} as modified UTF-8", "bytes that are not"
            ) from None

    def new_handle(self, value: object) -> int:
        self.handles.append(value)
        return len(self.handles) - 1

    def reference(self, what: str) -> object:
        at = self.pos
        handle = self.i32(f"a handle ({what})") - _BASE_WIRE_HANDLE
        if not 0 <= handle < len(self.handles):
            raise JavaStreamError(at, f"a handle to an earlier {what}", f"handle {handle}")
        return self.handles[handle]

    # -- the grammar ----------------------------------------------------------------------

    def first_object(self) -> JavaObject:
        header = self.take(4, "the stream header")
        if header != STREAM_MAGIC:
            raise JavaStreamError(self.pos - 4, "a Java serialization stream header", header.hex())
        at = self.pos
        if self.u8("an object") != _TC_OBJECT:
            raise JavaStreamError(at, "an object")
        desc = self.object_body()
        return JavaObject(desc.name, self.pos)

    def content(self, what: str) -> object:
        """One element of the stream (the type code read here); what it names, if anything."""
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise JavaStreamError(self.pos, f"objects nested at most {_MAX_NESTING} deep")
        at = self.pos
        code = self.u8(what)
        try:
            if code == _TC_NULL:
                return None
            if code == _TC_REFERENCE:
                return self.reference(what)
            if code == _TC_OBJECT:
                return self.object_body()
            if code in (_TC_STRING, _TC_LONGSTRING):
                return self.string_body(code)
            if code == _TC_ENUM:
                desc = self.class_desc("an enum's class")
                self.new_handle(desc)
                name = self.content("an enum constant's name")
                if not isinstance(name, str):
                    raise JavaStreamError(self.pos, "an enum constant's name as a string")
                return name
            if code == _TC_ARRAY:
                return self.array_body()
            if code == _TC_CLASS:
                desc = self.class_desc("a class")
                self.new_handle(desc)
                return desc
            if code in (_TC_CLASSDESC, _TC_PROXYCLASSDESC):
                self.pos = at
                return self.class_desc(what)
            if code == _TC_RESET:
                self.handles.clear()
                return self.content(what)
            raise JavaStreamError(at, what, f"type code 0x{code:02x}")
        finally:
            self.depth -= 1

    def string_body(self, code: int) -> str:
        if code == _TC_STRING:
            text = self.utf("a string")
        else:
            raw = self.take(self.i64("the length of a long string"), "a long string")
            try:
                text = modified_utf8(raw)
            except UnicodeError:
                raise JavaStreamError(self.pos, "a long string as modified UTF-8") from None
        self.new_handle(text)
        return text

    def class_desc(self, what: str) -> _ClassDesc | None:
        at = self.pos
        code = self.u8(what)
        if code == _TC_NULL:
            return None
        if code == _TC_REFERENCE:
            desc = self.reference("class description")
            if not isinstance(desc, _ClassDesc):
                raise JavaStreamError(at, f"{what}: a reference to a class description")
            return desc
        if code == _TC_PROXYCLASSDESC:
            handle = self.new_handle(None)
            for _ in range(self.count("proxy interfaces", 2)):
                self.utf("a proxy interface's name")
            self.annotation("a proxy class's annotation")
            desc = _ClassDesc("a proxy", _SC_SERIALIZABLE, (), self.class_desc("a superclass"))
            self.handles[handle] = desc
            return desc
        if code != _TC_CLASSDESC:
            raise JavaStreamError(at, what, f"type code 0x{code:02x}")
        name = self.utf("a class name")
        self.i64("a serialVersionUID")
        handle = self.new_handle(None)
        flags = self.u8("class description flags")
        fields = tuple(self.field() for _ in range(self.count("fields", 3)))
        self.annotation("a class annotation")
        desc = _ClassDesc(name, flags, fields, self.class_desc("a superclass"))
        self.handles[handle] = desc
        return desc

    def count(self, what: str, element_bytes: int) -> int:
        at = self.pos
        value = self.u16(f"the number of {what}")
        if value * element_bytes > len(self.data) - self.pos:
            raise JavaStreamError(at, f"a number of {what} that fits in the bytes left", str(value))
        return value

    def field(self) -> _Field:
        at = self.pos
        typecode = chr(self.u8("a field's type code"))
        name = self.utf("a field's name")
        if typecode in ("L", "["):
            class_name = self.content("a field's class name")
            if not isinstance(class_name, str):
                raise JavaStreamError(at, "a field's class name as a string")
        elif typecode not in _PRIMITIVE_BYTES:
            raise JavaStreamError(at, "a field type code", repr(typecode))
        return _Field(typecode, name)

    def annotation(self, what: str) -> None:
        """Block data and objects up to the end marker (what a `writeObject` wrote)."""
        while True:
            at = self.pos
            code = self.u8(what)
            if code == _TC_ENDBLOCKDATA:
                return
            if code == _TC_BLOCKDATA:
                self.take(self.u8("the length of block data"), "block data")
            elif code == _TC_BLOCKDATALONG:
                self.take(self.i32("the length of block data"), "block data")
            else:
                self.pos = at
                self.content(what)

    def object_body(self) -> _ClassDesc:
        at = self.pos
        desc = self.class_desc("an object's class")
        if desc is None:
            raise JavaStreamError(at, "an object's class", "null")
        self.new_handle(desc)
        chain: list[_ClassDesc] = []
        current: _ClassDesc | None = desc
        while current is not None:
            chain.append(current)
            current = current.superclass
        for cls in reversed(chain):  # the topmost superclass's data first
            if cls.flags & _SC_EXTERNALIZABLE:
                if not cls.flags & _SC_BLOCK_DATA:
                    raise JavaStreamError(self.pos, "externalizable data written in blocks")
                self.annotation("externalizable data")
                continue
            if not cls.flags & _SC_SERIALIZABLE:
                continue
            for field in cls.fields:  # primitives first, as they are listed
                if field.typecode in _PRIMITIVE_BYTES:
                    self.take(_PRIMITIVE_BYTES[field.typecode], f"the field {field.name}")
            for field in cls.fields:
                if field.typecode not in _PRIMITIVE_BYTES:
                    self.content(f"the field {field.name}")
            if cls.flags & _SC_WRITE_METHOD:
                self.annotation(f"what {cls.name}.writeObject wrote")
        return desc

    def array_body(self) -> object:
        at = self.pos
        desc = self.class_desc("an array's class")
        if desc is None or not desc.name.startswith("["):
            raise JavaStreamError(at, "an array class")
        self.new_handle(desc)
        size_at = self.pos
        size = self.i32("an array's length")
        element = desc.name[1:2]
        width = _PRIMITIVE_BYTES.get(element, 1)
        if size < 0 or size * width > len(self.data) - self.pos:
            raise JavaStreamError(size_at, "an array length that fits in the bytes left", str(size))
        if element in _PRIMITIVE_BYTES:
            self.take(size * width, "an array's elements")
        else:
            for _ in range(size):
                self.content("an array element")
        return desc
