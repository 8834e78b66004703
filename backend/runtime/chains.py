"""Fused operator chains: one generated Python function per JobVertex.

Flink runs the operators of a chain inside one task, each handing its record to the
next by a method call. Here the chain becomes one generated generator function with
the operators pasted in and their expressions inlined (`Expression.inline`), so a
chain costs what a hand-written `mapPartitions` loop costs: one loop over the
input records, no generator or call per operator, no lookups of parameters. For
word count's first vertex the generated code is

    for _v1 in _o1:                       # the text source's lines
        for _v2 in (_v1.split()):         # flat_map
            _v3 = ((_v2, 1))              # map
            _no += 1
            yield (0, _v3)                # output 0, the HASH edge

Records going in (`records_in`, from the vertex's input JobEdges) and out (sent on
its output JobEdges; a broadcast record counts once) are counted at the chain's
boundary only, as Flink's task metrics numRecordsIn / numRecordsOut, and published
on the `SubtaskRun` every 1024 records (every batch) and at the end.

Each vertex gets its chain in every shape (`VARIANTS`, "inputs>output"): inputs one
(input position, record) at a time or as (input position, list of records); output
`plain` (output position, record), `routed` with the routers fused in, yielding for
a vertex with one output `(target subtask, (consumer input position, record))`, or
with several `(output position, (target subtask, (consumer input position,
record)))`, or `batched`, the same with lists of up to `BATCH_SIZE` records in place
of single ones: what Spark's `partitionBy(p, identity)` needs, without another pass
over the records and with one shuffle entry per batch.

Operators chain as a tree; a record is handed to an operator's outputs in edge
order. Python limits nesting (100 indentation levels, 20 nested loops per
function), so a very deep part of a chain is written as a nested generator
function instead, called with `yield from`: only pathological chains pay for it.

Errors are reported with the operator that raised them: every generated line knows
its node, and a failure is mapped through its traceback (`SubtaskRun.fail`), so
records pay nothing for it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from runtime.catalog import CATALOG, KEY_VARIABLES, ParamType
from runtime.events import SinkOutput
from runtime.expressions import compile_expression, expression_namespace
from runtime.operators import CODE, OperatorError
from runtime.operators.keyed import MISSING
from runtime.operators.sinks import FileSink, Sink
from runtime.plan import ChainCode, Fault, NodePlan, VertexPlan
from runtime.routing import KEY_TYPES_TEXT, NULL_BYTE_KEY, KeyRouter, RoutingError

OUTPUTS = ("plain", "routed", "batched")
"""Output shapes of a chain (`SubtaskRun.execute`)."""
BATCH_SIZE = 1024
"""Records per output before the batched shape sends its batches."""
FILENAME = "<chain>"
"""The file name of generated code in tracebacks."""
PROGRESS_EVERY = 1024
"""Records between two updates of `records_in` / `records_out` while running."""
_MAX_DEPTH = 40
"""Indentation levels before a part of the chain moves into a nested function."""
_MAX_LOOPS = 14
"""Nested loops before a part of the chain moves into a nested function."""


class InjectedFault(RuntimeError):
    """A failure a test asked for (`RunOptions.faults`)."""


# --- code generation -----------------------------------------------------------------------


class _Writer:
    """Writes the chain function of one vertex (implements `operators.base.Gen`)."""

    def __init__(self, vertex: VertexPlan, variant: str) -> None:
        inputs, output = variant.split(">")
        self.vertex = vertex
        self.batches = inputs == "batches"
        self.output = output
        self.mode = vertex.context.runtime_mode
        self.by_id = {n.id: n for n in (*vertex.nodes, *vertex.chained_sources)}
        self.setup_lines: list[tuple[str, int]] = []
        self.functions: list[list[tuple[str, int]]] = []
        self.buffer: list[tuple[str, int]] = []
        self.depth = 0
        self.loops = 0
        self.node = 0
        self.names: dict[str, int] = {}
        self.bound: set[int] = set()
        self.counters = ["_no"]
        self.pending: list[list[tuple[NodePlan, str, int, str | None, int, int, int]]] = []

    # Gen ------------------------------------------------------------------------------

    def line(self, text: str) -> None:
        self.buffer.append(("    " * self.depth + text, self.node))

    @contextlib.contextmanager
    def block(self, header: str, *, loop: bool = False) -> Iterator[None]:
        self.line(header)
        self.depth += 1
        self.loops += loop
        mark = len(self.buffer)
        try:
            yield
        finally:
            handed_on = bool(self.pending and self.pending[-1])  # written after this block
            if len(self.buffer) == mark and not handed_on:
                self.line("pass")
            self.depth -= 1
            self.loops -= loop

    def local(self, prefix: str, node: NodePlan) -> str:
        base = f"_{prefix}{node.id}"
        count = self.names.get(base, 0)
        self.names[base] = count + 1
        return base if count == 0 else f"{base}_{count}"

    def setup(self, text: str) -> None:
        self.setup_lines.append((text, self.node))

    def obj(self, node: NodePlan) -> str:
        name = f"_o{node.id}"
        if node.id not in self.bound:
            self.bound.add(node.id)
            self.setup_lines.append((f"{name} = _ctx.objects[{node.id}]", node.id))
        return name

    def inline(
        self, node: NodePlan, param: str, names: dict[str, str], text: str | None = None
    ) -> str:
        spec = CATALOG[node.kind].param(param)
        variables = spec.variables if spec.type is ParamType.EXPRESSION else KEY_VARIABLES
        source = node.params[param] if text is None else text
        return compile_expression(source, variables).inline(names)

    def emit(self, node: NodePlan, var: str, *, tail: bool, tag: str | None = None) -> None:
        outs = [out for out in node.outs if out.tag == tag]
        for position, out in enumerate(outs):
            last = tail and position == len(outs) - 1
            if out.node is not None:
                self.record(self.by_id[out.node], var, 0, None, last)
            elif out.output is not None:
                self.send(out.output, var)

    # chain structure ---------------------------------------------------------------------

    def record(self, node: NodePlan, var: str, slot: int, key: str | None, tail: bool) -> None:
        """The code of `node` for the record in `var`, in place or in a nested function.

        A record handed on as the last thing of a loop body (`tail`) is written after the
        current operator returns, at the indentation it was handed on at: the source is
        the same, and a chain of any length is written without deep Python recursion.
        """
        if tail and self.pending:
            self.pending[-1].append((node, var, slot, key, self.depth, self.loops, self.node))
            return
        self.pending.append([])
        saved = self.depth, self.loops
        try:
            work = [(node, var, slot, key, self.depth, self.loops, self.node)]
            while work:
                node, var, slot, key, self.depth, self.loops, attributed = work.pop()
                outer, self.node = self.node, attributed
                self.record_now(node, var, slot, key, tail)
                self.node = outer
                work.extend(self.pending[-1])
                self.pending[-1].clear()
                tail = True  # everything after the first is a handed-on tail
        finally:
            self.pending.pop()
            self.depth, self.loops = saved

    def record_now(self, node: NodePlan, var: str, slot: int, key: str | None, tail: bool) -> None:
        if self.depth < _MAX_DEPTH and self.loops < _MAX_LOOPS:
            with self.at(node.id):
                CODE[node.kind].record(self, node, var, slot, key, tail)
            return
        index = len(self.functions)
        name = f"_f{index}"
        self.functions.append([])  # the name is taken before nested parts take theirs
        saved = self.buffer, self.depth, self.loops
        self.buffer, self.depth, self.loops = [], 1, 0
        with self.at(node.id):
            self.line("nonlocal " + ", ".join(self.counters))
            self.record(node, "_y", slot, key, False)
            self.line("return")
            self.line("yield")  # a generator even when this part only writes to sinks
        self.functions[index] = [(f"def {name}(_y):", node.id), *self.buffer]
        self.buffer, self.depth, self.loops = saved
        with self.at(node.id):
            self.line(f"yield from {name}({var})")

    @contextlib.contextmanager
    def at(self, node: int) -> Iterator[None]:
        """Attribute the lines written inside to `node` (-1 - p: output p)."""
        outer, self.node = self.node, node
        try:
            yield
        finally:
            self.node = outer

    def send(self, position: int, var: str) -> None:
        """Send the record in `var` on output `position`."""
        with self.at(-1 - position):
            self.line("_no += 1")
            if self.output == "plain":
                self.line(f"yield ({position}, {var})")
                return
            target = self.target(position, var)
            if self.output == "routed":
                value = f"({self.vertex.outputs[position].consumer_input}, {var})"
                if target is None:
                    with self.block(f"for _b{position} in _t{position}:", loop=True):
                        self.line(f"yield {self.shape(position, f'_b{position}', value)}")
                else:
                    self.line(f"yield {self.shape(position, target, value)}")
                return
            if target is None:
                self.line(f"_bb{position}.append({var})")
            else:
                self.line(f"_bf{position}[{target}].append({var})")
            self.line(f"_nb{position} += 1")
            with self.block(f"if _nb{position} == {BATCH_SIZE}:"):
                self.flush(position)

    def shape(self, position: int, target: str, value: str) -> str:
        """What a routed output yields: with the output position when there are several."""
        if len(self.vertex.outputs) == 1:
            return f"({target}, {value})"
        return f"({position}, ({target}, {value}))"

    def target(self, position: int, var: str) -> str | None:
        """Lines computing the consumer subtask of `var`; its expression (None: all)."""
        output = self.vertex.outputs[position]
        router, kind = output.router, output.partitioner
        if kind == "HASH" and router.key is not None:
            key, target, kind_var = f"_hk{position}", f"_ht{position}", f"_hc{position}"
            self.line(f"{key} = {router.key.inline({'x': var})}")
            # The router's dict of str and int keys first (see routing.KeyRouter).
            self.line(f"{kind_var} = {key}.__class__")
            self.line(
                f"{target} = _hf{position}.get({key}) "
                f"if {kind_var} is str or {kind_var} is int else None"
            )
            with self.block(f"if {target} is None:"):
                self.line(f"{target} = _h{position}({key})")
            return target
        if kind == "CUSTOM":
            key = router.key.inline({"x": var}) if router.key is not None else var
            return f"_c{position}({key})"
        if kind == "BROADCAST":
            return None
        if kind == "REBALANCE":
            self.line(f"_r{position} = (_r{position} + 1) % {output.consumer_parallelism}")
            return f"_r{position}"
        if kind == "SHUFFLE":
            return f"int(_d{position}() * {output.consumer_parallelism})"
        if kind == "GLOBAL":
            return "0"
        if all(len(c) == 1 for c in router.channels_of):  # FORWARD, RESCALE down, keyless HASH
            return f"_t{position}"
        # RESCALE up: round-robin over this subtask's channels, from the first.
        self.line(f"_r{position} = (_r{position} + 1) % _n{position}")
        return f"_t{position}[_r{position}]"

    def flush(self, position: int) -> None:
        """Yield the batches of output `position` and start new ones."""
        output = self.vertex.outputs[position]
        self.line(f"_nb{position} = 0")
        if output.partitioner == "BROADCAST":
            batch = f"({output.consumer_input}, _bb{position})"
            with self.block(f"if _bb{position}:"):
                with self.block(f"for _b{position} in _t{position}:", loop=True):
                    self.line(f"yield {self.shape(position, f'_b{position}', batch)}")
                self.line(f"_bb{position} = []")
            return
        batch = f"({output.consumer_input}, _l{position})"
        pairs = f"for _b{position}, _l{position} in enumerate(_bf{position}):"
        with self.block(pairs, loop=True), self.block(f"if _l{position}:"):
            self.line(f"yield {self.shape(position, f'_b{position}', batch)}")
            self.line(f"_bf{position}[_b{position}] = []")

    def routing_setup(self) -> None:
        for output in self.vertex.outputs:
            position, kind, router = output.position, output.partitioner, output.router
            channels = f"_t{position}"
            if kind == "HASH" and router.key is not None:
                self.setup(f"_h{position} = _ctx.hash_router({position})")
                self.setup(f"_hf{position} = _h{position}.fast")
            elif kind == "CUSTOM":
                self.setup(f"_c{position} = _ctx.custom_channel({position})")
            elif kind == "BROADCAST":
                self.setup(f"{channels} = _ctx.channels({position})")
            elif kind == "REBALANCE":
                self.setup(f"_r{position} = _ctx.rebalance_start({position})")
                self.counters.append(f"_r{position}")
            elif kind == "SHUFFLE":
                self.setup(f"_d{position} = _ctx.shuffle_draw({position})")
            elif kind == "GLOBAL":
                pass
            elif kind == "HASH":  # no key: windowAll's NullByteKeySelector
                self.setup(f"{channels} = _ctx.hash_router({position})({NULL_BYTE_KEY})")
            elif all(len(c) == 1 for c in router.channels_of):
                self.setup(f"{channels} = _ctx.channels({position})[0]")
            else:
                self.setup(f"{channels} = _ctx.channels({position})")
                self.setup(f"_n{position} = _ctx.channel_count({position})")
                self.setup(f"_r{position} = -1")
                self.counters.append(f"_r{position}")
            if self.output == "batched":
                self.setup(f"_nb{position} = 0")
                self.counters.append(f"_nb{position}")
                if kind == "BROADCAST":
                    self.setup(f"_bb{position} = []")
                    self.counters.append(f"_bb{position}")
                else:
                    self.setup(f"_bf{position} = _ctx.batches({position})")

    def write(self) -> tuple[str, tuple[int, ...]]:
        vertex = self.vertex
        head = self.by_id[vertex.head]
        self.setup("_ni = 0")
        self.setup("_no = 0")
        if self.output != "plain":
            self.routing_setup()
        for node in (*vertex.chained_sources, *reversed(vertex.nodes)):
            with self.at(node.id):
                CODE[node.kind].setup(self, node)

        # Sources: a source head, then sources chained into the head.
        source_nodes = [head] if CATALOG[head.kind].inputs == 0 else []
        for node in (*source_nodes, *vertex.chained_sources):
            with self.at(node.id), CODE[node.kind].loop(self, node) as var:
                self.progress("_ns")
                if node is head:
                    self.emit(head, var, tail=True)
                else:
                    self.record(head, var, self.slot_of_chained_source(node), None, True)
        if source_nodes or vertex.chained_sources:
            self.setup("_ns = 0")

        if vertex.inputs and self.batches:
            with self.block("for _p, _c in _records:", loop=True):
                self.line("_ni += len(_c)")
                self.line("_ctx.records_in = _ni")
                self.line("_ctx.records_out = _no")
                self.dispatch(head)
        elif vertex.inputs:
            with self.block("for _p, _x in _records:", loop=True):
                self.line("_ni += 1")
                self.progress(None)
                self.dispatch(head)

        for node in reversed(vertex.nodes):  # parents before children
            with self.at(node.id):
                CODE[node.kind].finish(self, node)
        if self.output == "batched":
            for output in vertex.outputs:
                with self.at(-1 - output.position):
                    self.flush(output.position)
        self.line("_ctx.complete(_ni, _no)")
        return self.assemble()

    def progress(self, counter: str | None) -> None:
        """Count a record; every PROGRESS_EVERY records publish the counts."""
        name = counter or "_ni"
        if counter is not None:
            self.line(f"{counter} += 1")
        with self.block(f"if not {name} & {PROGRESS_EVERY - 1}:"):
            self.line("_ctx.records_in = _ni")
            self.line("_ctx.records_out = _no")

    def slot_of_chained_source(self, source: NodePlan) -> int:
        """The head's input a chained source feeds (its edge's typeNumber, 0 for one input)."""
        if CATALOG[self.by_id[self.vertex.head].kind].inputs < 2:
            return 0
        return next(out.type_number for out in source.outs if out.node == self.vertex.head)

    def dispatch(self, head: NodePlan) -> None:
        """Hand each input record to the head, with its key, by input position."""
        spec = CATALOG[head.kind]
        groups: dict[tuple[int, str | None], list[int]] = {}
        for edge in self.vertex.inputs:
            slot = edge.type_number if spec.inputs == 2 else 0
            key = edge.key if spec.keyed and edge.partitioner == "HASH" else None
            groups.setdefault((slot, key), []).append(edge.position)
        for index, ((slot, key), positions) in enumerate(groups.items()):
            if len(groups) == 1:
                self.head_record(head, slot, key)
                return
            test = (
                f"_p == {positions[0]}"
                if len(positions) == 1
                else f"_p in ({', '.join(map(str, positions))})"
            )
            keyword = "if" if index == 0 else "elif" if index < len(groups) - 1 else "else"
            with self.block(f"{keyword} {test}:" if keyword != "else" else "else:"):
                self.head_record(head, slot, key)

    def head_record(self, head: NodePlan, slot: int, key: str | None) -> None:
        if self.batches:
            with self.block("for _x in _c:", loop=True):
                self.head_record_one(head, slot, key)
        else:
            self.head_record_one(head, slot, key)

    def head_record_one(self, head: NodePlan, slot: int, key: str | None) -> None:
        key_var = None
        if key is not None:
            key_var = f"_k{head.id}"
            with self.at(head.id):
                source = compile_expression(key, KEY_VARIABLES).inline({"x": "_x"})
                self.line(f"{key_var} = {source}")
        self.record(head, "_x", slot, key_var, True)

    def assemble(self) -> tuple[str, tuple[int, ...]]:
        lines: list[tuple[str, int]] = [
            ("def _chain(_records, _ctx):", 0),
            ("    try:", 0),
        ]
        indent = "        "
        lines += [(indent + text, node) for text, node in self.setup_lines]
        for function in self.functions:
            lines += [(indent + text, node) for text, node in function]
        lines += [(indent + text, node) for text, node in self.buffer]
        lines += [
            ("    except _Exception as _e:", 0),
            ("        raise _ctx.fail(_e) from _e", 0),
            ("    except _BaseException:", 0),
            ("        _ctx.abort()", 0),
            ("        raise", 0),
            ("    return", 0),
            ("    yield", 0),  # a generator even for a vertex without outputs
        ]
        return "\n".join(text for text, _ in lines) + "\n", tuple(node for _, node in lines)


VARIANTS = tuple(f"{inputs}>{output}" for inputs in ("records", "batches") for output in OUTPUTS)
"""Every chain a vertex gets: input shape > output shape."""


def generate_chains(vertex: VertexPlan) -> dict[str, ChainCode]:
    """Every variant of the vertex's chain function, compiled once here to check them.

    Raises ExpressionError or KeyError only for a vertex `runnability` would reject.
    """
    result = {}
    for variant in VARIANTS:
        source, lines = _Writer(vertex, variant).write()
        _compile(source)  # fail here, in the driver, rather than in every worker
        result[variant] = ChainCode(source, lines)
    return result


_CODE_CACHE: dict[str, Callable[..., Iterator[Any]]] = {}
_CODE_LOCK = threading.Lock()


def _compile(code: str) -> Callable[..., Iterator[Any]]:
    """The chain function of generated code, compiled once per process."""
    function = _CODE_CACHE.get(code)
    if function is None:
        namespace = expression_namespace()
        namespace.update(_M=MISSING, _Exception=Exception, _BaseException=BaseException)
        exec(compile(code, FILENAME, "exec"), namespace)  # our generated code, see above
        function = namespace["_chain"]
        with _CODE_LOCK:
            if len(_CODE_CACHE) > 256:
                _CODE_CACHE.clear()
            _CODE_CACHE[code] = function
    return function


# --- running -------------------------------------------------------------------------------


class SubtaskRun:
    """One attempt of one subtask of a vertex: its operators' state and its counters.

    `run(records)` takes the vertex's input records as (input position, record), in
    any order, and yields (output position, record); `run_routed(records)` yields the
    routed shape described in the module docstring. Either runs once. When the
    iterator is exhausted the subtask is finished: `records_in` / `records_out` are
    final, file sinks have closed their pending parts (the run commits them when it
    finishes: `operators.sinks.commit_file_sinks`), and `sink_outputs()` tells what the
    sinks received. `source_inputs` are what Spark read for file sources on a location
    of another scheme than `file:` (`SubtaskContext.source_input`).
    """

    def __init__(
        self,
        vertex: VertexPlan,
        subtask: int,
        attempt: int = 0,
        *,
        source_inputs: Mapping[int, Iterator[tuple[int, list[Any]]]] | None = None,
    ) -> None:
        if not 0 <= subtask < vertex.parallelism:
            raise ValueError(
                f"{vertex.name} has subtasks 0..{vertex.parallelism - 1}, not {subtask}"
            )
        self.vertex = vertex
        self.vertex_id = vertex.id
        self.subtask = subtask
        self.attempt = attempt
        self.parallelism = vertex.parallelism
        self.data_dir = vertex.context.data_dir
        self.token = vertex.context.token
        self.source_inputs = source_inputs or {}
        self.preview_size = vertex.context.preview_size
        self.preview_chars = vertex.context.preview_chars
        self.records_in = 0
        self.records_out = 0
        self.finished = False
        self.started = False
        self.objects: dict[int, Any] = {}
        self.variant = VARIANTS[0]
        try:
            for node in (*vertex.chained_sources, *vertex.nodes):
                self.objects[node.id] = CODE[node.kind].create(node, self)
        except Exception as error:
            self.abort()
            raise _operator_error(node, error) from error
        self.sinks: list[Sink] = [o for o in self.objects.values() if isinstance(o, Sink)]
        self.fault = _fault_for(vertex, subtask, attempt)

    def run(self, records: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
        """(input position, record) in; (output position, record) out."""
        return self.execute(records)

    def run_routed(self, records: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
        """(input position, record) in; routed records out (see the module docstring)."""
        return self.execute(records, output="routed")

    def execute(
        self, inputs: Iterable[Any], *, batched_input: bool = False, output: str = "plain"
    ) -> Iterator[Any]:
        """Run the chain once, in the input and output shapes asked for.

        `batched_input`: inputs are (input position, list of records). `output`:
        "plain" (output position, record), "routed" one routed record at a time, or
        "batched" routed lists of records: (target, (consumer input, [records])),
        with the output position in front when the vertex has several outputs.
        """
        if self.started:
            raise RuntimeError("a SubtaskRun runs once; open another attempt")
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, not {output!r}")
        self.started = True
        self.variant = f"{'batches' if batched_input else 'records'}>{output}"
        fault = self.fault
        if fault is not None:
            if fault.after_records == 0 or self.vertex.is_source:
                return self._fail_at_once(fault)
            inputs = _failing_after(inputs, fault, batched_input)
        function = _compile(self.vertex.codes[self.variant].source)
        return function(iter(inputs), self)

    def _fail_at_once(self, fault: Fault) -> Iterator[Any]:
        self.abort()
        raise InjectedFault(fault.message)
        yield  # a generator, so the failure happens when the run is iterated

    def sink_outputs(self) -> tuple[SinkOutput, ...]:
        """What each sink of the vertex received in this subtask, in chain order."""
        return tuple(sink.output() for sink in self.sinks)

    def source_input(self, node: int) -> Iterator[tuple[int, list[Any]]] | None:
        return self.source_inputs.get(node)

    def spooled(self, node: int) -> Path | None:
        """The part file sink `node` spooled on a location of another scheme than `file:`,
        once the subtask finished (None if it wrote no records)."""
        sink = self.objects.get(node)
        return sink.spooled() if isinstance(sink, FileSink) else None

    # called by the generated code ---------------------------------------------------------

    def complete(self, records_in: int, records_out: int) -> None:
        self.records_in = records_in
        self.records_out = records_out
        for sink in self.sinks:
            sink.complete()
        self.finished = True

    def abort(self) -> None:
        for sink in self.objects.values():
            if isinstance(sink, Sink):
                sink.abort()

    def fail(self, error: Exception) -> Exception:
        """The exception to report for `error`: which operator or edge, and why."""
        self.abort()
        if isinstance(error, (OperatorError, InjectedFault)):
            return error
        lines = self.vertex.codes[self.variant].lines
        where = 0
        traceback = error.__traceback__
        while traceback is not None:
            if traceback.tb_frame.f_code.co_filename == FILENAME:
                line = traceback.tb_lineno
                if 0 < line <= len(lines):
                    where = lines[line - 1]
            traceback = traceback.tb_next
        if where < 0:
            output = self.vertex.outputs[-1 - where]
            if isinstance(error, RoutingError):
                detail = str(error)
            else:
                detail = f"{type(error).__name__}: {error}"
            if output.partitioner in ("HASH", "CUSTOM") and isinstance(error, TypeError):
                detail += f"; {KEY_TYPES_TEXT}"
            return RoutingError(
                f"{output.partitioner} edge into {output.router.consumer}: {detail}"
            )
        node = self.vertex.node(where) if where else self.vertex.node(self.vertex.head)
        return _operator_error(node, error)

    def channels(self, position: int) -> tuple[int, ...]:
        return self.vertex.outputs[position].router.channels(self.subtask)

    def channel_count(self, position: int) -> int:
        return len(self.channels(position))

    def rebalance_start(self, position: int) -> int:
        return self.vertex.outputs[position].router.rebalance_start(self.subtask)

    def shuffle_draw(self, position: int) -> Callable[[], float]:
        return self.vertex.outputs[position].router.random(self.subtask).random

    def hash_router(self, position: int) -> KeyRouter:
        return self.vertex.outputs[position].router.subtask_of_key()

    def custom_channel(self, position: int) -> Callable[[Any], int]:
        return self.vertex.outputs[position].router.custom_channel()

    def batches(self, position: int) -> list[list[Any]]:
        """One empty batch per consumer subtask of output `position`."""
        return [[] for _ in range(self.vertex.outputs[position].consumer_parallelism)]


def _operator_error(node: NodePlan, error: Exception) -> OperatorError:
    if isinstance(error, OperatorError):
        return error
    return OperatorError(node.id, node.name, f"{type(error).__name__}: {error}")


def _fault_for(vertex: VertexPlan, subtask: int, attempt: int) -> Fault | None:
    members = {n.id for n in (*vertex.nodes, *vertex.chained_sources)}
    for fault in vertex.context.faults:
        targeted = fault.vertex == vertex.id or (fault.node is not None and fault.node in members)
        if targeted and fault.subtask == subtask and attempt in fault.attempts:
            return fault
    return None


def _failing_after(inputs: Iterable[Any], fault: Fault, batched: bool) -> Iterator[Any]:
    count = 0
    for item in inputs:
        yield item
        count += len(item[1]) if batched else 1
        if count >= fault.after_records:
            raise InjectedFault(fault.message)
