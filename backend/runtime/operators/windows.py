"""Windows: `window.*` per key (behind a HASH edge) and `window_all.*` over all records.

Assigners follow Flink's:

- tumbling: the window of timestamp t starts at `t - (t + size) % size` (Java `%`);
- sliding: every window of `size` starting at multiples of `slide` that holds t;
- session: a record opens [t, t + gap); windows that intersect (touching included:
  `start <= other.end and end >= other.start`) merge, per key;
- count tumbling: fires every `size` records of a key with them, then starts over;
  count sliding: fires every `slide` records with the last `size` (Flink's
  GlobalWindows + CountTrigger + CountEvictor). A count window that never filled
  never fires, as in Flink.

Event time is the `timestamp` expression of each record, in ms; processing time is
the clock when the record is processed. The input is bounded: it ends with a
watermark at +infinity, so every time window fires at the end of input, in the order
of window end, then start, then when the window was first seen (Flink fires by
timestamp; ties have no fixed order there).

What a window emits: `*.reduce` the reduced value (the first record as is, then `fn`
with each later one, in arrival order), `*.aggregate` `result(acc)`, `*.process` /
`*.apply` `fn(key, values, window)` (without `key` for window_all), None meaning
nothing. `window` is (start, end) in ms, end excluded, or for count windows the
positions of the window's records among the key's records (first, last + 1).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from runtime.expressions import compile_expression
from runtime.operators.base import Gen, OperatorCode, SubtaskContext

if TYPE_CHECKING:
    from runtime.plan import NodePlan

_NOTHING: tuple[Any, ...] = ()


def java_remainder(a: int, b: int) -> int:
    """Java's `a % b`: the sign of the dividend."""
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def window_start(timestamp: int, size: int) -> int:
    """`TimeWindow.getWindowStartWithOffset(timestamp, 0, size)`."""
    return timestamp - java_remainder(timestamp + size, size)


class _Function:
    """What a window computes from its records: reduce, aggregate or process."""

    def __init__(self, node: NodePlan, keyed: bool) -> None:
        self.keyed = keyed
        kind = node.kind.split(".", 1)[1]
        params = node.params
        self.kind = "process" if kind == "apply" else kind
        if self.kind == "reduce":
            self.reduce = compile_expression(params["fn"], ("a", "b")).function
        elif self.kind == "aggregate":
            self.zero = compile_expression(params["zero"], ()).function
            self.add = compile_expression(params["add"], ("acc", "x")).function
            self.result = compile_expression(params["result"], ("acc",)).function
        else:
            variables = ("key", "values", "window") if keyed else ("values", "window")
            self.process = compile_expression(params["fn"], variables).function

    @property
    def incremental(self) -> bool:
        """Reduce and aggregate keep one accumulator per window, not its records."""
        return self.kind != "process"

    def start(self, record: Any) -> Any:
        if self.kind == "reduce":
            return record
        return self.add(self.zero(), record)

    def step(self, acc: Any, record: Any) -> Any:
        if self.kind == "reduce":
            return self.reduce(acc, record)
        return self.add(acc, record)

    def fold(self, records: Any) -> Any:
        iterator = iter(records)
        acc = self.start(next(iterator))
        for record in iterator:
            acc = self.step(acc, record)
        return acc

    def fire(self, key: Any, state: Any, window: tuple[int, int], folded: bool) -> Any:
        """The window's output, or None. `state`: an accumulator, or the records."""
        if self.kind == "process":
            values = list(state)
            if self.keyed:
                return self.process(key, values, window)
            return self.process(values, window)
        acc = state if folded else self.fold(state)
        return self.result(acc) if self.kind == "aggregate" else acc


class WindowOperator:
    """The windows of one operator in one subtask: `add` per record, `finish` at the end."""

    def __init__(self, node: NodePlan, keyed: bool) -> None:
        params = node.params
        self.function = _Function(node, keyed)
        self.assigner: str = params["assigner"]
        self.event_time = "event_time" in self.assigner
        if self.event_time:
            self.timestamp = compile_expression(params["timestamp"], ("x",)).function
        counting = self.assigner.startswith("count_")
        self.size: int = params.get("size" if counting else "sizeMs") or 0
        self.slide: int = params.get("slide" if counting else "slideMs") or 0
        self.gap: int = params.get("gapMs") or 0
        self.sequence = 0
        # Time windows: (key, start, end) -> [first seen, accumulator or records].
        self.windows: dict[tuple[Any, int, int], list[Any]] = {}
        # Sessions per key: [start, end, first seen, records with their arrival number].
        self.sessions: dict[Any, list[list[Any]]] = {}
        # Count windows per key: [records so far, accumulator or recent records].
        self.counts: dict[Any, list[Any]] = {}

    def _time(self, record: Any) -> int:
        if self.event_time:
            value = self.timestamp(record)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"the timestamp {value!r} is not a number of milliseconds")
            return int(value)
        return int(time.time() * 1000)

    def add(self, key: Any, record: Any) -> tuple[Any, ...]:
        """Take one record; what fires now (only count windows fire before the end)."""
        self.sequence += 1
        assigner = self.assigner
        if assigner.startswith("count_"):
            return self._add_count(key, record)
        timestamp = self._time(record)
        if assigner.endswith("session"):
            self._add_session(key, timestamp, record)
            return _NOTHING
        if assigner.startswith("tumbling"):
            start = window_start(timestamp, self.size)
            self._add_window(key, start, start + self.size, record)
        else:
            start = window_start(timestamp, self.slide)
            while start > timestamp - self.size:
                self._add_window(key, start, start + self.size, record)
                start -= self.slide
        return _NOTHING

    def _add_window(self, key: Any, start: int, end: int, record: Any) -> None:
        function = self.function
        entry = self.windows.get((key, start, end))
        if entry is None:
            state = function.start(record) if function.incremental else [record]
            self.windows[key, start, end] = [self.sequence, state]
        elif function.incremental:
            entry[1] = function.step(entry[1], record)
        else:
            entry[1].append(record)

    def _add_session(self, key: Any, timestamp: int, record: Any) -> None:
        start, end = timestamp, timestamp + self.gap
        first = self.sequence
        records = [(self.sequence, record)]
        kept = []
        for session in self.sessions.get(key, ()):
            if session[0] <= end and session[1] >= start:
                start, end = min(start, session[0]), max(end, session[1])
                first = min(first, session[2])
                records.extend(session[3])
            else:
                kept.append(session)
        records.sort(key=_arrival)
        kept.append([start, end, first, records])
        self.sessions[key] = kept

    def _add_count(self, key: Any, record: Any) -> tuple[Any, ...]:
        function = self.function
        entry = self.counts.get(key)
        tumbling = self.assigner == "count_tumbling"
        if entry is None:
            entry = self.counts[key] = [0, None if tumbling else deque(maxlen=self.size)]
        entry[0] += 1
        seen = entry[0]
        if tumbling:
            if seen % self.size == 1 or self.size == 1:
                entry[1] = function.start(record) if function.incremental else [record]
            elif function.incremental:
                entry[1] = function.step(entry[1], record)
            else:
                entry[1].append(record)
            if seen % self.size:
                return _NOTHING
            window = (seen - self.size, seen)
            output = function.fire(key, entry[1], window, folded=function.incremental)
        else:
            entry[1].append(record)
            if seen % self.slide:
                return _NOTHING
            window = (seen - len(entry[1]), seen)
            output = function.fire(key, entry[1], window, folded=False)
        return _NOTHING if output is None else (output,)

    def finish(self) -> Iterator[Any]:
        """Fire every time window (the watermark at the end of bounded input is +inf)."""
        # (end, start, first seen, key, state, state is an accumulator)
        fired: list[tuple[int, int, int, Any, Any, bool]] = []
        incremental = self.function.incremental
        for (key, start, end), (first, state) in self.windows.items():
            fired.append((end, start, first, key, state, incremental))
        for key, sessions in self.sessions.items():
            for start, end, first, records in sessions:
                fired.append((end, start, first, key, [record for _, record in records], False))
        fired.sort(key=_firing_order)
        for end, start, _first, key, state, folded in fired:
            output = self.function.fire(key, state, (start, end), folded=folded)
            if output is not None:
                yield output
        self.windows.clear()
        self.sessions.clear()


def _arrival(item: tuple[int, Any]) -> int:
    return item[0]


def _firing_order(item: tuple[int, int, int, Any, Any, bool]) -> tuple[int, int, int]:
    return item[0], item[1], item[2]


class Window(OperatorCode):
    """Chain code of every window kind: the operator object does the work."""

    def __init__(self, keyed: bool) -> None:
        self.keyed = keyed

    def create(self, node: NodePlan, context: SubtaskContext) -> object:
        return WindowOperator(node, self.keyed)

    def record(
        self, gen: Gen, node: NodePlan, var: str, slot: int, key: str | None, tail: bool
    ) -> None:
        out = gen.local("v", node)
        key_text = key if self.keyed and key is not None else "None"
        with gen.block(f"for {out} in {gen.obj(node)}.add({key_text}, {var}):", loop=True):
            gen.emit(node, out, tail=True)

    def finish(self, gen: Gen, node: NodePlan) -> None:
        out = gen.local("v", node)
        with gen.block(f"for {out} in {gen.obj(node)}.finish():", loop=True):
            gen.emit(node, out, tail=True)


CODE: dict[str, OperatorCode] = {
    **{f"window.{kind}": Window(True) for kind in ("reduce", "aggregate", "process", "apply")},
    **{f"window_all.{kind}": Window(False) for kind in ("reduce", "aggregate", "process")},
}
