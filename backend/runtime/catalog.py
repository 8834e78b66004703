"""The operator catalog: every kind the runtime runs and its parameters.

`CATALOG` maps an operator kind (a node's `operator`) to its `OperatorSpec`. Kinds
follow the `operator` names of the Flink-produced fixtures, so imported PyFlink
pipelines run; kinds that exist only for them are kept out of the palette
(`palette=False`). `catalog_document()` is the `catalog/v1` JSON the editor reads.
Every kind has its code in `runtime.operators`; `runtime.runnability` checks documents
against this table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

FORMAT = "catalog/v1"


class Category(Enum):
    SOURCE = "source"
    TRANSFORM = "transform"
    KEYED = "keyed"
    WINDOW = "window"
    MULTI_INPUT = "multi-input"
    SINK = "sink"


class ParamType(Enum):
    EXPRESSION = "expression"
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ENUM = "enum"
    VALUES = "values"
    """A JSON list."""
    PATH = "path"
    """Relative to the data folder; never absolute, never `..`."""


@dataclass(frozen=True, slots=True)
class Condition:
    """When a parameter applies: while another (an enum) holds one of `values`."""

    param: str
    values: tuple[str, ...]

    def holds(self, params: Mapping[str, Any]) -> bool:
        return params.get(self.param) in self.values

    def to_json(self) -> dict[str, Any]:
        return {"param": self.param, "values": list(self.values)}


@dataclass(frozen=True, slots=True)
class ParamSpec:
    name: str
    label: str
    type: ParamType
    required: bool = False
    default: Any = None
    """What the editor puts into a new operator (a JSON value); None: nothing."""
    choices: tuple[str, ...] | None = None
    help: str = ""
    variables: tuple[str, ...] = ()
    """The variables of an expression parameter."""
    minimum: int | None = None
    """Smallest allowed value of an integer parameter."""
    applies_when: Condition | None = None
    """None: always. Otherwise the parameter is shown, checked (`required` included) and
    given to the operator only while the condition holds; a value left from another
    choice is ignored."""

    def applies(self, params: Mapping[str, Any]) -> bool:
        return self.applies_when is None or self.applies_when.holds(params)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "type": self.type.value,
            "required": self.required,
            "default": self.default,
            "choices": list(self.choices) if self.choices is not None else None,
            "help": self.help,
            "appliesWhen": self.applies_when.to_json() if self.applies_when else None,
        }


@dataclass(frozen=True, slots=True)
class OperatorSpec:
    kind: str
    label: str
    category: Category
    description: str
    inputs: int
    """0 (a source), 1, or 2 (typeNumber 1 and 2)."""
    keyed: bool
    """Every input edge must be HASH with a `key` (the key is available to the logic)."""
    name: str
    """Flink's default node name."""
    chaining_strategy: str
    factory: str
    params: tuple[ParamSpec, ...] = ()
    palette: bool = True
    """False for kinds that exist only so imported PyFlink pipelines run."""

    @property
    def is_sink(self) -> bool:
        return self.category is Category.SINK

    def param(self, name: str) -> ParamSpec:
        return next(p for p in self.params if p.name == name)

    def unknown_params(self, names: Iterable[str]) -> list[str]:
        """The names, in their order, that are no parameter of this kind (the operator never
        reads them): the one rule for a node's params and a run's overrides alike."""
        known = {param.name for param in self.params}
        return [name for name in names if name not in known]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label,
            "category": self.category.value,
            "description": self.description,
            "inputs": self.inputs,
            "keyed": self.keyed,
            "palette": self.palette,
            "defaults": {
                "name": self.name,
                "chainingStrategy": self.chaining_strategy,
                "factory": self.factory,
            },
            "params": [param.to_json() for param in self.params],
        }


# --- parameters shared by several kinds -------------------------------------------------

_X = ("x",)
_AB = ("a", "b")


def _expr(
    name: str,
    label: str,
    variables: tuple[str, ...],
    default: str | None,
    help: str,
    *,
    required: bool = True,
) -> ParamSpec:
    return ParamSpec(
        name, label, ParamType.EXPRESSION, required, default, None, help, variables=variables
    )


def _path(help: str) -> ParamSpec:
    return ParamSpec("path", "Path", ParamType.PATH, True, None, None, help)


ASSIGNERS = (
    "tumbling_event_time",
    "sliding_event_time",
    "event_time_session",
    "tumbling_processing_time",
    "sliding_processing_time",
    "processing_time_session",
    "count_tumbling",
    "count_sliding",
)
"""Window assigners: Flink's TumblingEventTimeWindows ... and countWindow(size[, slide])."""

# Which window parameters each assigner reads: a parameter applies to the assigners named.
_SIZED_TIME = Condition(
    "assigner",
    (
        "tumbling_event_time",
        "sliding_event_time",
        "tumbling_processing_time",
        "sliding_processing_time",
    ),
)
_SLIDING_TIME = Condition("assigner", ("sliding_event_time", "sliding_processing_time"))
_SESSION = Condition("assigner", ("event_time_session", "processing_time_session"))
_COUNT = Condition("assigner", ("count_tumbling", "count_sliding"))
_SLIDING_COUNT = Condition("assigner", ("count_sliding",))
_EVENT_TIME = Condition(
    "assigner", ("tumbling_event_time", "sliding_event_time", "event_time_session")
)

_WINDOW_PARAMS = (
    ParamSpec(
        "assigner",
        "Windows",
        ParamType.ENUM,
        True,
        "tumbling_event_time",
        ASSIGNERS,
        "How records are grouped into windows. Event time comes from Timestamp; "
        "processing time is the clock when the record is processed; count windows fire "
        "every Size (or Slide) records of a key.",
    ),
    ParamSpec(
        "sizeMs", "Size (ms)", ParamType.INTEGER, True, 1000, None,
        "Window length in milliseconds.", minimum=1, applies_when=_SIZED_TIME,
    ),
    ParamSpec(
        "slideMs", "Slide (ms)", ParamType.INTEGER, True, None, None,
        "How far each window starts after the previous one.", minimum=1,
        applies_when=_SLIDING_TIME,
    ),
    ParamSpec(
        "gapMs", "Gap (ms)", ParamType.INTEGER, True, None, None,
        "A key's session ends after this much time without records.",
        minimum=1, applies_when=_SESSION,
    ),
    ParamSpec(
        "size", "Size (records)", ParamType.INTEGER, True, None, None,
        "Records per window.", minimum=1, applies_when=_COUNT,
    ),
    ParamSpec(
        "slide", "Slide (records)", ParamType.INTEGER, True, None, None,
        "Fire every this many records with the last Size ones.",
        minimum=1, applies_when=_SLIDING_COUNT,
    ),
    ParamSpec(
        "timestamp", "Timestamp", ParamType.EXPRESSION, True, "x", None,
        "The record's event time in milliseconds, e.g. x['ts'].",
        variables=_X, applies_when=_EVENT_TIME,
    ),
)  # fmt: skip

_FOLD_PARAMS = (
    _expr("zero", "Initial accumulator", (), "0", "The accumulator before the first record."),
    _expr("add", "Add", ("acc", "x"), "acc + 1", "The accumulator after record x."),
    _expr("result", "Result", ("acc",), "acc", "What is emitted from the accumulator."),
)


def _window_kinds(prefix: str, keyed: bool) -> list[OperatorSpec]:
    scope = "per key and window" if keyed else "per window, over all records"
    window_fn_vars = ("key", "values", "window") if keyed else ("values", "window")
    example = "(key, len(values))" if keyed else "len(values)"
    window_help = (
        "One record per window (None: nothing). values: the window's records in arrival "
        "order; window: (start, end) in ms, or the records' positions for count windows."
    )
    category = Category.WINDOW
    common = {"category": category, "inputs": 1, "keyed": keyed}
    name = "TumblingEventTimeWindows"
    kinds = [
        OperatorSpec(
            kind=f"{prefix}.reduce",
            label="Window Reduce" if keyed else "Window All Reduce",
            description=f"Reduces the records {scope} with a function of a, b.",
            name=name,
            chaining_strategy="ALWAYS",
            factory="OPERATOR",
            params=(
                *_WINDOW_PARAMS,
                _expr("fn", "Reduce", _AB, "a + b", "Combines two records into one."),
            ),
            **common,  # type: ignore[arg-type]
        ),
        OperatorSpec(
            kind=f"{prefix}.aggregate",
            label="Window Aggregate" if keyed else "Window All Aggregate",
            description=f"Folds the records {scope} into an accumulator.",
            name=name,
            chaining_strategy="ALWAYS",
            factory="OPERATOR",
            params=(*_WINDOW_PARAMS, *_FOLD_PARAMS),
            **common,  # type: ignore[arg-type]
        ),
        OperatorSpec(
            kind=f"{prefix}.process",
            label="Window Process" if keyed else "Window All Process",
            description=f"Computes one record {scope} from all of its records.",
            name=name,
            chaining_strategy="ALWAYS",
            factory="OPERATOR",
            params=(*_WINDOW_PARAMS, _expr("fn", "Function", window_fn_vars, example, window_help)),
            **common,  # type: ignore[arg-type]
        ),
    ]
    if keyed:  # Flink's WindowFunction: the same as a process window function here
        kinds.append(
            OperatorSpec(
                kind=f"{prefix}.apply",
                label="Window Apply",
                description=f"Computes one record {scope} from all of its records.",
                name=name,
                chaining_strategy="ALWAYS",
                factory="OPERATOR",
                params=kinds[-1].params,
                palette=False,
                **common,  # type: ignore[arg-type]
            )
        )
    return kinds


def _spec(
    kind: str,
    label: str,
    category: Category,
    description: str,
    *params: ParamSpec,
    inputs: int = 1,
    keyed: bool = False,
    name: str,
    strategy: str = "ALWAYS",
    factory: str = "OPERATOR",
    palette: bool = True,
) -> OperatorSpec:
    return OperatorSpec(
        kind, label, category, description, inputs, keyed, name, strategy, factory, params, palette
    )


_SOURCE = Category.SOURCE
_TRANSFORM = Category.TRANSFORM
_KEYED = Category.KEYED
_TWO = Category.MULTI_INPUT
_SINK = Category.SINK
_FIELD = ParamSpec(
    "field",
    "Field",
    ParamType.STRING,
    False,
    None,
    None,
    "Position (0, 1, ...) in tuple records or name in dict records; empty: the record itself.",
)
_DELIMITER = ParamSpec("delimiter", "Delimiter", ParamType.STRING, False, ",", None, "")
_HEADER = ParamSpec(
    "header", "Header row", ParamType.BOOLEAN, False, True, None,
    "Reading: the first row names the fields and records are dicts (else tuples of "
    "strings). Writing: a header row from the first dict record's keys.",
)  # fmt: skip

_SPECS: list[OperatorSpec] = [
    # Sources: bounded, split over their subtasks.
    _spec(
        "source.sequence", "Sequence", _SOURCE,
        "The numbers from From to To (both included), split over the subtasks like "
        "Flink's NumberSequenceSource.",
        ParamSpec("from", "From", ParamType.INTEGER, True, 1, None, "First number."),
        ParamSpec("to", "To", ParamType.INTEGER, True, 1000, None, "Last number (included)."),
        inputs=0, name="Source: Sequence", factory="SOURCE",
    ),
    _spec(
        "source.generator", "Generator", _SOURCE,
        "Count records computed from their index i (0, 1, ...), like Flink's "
        "DataGeneratorSource.",
        ParamSpec("count", "Count", ParamType.INTEGER, True, 1000, None, "", minimum=0),
        _expr("fn", "Record", ("i",), "i", "The record with index i."),
        inputs=0, name="Source: Generator", factory="SOURCE",
    ),
    _spec(
        "source.collection", "Collection", _SOURCE,
        "The given values, in order (a non-parallel source in Flink: with parallelism > 1 "
        "the list is split over the subtasks).",
        ParamSpec("values", "Values", ParamType.VALUES, True, [1, 2, 3], None, "A JSON list."),
        inputs=0, name="Source: Collection Source", strategy="HEAD", factory="LEGACY_SOURCE",
    ),
    _spec(
        "source.text", "Text file", _SOURCE,
        "The lines of a text file (or of every file in a folder), as strings.",
        _path("A file or folder in the data folder."),
        inputs=0, name="Source: Text File", factory="SOURCE",
    ),
    _spec(
        "source.csv", "CSV file", _SOURCE,
        "The rows of a CSV file (or of every file in a folder).",
        _path("A file or folder in the data folder."), _DELIMITER, _HEADER,
        inputs=0, name="Source: CSV File", factory="SOURCE",
    ),
    _spec(
        "source.json", "JSON lines file", _SOURCE,
        "One JSON value per line of a file (or of every file in a folder).",
        _path("A file or folder in the data folder."),
        inputs=0, name="Source: JSON File", factory="SOURCE",
    ),
    _spec(
        "source.parquet", "Parquet file", _SOURCE,
        "The rows of a Parquet file (or of every file in a folder), as dicts.",
        _path("A file or folder in the data folder."),
        inputs=0, name="Source: Parquet File", factory="SOURCE",
    ),
    _spec(
        "source.file", "File source", _SOURCE,
        "PyFlink's FileSource of text lines (imported pipelines): the same as Text file.",
        _path("A file or folder in the data folder."),
        inputs=0, name="Source: File Source", factory="SOURCE", palette=False,
    ),
    # One input.
    _spec(
        "map", "Map", _TRANSFORM, "One record out for every record in.",
        _expr("fn", "Function", _X, "x", "The new record, from record x."),
        name="Map",
    ),
    _spec(
        "filter", "Filter", _TRANSFORM, "Keeps the records for which the predicate is true.",
        _expr("predicate", "Predicate", _X, "x is not None", "True to keep record x."),
        name="Filter",
    ),
    _spec(
        "flat_map", "Flat map", _TRANSFORM, "Any number of records out for every record in.",
        _expr("fn", "Function", _X, "[x]", "An iterable (list, tuple, ...) of records."),
        name="FlatMap",
    ),
    _spec(
        "process", "Process", _TRANSFORM,
        "PyFlink's ProcessFunction: a record out (None: nothing) and side outputs.",
        _expr("fn", "Function", _X, "x", "The record to emit from x; None emits nothing."),
        ParamSpec(
            "sideOutputs", "Side outputs", ParamType.VALUES, False, [], None,
            'A list of {"tag": ..., "predicate": ...}: record x also goes to the edges '
            "with that sideOutputTag when the predicate is true.",
        ),
        name="PROCESS", palette=False,
    ),
    _spec(
        "side_output", "Side output", _TRANSFORM,
        "PyFlink's map behind a side output (imported pipelines): passes records on.",
        ParamSpec("tag", "Tag", ParamType.STRING, False, None, None, ""),
        name="Map", palette=False,
    ),
    _spec(
        "key_by", "Key by", _TRANSFORM,
        "PyFlink's key map before a keyBy (imported pipelines): passes records on; the key "
        "is the HASH edge's.",
        _expr("fn", "Key", _X, None, "Descriptive only.", required=False),
        name="_stream_key_by_map_operator", palette=False,
    ),
    _spec(
        "print.align_type", "Print type alignment", _TRANSFORM,
        "PyFlink's map before print (imported pipelines): passes records on.",
        name="Map", palette=False,
    ),
    _spec(
        "timestamps.extract", "Extract timestamp", _TRANSFORM,
        "PyFlink's timestamp extraction (imported pipelines): passes records on.",
        name="Extract-Timestamp", palette=False,
    ),
    _spec(
        "timestamps.watermarks", "Timestamps / watermarks", _TRANSFORM,
        "Flink's watermark generator (imported pipelines): passes records on; event time "
        "comes from the windows' Timestamp.",
        name="Timestamps/Watermarks", palette=False,
    ),
    _spec(
        "timestamps.remove", "Remove timestamp", _TRANSFORM,
        "PyFlink's timestamp removal (imported pipelines): passes records on.",
        name="Remove-Timestamp", palette=False,
    ),
    _spec(
        "partition_custom.key", "Custom partition key", _TRANSFORM,
        "PyFlink's map before partition_custom (imported pipelines): passes records on; "
        "the CUSTOM edge's key decides the subtask.",
        name="_partition_custom_map_operator", palette=False,
    ),
    _spec(
        "partition_custom.values", "Custom partition values", _TRANSFORM,
        "PyFlink's map after partition_custom (imported pipelines): passes records on.",
        name="_keyed_stream_values_operator", palette=False,
    ),
    # Keyed: the input edge is HASH with a key.
    _spec(
        "reduce", "Reduce", _KEYED,
        "Combines each key's records. STREAMING emits every new value, BATCH the last one.",
        _expr("fn", "Reduce", _AB, "a + b", "Combines the key's value a with record b."),
        keyed=True, name="Reduce",
    ),
    _spec(
        "sum", "Sum", _KEYED,
        "Sums a field per key; the other fields come from the key's first record.",
        _FIELD, keyed=True, name="Reduce",
    ),
    _spec(
        "min", "Min", _KEYED,
        "Smallest value of a field per key; the other fields come from the key's first record.",
        _FIELD, keyed=True, name="Reduce",
    ),
    _spec(
        "max", "Max", _KEYED,
        "Largest value of a field per key; the other fields come from the key's first record.",
        _FIELD, keyed=True, name="Reduce",
    ),
    _spec(
        "count", "Count", _KEYED, "Counts each key's records: emits (key, count).",
        keyed=True, name="Count",
    ),
    _spec(
        "aggregate", "Aggregate", _KEYED, "Folds each key's records into an accumulator.",
        *_FOLD_PARAMS, keyed=True, name="Aggregate",
    ),
    _spec(
        "keyed_process", "Keyed process", _KEYED,
        "PyFlink's KeyedProcessFunction: a record out (None: nothing), knowing the key.",
        _expr("fn", "Function", ("x", "key"), "x", "The record to emit; None emits nothing."),
        keyed=True, name="KEYED PROCESS",
    ),
    *_window_kinds("window", keyed=True),
    *_window_kinds("window_all", keyed=False),
    # Two inputs (typeNumber 1 and 2); a union is several edges into one input.
    _spec(
        "co_map", "Co-map", _TWO, "Maps the records of each input with its own function.",
        _expr("fn1", "Input 1", _X, "x", "Record out for record x of input 1."),
        _expr("fn2", "Input 2", _X, "x", "Record out for record x of input 2."),
        inputs=2, name="Co-Map",
    ),
    _spec(
        "co_flat_map", "Co-flat map", _TWO,
        "Any number of records out for each record of either input.",
        _expr("fn1", "Input 1", _X, "[x]", "Records out for record x of input 1."),
        _expr("fn2", "Input 2", _X, "[x]", "Records out for record x of input 2."),
        inputs=2, name="Co-Flat Map",
    ),
    _spec(
        "co_process", "Co-process", _TWO,
        "A record out (None: nothing) for each record of either input.",
        _expr("fn1", "Input 1", _X, "x", "Record out for record x of input 1."),
        _expr("fn2", "Input 2", _X, "x", "Record out for record x of input 2."),
        inputs=2, name="Co-Process",
    ),
    _spec(
        "keyed_co_process", "Keyed co-process", _TWO,
        "Two keyed inputs with the same key: a record out (None: nothing) per record.",
        _expr("fn1", "Input 1", ("x", "key"), "x", "Record out for record x of input 1."),
        _expr("fn2", "Input 2", ("x", "key"), "x", "Record out for record x of input 2."),
        inputs=2, keyed=True, name="Keyed Co-Process",
    ),
    _spec(
        "broadcast_process", "Broadcast process", _TWO,
        "Input 2 (usually a BROADCAST edge) fills a state dict; each record of input 1 is "
        "processed with it. Input 2 is read completely first.",
        _expr(
            "fn1", "Input 1", ("x", "state"), "x",
            "Record out for record x of input 1 (None: nothing); state is the dict.",
        ),
        _expr(
            "fn2", "Input 2", _X, "(x, x)",
            "A (key, value) pair stored into the state dict for record x of input 2.",
        ),
        inputs=2, name="Co-Process-Broadcast",
    ),
    # Sinks.
    _spec(
        "sink.print", "Print", _SINK,
        "Flink's print(): each record as a line, prefixed with 'N> ' (subtask N) when the "
        "sink is parallel.",
        name="Sink: Print to Std. Out",
    ),
    _spec(
        "sink.collect", "Collect", _SINK, "Keeps the first records as the run's preview (JSON).",
        name="Sink: Collect",
    ),
    _spec(
        "sink.text", "Text file", _SINK,
        "Writes each record as a line: one file part-<subtask>.txt per subtask in a folder.",
        _path("A folder in the data folder."),
        name="Sink: Text File",
    ),
    _spec(
        "sink.csv", "CSV file", _SINK,
        "Writes tuple or dict records as CSV rows: part-<subtask>.csv per subtask.",
        _path("A folder in the data folder."), _DELIMITER, _HEADER,
        name="Sink: CSV File",
    ),
    _spec(
        "sink.json", "JSON lines file", _SINK,
        "Writes each record as one JSON line: part-<subtask>.jsonl per subtask.",
        _path("A folder in the data folder."),
        name="Sink: JSON File",
    ),
    _spec(
        "sink.writer", "File sink writer", _SINK,
        "Flink's FileSink writer (imported pipelines): writes lines like Text file and "
        "sends the finished files to its committer.",
        _path("A folder in the data folder."),
        name="Sink: Writer", factory="YIELDING", palette=False,
    ),
    _spec(
        "sink.committer", "File sink committer", _SINK,
        "Flink's FileSink committer (imported pipelines): reports the files its writers "
        "finished.",
        name="Sink: Committer", palette=False,
    ),
]  # fmt: skip

CATALOG: Mapping[str, OperatorSpec] = {spec.kind: spec for spec in _SPECS}
"""Every kind the runtime runs, in palette order."""

SINK_WITH_OUTPUT = frozenset({"sink.writer"})
"""Sinks that still send records on (to their committer)."""


def catalog_document() -> dict[str, Any]:
    """The `catalog/v1` JSON served at `/api/operators/`."""
    return {"format": FORMAT, "operators": [spec.to_json() for spec in CATALOG.values()]}


KEY_VARIABLES = ("x",)
"""A HASH or CUSTOM edge's key expression (`fn`): the key of record x."""
PARTITION_VARIABLES = ("key", "n")
"""A CUSTOM edge's `partition` expression: the subtask for `key` among `n`."""
