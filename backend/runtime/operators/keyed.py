"""Keyed operators: reduce, sum, min, max, count, aggregate, keyed_process.

Their input edges are HASH, so each subtask holds the state of exactly the keys of
its key-group range, in one dict per operator. What they emit follows the runtime
mode, as Flink does: STREAMING emits every updated value (the first record of a key
as it is), BATCH only the final value of each key at the end of input, keys in the
order they first appeared.

`sum`, `min` and `max` follow Flink's field aggregations: the field is summed (or the
smallest / largest kept) and every other field comes from the key's first record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runtime.operators.base import Gen, OperatorCode, SubtaskContext, emit_unless_none

if TYPE_CHECKING:
    from runtime.plan import NodePlan

MISSING: Any = object()
"""A key without state yet (`_M` in chain code)."""


class FieldAggregator:
    """The fold of `sum`, `min` or `max` over one field (or the record itself)."""

    def __init__(self, kind: str, field: int | str | None) -> None:
        self.kind = kind
        self.field = field

    def __call__(self, current: Any, record: Any) -> Any:
        if current is MISSING:
            return record
        field = self.field
        if field is None or field == "":
            return self._combine(current, record)
        if isinstance(current, dict):
            name = field if field in current else str(field)
            updated = dict(current)
            updated[name] = self._combine(current[name], record[name])
            return updated
        position = int(field)
        value = self._combine(current[position], record[position])
        if isinstance(current, tuple):
            return (*current[:position], value, *current[position + 1 :])
        updated_list = list(current)
        updated_list[position] = value
        return updated_list

    def _combine(self, current: Any, new: Any) -> Any:
        if self.kind == "sum":
            return current + new
        if self.kind == "min":
            return new if new < current else current
        return new if new > current else current


def _state(node: NodePlan) -> str:
    return f"_st{node.id}"


def _emit_when_streaming(gen: Gen, node: NodePlan, var: str, tail: bool) -> None:
    if gen.mode == "STREAMING":
        gen.emit(node, var, tail=tail)


class _Keyed(OperatorCode):
    def setup(self, gen: Gen, node: NodePlan) -> None:
        gen.setup(f"{_state(node)} = {{}}")


class Reduce(_Keyed):
    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        state, acc = _state(node), f"_a{node.id}"
        gen.line(f"{acc} = {state}.get({key}, _M)")
        reduced = gen.inline(node, "fn", {"a": acc, "b": var})
        gen.line(f"{acc} = {var} if {acc} is _M else {reduced}")
        gen.line(f"{state}[{key}] = {acc}")
        _emit_when_streaming(gen, node, acc, tail)

    def finish(self, gen: Gen, node: NodePlan) -> None:
        if gen.mode == "BATCH":
            acc = f"_a{node.id}"
            with gen.block(f"for {acc} in {_state(node)}.values():", loop=True):
                gen.emit(node, acc, tail=True)


class Fields(Reduce):
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        return FieldAggregator(self.kind, node.params.get("field"))

    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        state, acc = _state(node), f"_a{node.id}"
        gen.line(f"{acc} = {gen.obj(node)}({state}.get({key}, _M), {var})")
        gen.line(f"{state}[{key}] = {acc}")
        _emit_when_streaming(gen, node, acc, tail)


class Count(_Keyed):
    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        state, count, out = _state(node), f"_c{node.id}", f"_v{node.id}"
        gen.line(f"{count} = {state}.get({key}, 0) + 1")
        gen.line(f"{state}[{key}] = {count}")
        if gen.mode == "STREAMING":
            gen.line(f"{out} = ({key}, {count})")
            gen.emit(node, out, tail=tail)

    def finish(self, gen: Gen, node: NodePlan) -> None:
        if gen.mode == "BATCH":
            out = f"_v{node.id}"
            with gen.block(f"for {out} in {_state(node)}.items():", loop=True):
                gen.emit(node, out, tail=True)


class Aggregate(_Keyed):
    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        state, acc = _state(node), f"_a{node.id}"
        gen.line(f"{acc} = {state}.get({key}, _M)")
        with gen.block(f"if {acc} is _M:"):
            gen.line(f"{acc} = {gen.inline(node, 'zero', {})}")
        gen.line(f"{acc} = {gen.inline(node, 'add', {'acc': acc, 'x': var})}")
        gen.line(f"{state}[{key}] = {acc}")
        if gen.mode == "STREAMING":
            out = f"_v{node.id}"
            gen.line(f"{out} = {gen.inline(node, 'result', {'acc': acc})}")
            gen.emit(node, out, tail=tail)

    def finish(self, gen: Gen, node: NodePlan) -> None:
        if gen.mode == "BATCH":
            acc, out = f"_a{node.id}", f"_v{node.id}"
            with gen.block(f"for {acc} in {_state(node)}.values():", loop=True):
                gen.line(f"{out} = {gen.inline(node, 'result', {'acc': acc})}")
                gen.emit(node, out, tail=True)


class KeyedProcess(OperatorCode):
    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        out = gen.local("v", node)
        gen.line(f"{out} = {gen.inline(node, 'fn', {'x': var, 'key': str(key)})}")
        emit_unless_none(gen, node, out, tail=tail)


CODE: dict[str, OperatorCode] = {
    "reduce": Reduce(),
    "sum": Fields("sum"),
    "min": Fields("min"),
    "max": Fields("max"),
    "count": Count(),
    "aggregate": Aggregate(),
    "keyed_process": KeyedProcess(),
}
