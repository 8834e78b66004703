"""One-input operators without state: map, filter, flat_map, process, pass-throughs.

Their code is inlined into the chain: a map is one assignment, a filter one test (a
`continue` when it ends the loop body), a flat map one inner loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime.operators.base import Gen, OperatorCode, emit_unless_none

if TYPE_CHECKING:
    from runtime.plan import NodePlan


class Map(OperatorCode):
    def __init__(self, param: str = "fn") -> None:
        self.param = param

    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        out = gen.local("v", node)
        gen.line(f"{out} = {gen.inline(node, self.param, {'x': var})}")
        gen.emit(node, out, tail=tail)


class Filter(OperatorCode):
    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        test = gen.inline(node, "predicate", {"x": var})
        if tail:
            with gen.block(f"if not {test}:"):
                gen.line("continue")
            gen.emit(node, var, tail=True)
        else:
            with gen.block(f"if {test}:"):
                gen.emit(node, var, tail=False)


class FlatMap(OperatorCode):
    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        out = gen.local("v", node)
        with gen.block(f"for {out} in {gen.inline(node, 'fn', {'x': var})}:", loop=True):
            gen.emit(node, out, tail=True)


class Process(OperatorCode):
    """PyFlink's ProcessFunction: `fn` (None emits nothing) and predicate side outputs."""

    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        sides = [side for side in node.params.get("sideOutputs") or () if isinstance(side, dict)]
        out = gen.local("v", node)
        gen.line(f"{out} = {gen.inline(node, 'fn', {'x': var})}")
        emit_unless_none(gen, node, out, tail=tail and not sides)
        for position, side in enumerate(sides):
            text = side.get("predicate", "True")
            test = gen.inline(node, "sideOutputs", {"x": var}, text=text)
            with gen.block(f"if {test}:"):
                gen.emit(node, var, tail=tail and position == len(sides) - 1, tag=side["tag"])


class PassThrough(OperatorCode):
    """Kinds PyFlink adds around its Python functions: the record goes on unchanged."""


CODE: dict[str, OperatorCode] = {
    "map": Map(),
    "filter": Filter(),
    "flat_map": FlatMap(),
    "process": Process(),
    "side_output": PassThrough(),
    "key_by": PassThrough(),
    "print.align_type": PassThrough(),
    "timestamps.extract": PassThrough(),
    "timestamps.watermarks": PassThrough(),
    "timestamps.remove": PassThrough(),
    "partition_custom.key": PassThrough(),
    "partition_custom.values": PassThrough(),
}
