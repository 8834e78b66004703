"""Two-input operators: records of input 1 and input 2 (the edges' typeNumber) meet.

A union needs no operator: it is several edges into the same input. `co_map`,
`co_flat_map` and `co_process` apply `fn1` to input 1 and `fn2` to input 2;
`keyed_co_process` also gives them the key (both inputs are HASH edges with keys).
`broadcast_process` is Flink's broadcast state pattern: input 2 fills a state dict
with the (key, value) pairs `fn2` makes, and each record of input 1 is processed by
`fn1` with that dict. Flink does not fix the order in which two inputs interleave;
here input 2 is read completely first (input 1 is held until the end of input), so
the result does not depend on the order records arrive in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime.operators.base import Gen, OperatorCode, emit_unless_none

if TYPE_CHECKING:
    from runtime.plan import NodePlan


def _param(slot: int) -> str:
    return "fn2" if slot == 2 else "fn1"


class CoMap(OperatorCode):
    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        out = gen.local("v", node)
        gen.line(f"{out} = {gen.inline(node, _param(slot), {'x': var})}")
        gen.emit(node, out, tail=tail)


class CoFlatMap(OperatorCode):
    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        out = gen.local("v", node)
        source = gen.inline(node, _param(slot), {"x": var})
        with gen.block(f"for {out} in {source}:", loop=True):
            gen.emit(node, out, tail=True)


class CoProcess(OperatorCode):
    def __init__(self, keyed: bool) -> None:
        self.keyed = keyed

    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        names = {"x": var, "key": str(key)} if self.keyed else {"x": var}
        out = gen.local("v", node)
        gen.line(f"{out} = {gen.inline(node, _param(slot), names)}")
        emit_unless_none(gen, node, out, tail=tail)


class BroadcastProcess(OperatorCode):
    def setup(self, gen: Gen, node: NodePlan) -> None:
        gen.setup(f"_st{node.id} = {{}}")
        gen.setup(f"_buf{node.id} = []")

    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        if slot == 2:
            name, value = f"_bk{node.id}", f"_bv{node.id}"
            gen.line(f"{name}, {value} = {gen.inline(node, 'fn2', {'x': var})}")
            gen.line(f"_st{node.id}[{name}] = {value}")
        else:
            gen.line(f"_buf{node.id}.append({var})")

    def finish(self, gen: Gen, node: NodePlan) -> None:
        held, out = f"_x{node.id}", f"_v{node.id}"
        with gen.block(f"for {held} in _buf{node.id}:", loop=True):
            names = {"x": held, "state": f"_st{node.id}"}
            gen.line(f"{out} = {gen.inline(node, 'fn1', names)}")
            emit_unless_none(gen, node, out, tail=True)


CODE: dict[str, OperatorCode] = {
    "co_map": CoMap(),
    "co_flat_map": CoFlatMap(),
    "co_process": CoProcess(keyed=False),
    "keyed_co_process": CoProcess(keyed=True),
    "broadcast_process": BroadcastProcess(),
}
