"""What an operator kind contributes to a fused chain, and the interface it writes through.

A chain function is generated Python (`runtime.chains`). Each operator adds lines:
`setup` once before the records, `record` for one input record held in a local
variable, `finish` at the end of input, and a source's `produce` loop. They write
through `Gen`, which knows the indentation, inlines expressions with renamed
variables and sends a record on to the operator's outputs (chained operators are
pasted in place, network outputs are `yield`ed).

`tail` is true when the code being written is the last of the innermost loop body:
an operator may then `continue` instead of nesting (a filter), which keeps long
chains flat.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from runtime.plan import NodePlan


class OperatorError(RuntimeError):
    """An operator failed on a record: which node, and why (shown on the run's subtask)."""

    def __init__(self, node: int, name: str, message: str) -> None:
        super().__init__(f"{name} (node {node}): {message}")
        self.node = node
        self.name = name
        self.detail = message

    def __reduce__(self) -> tuple[Any, ...]:
        return (OperatorError, (self.node, self.name, self.detail))


class Gen(Protocol):
    """The code writer a chain generator hands to operators."""

    mode: str
    """The job's runtime mode: STREAMING or BATCH."""

    def line(self, text: str) -> None:
        """Add one line at the current indentation."""

    def block(self, header: str, *, loop: bool = False) -> AbstractContextManager[None]:
        """`with gen.block("for _y in xs:", loop=True): ...` indents what is written inside."""

    def local(self, prefix: str, node: NodePlan) -> str:
        """A fresh local variable name for this node."""

    def setup(self, text: str) -> None:
        """Add a line before any record is read."""

    def obj(self, node: NodePlan) -> str:
        """A local bound to the node's runtime object (`OperatorCode.create`)."""

    def inline(
        self, node: NodePlan, param: str, names: dict[str, str], text: str | None = None
    ) -> str:
        """The node's expression parameter as source, its variables read from `names`."""

    def emit(self, node: NodePlan, var: str, *, tail: bool, tag: str | None = None) -> None:
        """Send the record in `var` to the node's outputs (those with side output `tag`)."""


class SubtaskContext(Protocol):
    """What an operator's runtime object may know of the subtask it runs in
    (`runtime.chains.SubtaskRun` is one): operators never see the chain runner itself."""

    vertex_id: str
    subtask: int
    attempt: int
    parallelism: int
    data_dir: str
    """The run's data location (`runtime.storage`), which source and sink paths are
    relative to: an absolute folder for `file:`, else a URI."""
    token: str
    """The run's token: names the parts file sinks write before the run commits them."""
    preview_size: int
    """Records each sink subtask keeps as text for the run's preview."""
    preview_chars: int
    """Characters of preview each sink subtask keeps."""

    def source_input(self, node: int) -> Iterator[tuple[int, list[Any]]] | None:
        """What Spark read for a file source on a location of another scheme than `file:`
        (`runtime.spark.hadoop`): (file index, units) batches of this subtask, in file
        order; None when the source reads its files itself."""


class OperatorCode:
    """The code and runtime object of one operator kind; defaults do nothing."""

    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        """The runtime object of this node in one subtask (None: the node needs none)."""
        return None

    def setup(self, gen: Gen, node: NodePlan) -> None:
        """Lines before the first record."""

    def loop(self, gen: Gen, node: NodePlan) -> AbstractContextManager[str]:
        """Sources: opens the loop over the subtask's records; gives the record's variable.

        What is written inside the `with` runs once per record.
        """
        raise NotImplementedError(f"{node.kind} is not a source")

    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        """Lines for one input record in `var` (input `slot`: 0, or 1 / 2; `key`: its key)."""
        gen.emit(node, var, tail=tail)

    def finish(self, gen: Gen, node: NodePlan) -> None:
        """Lines after the last record (flush keyed state, fire windows)."""


def emit_unless_none(gen: Gen, node: NodePlan, var: str, *, tail: bool) -> None:
    """Send `var` on unless it is None (process functions emit nothing with None)."""
    if tail:
        with gen.block(f"if {var} is None:"):
            gen.line("continue")
        gen.emit(node, var, tail=True)
    else:
        with gen.block(f"if {var} is not None:"):
            gen.emit(node, var, tail=False)
