"""What each operator kind computes, run end to end by the local executor."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from compiler.keygroups import assign_key_to_parallel_operator, assign_to_key_group
from compiler.pipeline import compile_document
from runtime.local import run_locally
from runtime.planner import RunOptions, build_run_plan
from tests.runtime.builders import Doc, run, sink_by_subtask, sink_records


def numbers(first: int, last: int, **config: Any) -> Doc:
    return Doc(**config).node(1, "source.sequence", {"from": first, "to": last})


def values(items: list[Any], **config: Any) -> Doc:
    return Doc(**config).node(1, "source.collection", {"values": items}, parallelism=1)


# --- word count ----------------------------------------------------------------------------

TEXT = """To be, or not to be, that is the question:
Whether 'tis nobler in the mind to suffer
The slings and arrows of outrageous fortune,

Or to take arms against a sea of troubles
"""


def word_count(parallelism: int, mode: str = "BATCH") -> dict[str, Any]:
    return (
        Doc(parallelism=parallelism, mode=mode)
        .node(1, "source.text", {"path": "in/lines.txt"})
        .node(2, "flat_map", {"fn": "x.lower().split()"})
        .node(3, "map", {"fn": "(x, 1)"})
        .node(4, "reduce", {"fn": "(a[0], a[1] + b[1])"})
        .node(5, "sink.collect")
        .edge(1, 2)
        .edge(2, 3)
        .edge(3, 4, "HASH", key="x[0]")
        .edge(4, 5)
        .build()
    )


@pytest.fixture
def data(tmp_path: Path) -> Path:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "lines.txt").write_text(TEXT)
    return tmp_path


@pytest.mark.parametrize("parallelism", [1, 2, 3])
def test_word_count_counts_every_word_once_on_its_key_groups_subtask(data: Path, parallelism: int):
    result, _ = run(word_count(parallelism), data)
    assert result.outcome.value == "FINISHED"
    expected = Counter(TEXT.lower().split())
    by_subtask = sink_by_subtask(result, 5)
    counted = {word: count for records in by_subtask.values() for word, count in records}
    assert counted == dict(expected)
    assert sum(len(records) for records in by_subtask.values()) == len(expected)
    execution = compile_document(word_count(parallelism)).execution
    assert execution is not None
    reducer = execution.vertices[-1]
    for subtask, records in by_subtask.items():
        first, last = reducer.key_group_range(subtask)
        for word, _count in records:
            assert first <= assign_to_key_group(word, reducer.max_parallelism) <= last


def test_word_count_in_streaming_mode_emits_every_running_count(data: Path):
    result, _ = run(word_count(1, mode="STREAMING"), data)
    emitted = sink_records(result, 5)
    assert len(emitted) == len(TEXT.split())
    assert ["to", 4] in emitted and ["to", 1] in emitted


# --- one input -----------------------------------------------------------------------------


def test_map_filter_flat_map_chain(tmp_path: Path):
    doc = (
        numbers(1, 10)
        .node(2, "filter", {"predicate": "x % 3 != 0"})
        .node(3, "flat_map", {"fn": "[x] * (x % 3)"})
        .node(4, "map", {"fn": "x * 10"})
        .node(5, "sink.collect")
        .edge(1, 2)
        .edge(2, 3)
        .edge(3, 4)
        .edge(4, 5)
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert sink_records(result, 5) == [10, 20, 20, 40, 50, 50, 70, 80, 80, 100]


def test_process_sends_side_outputs_to_the_edges_with_their_tag(tmp_path: Path):
    sides = [{"tag": "odd", "predicate": "x % 2"}, {"tag": "big", "predicate": "x > 4"}]
    doc = (
        numbers(1, 6)
        .node(2, "process", {"fn": "x * 10 if x < 3 else None", "sideOutputs": sides})
        .node(3, "sink.collect")
        .node(4, "side_output", {"tag": "odd"})
        .node(5, "sink.collect")
        .node(6, "sink.collect")
        .edge(1, 2)
        .edge(2, 3)
        .edge(2, 4, tag="odd")
        .edge(4, 5)
        .edge(2, 6, "REBALANCE", tag="big")
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert sink_records(result, 3) == [10, 20]
    assert sink_records(result, 5) == [1, 3, 5]
    assert sink_records(result, 6) == [5, 6]


def test_pass_through_kinds_change_nothing(tmp_path: Path):
    kinds = ["key_by", "print.align_type", "timestamps.extract", "timestamps.watermarks",
             "timestamps.remove", "partition_custom.key", "partition_custom.values",
             "side_output"]  # fmt: skip
    doc = numbers(1, 3)
    for position, kind in enumerate(kinds, 2):
        doc.node(position, kind).edge(position - 1, position)
    doc.node(20, "sink.collect").edge(len(kinds) + 1, 20)
    result, _ = run(doc.build(), tmp_path)
    assert sink_records(result, 20) == [1, 2, 3]


# --- keyed -----------------------------------------------------------------------------------


def keyed(kind: str, params: dict[str, Any], key: str, source: Doc, mode: str) -> dict[str, Any]:
    source.document["config"]["runtimeMode"] = mode
    return (
        source.node(2, kind, params)
        .node(3, "sink.collect")
        .edge(1, 2, "HASH", key=key)
        .edge(2, 3)
        .build()
    )


@pytest.mark.parametrize(
    ("mode", "expected"), [("STREAMING", [1, 2, 4, 6, 9, 12]), ("BATCH", [9, 12])]
)
def test_reduce_emits_every_update_in_streaming_and_the_final_value_in_batch(
    tmp_path: Path, mode: str, expected: list[int]
):
    result, _ = run(keyed("reduce", {"fn": "a + b"}, "x % 2", numbers(1, 6), mode), tmp_path)
    assert sink_records(result, 3) == expected


@pytest.mark.parametrize(
    ("kind", "field", "streaming"),
    [
        ("sum", 1, [["a", 1, 9], ["b", 2, 8], ["a", 4, 9]]),
        ("min", 2, [["a", 1, 9], ["b", 2, 8], ["a", 1, 7]]),
        ("max", "1", [["a", 1, 9], ["b", 2, 8], ["a", 3, 9]]),
    ],
)
def test_field_aggregations_keep_the_first_records_other_fields(
    tmp_path: Path, kind: str, field: Any, streaming: list[Any]
):
    source = values([["a", 1, 9], ["b", 2, 8], ["a", 3, 7]])
    result, _ = run(keyed(kind, {"field": field}, "x[0]", source, "STREAMING"), tmp_path)
    assert sink_records(result, 3) == streaming
    source = values([["a", 1, 9], ["b", 2, 8], ["a", 3, 7]])
    result, _ = run(keyed(kind, {"field": field}, "x[0]", source, "BATCH"), tmp_path)
    assert sink_records(result, 3) == [streaming[2], streaming[1]]


def test_field_aggregations_on_dicts_and_plain_values(tmp_path: Path):
    source = values([{"k": "a", "v": 1}, {"k": "a", "v": 5}])
    result, _ = run(keyed("sum", {"field": "v"}, "x['k']", source, "BATCH"), tmp_path)
    assert sink_records(result, 3) == [{"k": "a", "v": 6}]
    result, _ = run(keyed("max", {}, "x % 2", numbers(1, 6), "BATCH"), tmp_path)
    assert sink_records(result, 3) == [5, 6]


def test_count_and_aggregate(tmp_path: Path):
    result, _ = run(keyed("count", {}, "x % 3", numbers(1, 7), "BATCH"), tmp_path)
    assert sink_records(result, 3) == [[1, 3], [2, 2], [0, 2]]
    average = {"zero": "(0, 0)", "add": "(acc[0] + x, acc[1] + 1)", "result": "acc[0] / acc[1]"}
    result, _ = run(keyed("aggregate", average, "x % 2", numbers(1, 6), "STREAMING"), tmp_path)
    assert sink_records(result, 3) == [1.0, 2.0, 2.0, 3.0, 3.0, 4.0]


def test_keyed_process_sees_the_key(tmp_path: Path):
    params = {"fn": "(key, x) if x > 2 else None"}
    result, _ = run(keyed("keyed_process", params, "x % 2 == 0", numbers(1, 4), "BATCH"), tmp_path)
    assert sink_records(result, 3) == [[False, 3], [True, 4]]


# --- windows ---------------------------------------------------------------------------------

EVENTS = [["a", 1], ["a", 4], ["b", 6], ["a", 12], ["a", 5]]


def windowed(kind: str, params: dict[str, Any], items: list[Any] = EVENTS) -> dict[str, Any]:
    return keyed(kind, params, "x[0]", values(items), "STREAMING")


def test_tumbling_event_time_windows_fire_at_the_end_by_window_end(tmp_path: Path):
    params = {"assigner": "tumbling_event_time", "sizeMs": 5, "timestamp": "x[1]",
              "fn": "(a[0], a[1] + b[1])"}  # fmt: skip
    result, _ = run(windowed("window.reduce", params), tmp_path)
    assert sink_records(result, 3) == [["a", 5], ["b", 6], ["a", 5], ["a", 12]]


def test_sliding_windows_hold_a_record_in_every_window_covering_it(tmp_path: Path):
    params = {"assigner": "sliding_event_time", "sizeMs": 10, "slideMs": 5, "timestamp": "x[1]",
              "fn": "(key, window, [v[1] for v in values])"}  # fmt: skip
    result, _ = run(windowed("window.process", params, EVENTS[:3]), tmp_path)
    assert sink_records(result, 3) == [
        ["a", [-5, 5], [1, 4]],
        ["a", [0, 10], [1, 4]],
        ["b", [0, 10], [6]],
        ["b", [5, 15], [6]],
    ]


def test_session_windows_merge_per_key(tmp_path: Path):
    items = [["a", 1], ["a", 2], ["b", 3], ["a", 10], ["a", 12], ["a", 4]]
    params = {"assigner": "event_time_session", "gapMs": 3, "timestamp": "x[1]",
              "fn": "(key, window, len(values))"}  # fmt: skip
    result, _ = run(windowed("window.apply", params, items), tmp_path)
    assert sink_records(result, 3) == [["b", [3, 6], 1], ["a", [1, 7], 3], ["a", [10, 15], 2]]


def test_count_windows_fire_by_count_and_never_partly(tmp_path: Path):
    items = [["a", n] for n in range(1, 6)]
    params = {"assigner": "count_tumbling", "size": 2, "fn": "(a[0], a[1] + b[1])"}
    result, _ = run(windowed("window.reduce", params, items), tmp_path)
    assert sink_records(result, 3) == [["a", 3], ["a", 7]]
    params = {"assigner": "count_sliding", "size": 3, "slide": 2,
              "fn": "(window, [v[1] for v in values])"}  # fmt: skip
    result, _ = run(windowed("window.process", params, items), tmp_path)
    assert sink_records(result, 3) == [[[0, 2], [1, 2]], [[1, 4], [2, 3, 4]]]


def test_a_window_leaves_out_values_left_from_another_assigner(tmp_path: Path):
    items = [["a", n] for n in range(1, 6)]
    params = {"assigner": "count_tumbling", "size": 2, "fn": "(a[0], a[1] + b[1])"}
    stale = {"sizeMs": 0, "slideMs": 1, "gapMs": "soon", "slide": 1, "timestamp": "x["}
    document = windowed("window.reduce", {**params, **stale}, items)
    plan = build_run_plan(document, compile_document(document), RunOptions(str(tmp_path)))
    [window] = [node for vertex in plan.vertices for node in vertex.nodes if node.id == 2]
    assert dict(window.params) == params
    result, _ = run(document, tmp_path)
    assert sink_records(result, 3) == [["a", 3], ["a", 7]]


def test_window_aggregate(tmp_path: Path):
    params = {"assigner": "tumbling_event_time", "sizeMs": 100, "timestamp": "x[1]",
              "zero": "0", "add": "acc + x[1]", "result": "acc * 2"}  # fmt: skip
    result, _ = run(windowed("window.aggregate", params), tmp_path)
    assert sink_records(result, 3) == [44, 12]


def test_window_all_collects_every_record_in_one_subtask(tmp_path: Path):
    doc = (
        numbers(1, 7, parallelism=3)
        .node(2, "window_all.reduce", {"assigner": "count_tumbling", "size": 3, "fn": "a + b"})
        .node(3, "sink.collect")
        .edge(1, 2, "HASH")
        .edge(2, 3)
        .build()
    )
    result, _ = run(doc, tmp_path)
    everything = assign_key_to_parallel_operator(0, 128, 3)  # NullByteKeySelector's Byte 0
    assert sink_by_subtask(result, 3) == {
        subtask: [6, 15] if subtask == everything else [] for subtask in range(3)
    }


def test_processing_time_windows_fire_at_the_end_of_input(tmp_path: Path):
    params = {"assigner": "tumbling_processing_time", "sizeMs": 3_600_000, "fn": "a + b"}
    doc = keyed("window.reduce", params, "x % 2", numbers(1, 4), "STREAMING")
    result, _ = run(doc, tmp_path)
    fired = sink_records(result, 3)
    assert sum(fired) == 10 and 2 <= len(fired) <= 4  # 4 and 6, unless an hour began meanwhile


# --- two inputs ------------------------------------------------------------------------------


def two_sources(mode: str = "STREAMING") -> Doc:
    return (
        Doc(mode=mode)
        .node(1, "source.sequence", {"from": 1, "to": 3})
        .node(2, "source.sequence", {"from": 10, "to": 12})
    )


def test_co_map_and_co_flat_map_apply_each_inputs_function(tmp_path: Path):
    doc = (
        two_sources()
        .node(3, "co_map", {"fn1": "x", "fn2": "-x"})
        .node(4, "sink.collect")
        .edge(1, 3, type_number=1)
        .edge(2, 3, type_number=2)
        .edge(3, 4)
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert sorted(sink_records(result, 4)) == [-12, -11, -10, 1, 2, 3]
    doc["nodes"][2].update(operator="co_flat_map", params={"fn1": "[x, x]", "fn2": "[]"})
    result, _ = run(doc, tmp_path)
    assert sorted(sink_records(result, 4)) == [1, 1, 2, 2, 3, 3]


def test_union_is_several_edges_into_one_input(tmp_path: Path):
    doc = (
        two_sources()
        .node(3, "map", {"fn": "x + 100"})
        .node(4, "sink.collect")
        .edge(1, 3, "REBALANCE")
        .edge(2, 3, "REBALANCE")
        .edge(1, 3, "REBALANCE")
        .edge(3, 4)
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert sorted(sink_records(result, 4)) == [101, 101, 102, 102, 103, 103, 110, 111, 112]


def test_keyed_co_process_gives_both_inputs_the_key(tmp_path: Path):
    doc = (
        two_sources()
        .node(3, "keyed_co_process", {"fn1": "('one', key, x)", "fn2": "('two', key, x)"})
        .node(4, "sink.collect")
        .edge(1, 3, "HASH", key="x % 2", type_number=1)
        .edge(2, 3, "HASH", key="x % 2", type_number=2)
        .edge(3, 4)
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert sorted(map(tuple, sink_records(result, 4))) == [
        ("one", 0, 2), ("one", 1, 1), ("one", 1, 3),
        ("two", 0, 10), ("two", 0, 12), ("two", 1, 11),
    ]  # fmt: skip


def test_broadcast_process_reads_the_broadcast_input_first(tmp_path: Path):
    rules = [[0, "zero"], [1, "one"], [2, "two"]]
    doc = (
        Doc(parallelism=2)
        .node(1, "source.sequence", {"from": 1, "to": 4})
        .node(2, "source.collection", {"values": rules}, parallelism=1)
        .node(3, "broadcast_process", {"fn1": "(x, state.get(x % 3))", "fn2": "(x[0], x[1])"})
        .node(4, "sink.collect")
        .edge(1, 3, type_number=1)
        .edge(2, 3, "BROADCAST", type_number=2)
        .edge(3, 4)
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert sorted(map(tuple, sink_records(result, 4))) == [
        (1, "one"),
        (2, "two"),
        (3, "zero"),
        (4, "one"),
    ]


# --- sources -------------------------------------------------------------------------------


def test_generator_and_collection_sources_split_like_flink(tmp_path: Path):
    doc = (
        Doc(parallelism=3)
        .node(1, "source.generator", {"count": 7, "fn": "i * i"})
        .node(2, "sink.collect")
        .edge(1, 2)
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert sink_by_subtask(result, 2) == {0: [0, 1, 4], 1: [9, 16], 2: [25, 36]}
    doc = (
        Doc(parallelism=2)
        .node(1, "source.collection", {"values": ["a", "b", "c"]})
        .node(2, "sink.collect")
        .edge(1, 2)
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert sink_by_subtask(result, 2) == {0: ["a", "b"], 1: ["c"]}


def test_csv_json_and_parquet_sources(tmp_path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "people.csv").write_text("name,age\nann,31\nbob,42\n")
    (tmp_path / "rows").mkdir()
    (tmp_path / "rows" / "a.jsonl").write_text('{"n": 1}\n\n[2, 3]\n')
    (tmp_path / "rows" / "_skipped.jsonl").write_text("not json\n")
    (tmp_path / "rows" / ".hidden").write_text("not json\n")
    table = pa.table({"id": [1, 2, 3], "tag": ["x", "y", "z"]})
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=2)
    doc = (
        Doc(parallelism=2)
        .node(1, "source.csv", {"path": "people.csv"})
        .node(2, "source.csv", {"path": "people.csv", "header": False, "delimiter": ","})
        .node(3, "source.json", {"path": "rows"})
        .node(4, "source.parquet", {"path": "t.parquet"})
        .node(5, "sink.collect", parallelism=1)
        .node(6, "sink.collect", parallelism=1)
        .node(7, "sink.collect", parallelism=1)
        .node(8, "sink.collect", parallelism=1)
        .edge(1, 5, "REBALANCE")
        .edge(2, 6, "REBALANCE")
        .edge(3, 7, "REBALANCE")
        .edge(4, 8, "REBALANCE")
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert sink_records(result, 5) == [{"name": "ann", "age": "31"}, {"name": "bob", "age": "42"}]
    assert sink_records(result, 6) == [["name", "age"], ["ann", "31"], ["bob", "42"]]
    assert sorted(map(str, sink_records(result, 7))) == ["[2, 3]", "{'n': 1}"]
    assert sorted(r["id"] for r in sink_records(result, 8)) == [1, 2, 3]


# --- sinks ---------------------------------------------------------------------------------


def test_print_prefixes_the_subtask_when_parallel(tmp_path: Path):
    doc = numbers(1, 4, parallelism=2).node(2, "sink.print").edge(1, 2).build()
    result, _ = run(doc, tmp_path)
    lines = {o.subtask: o.preview for o in result.sinks}
    assert lines == {0: ("1> 1", "1> 2"), 1: ("2> 3", "2> 4")}
    doc = values([["a", 1]]).node(2, "sink.print").edge(1, 2).build()
    result, _ = run(doc, tmp_path)
    assert result.sinks[0].preview == ("['a', 1]",)


def test_previews_are_bounded_and_say_so(tmp_path: Path):
    doc = numbers(1, 50).node(2, "sink.print").edge(1, 2).build()
    result, _ = run(doc, tmp_path, preview=3)
    [output] = result.sinks
    assert (output.records, output.preview, output.truncated) == (50, ("1", "2", "3"), True)


def test_a_long_record_is_previewed_cut_short_with_its_length(tmp_path: Path):
    doc = numbers(1, 2).node(2, "map", {"fn": "'y' * 5000 * x"}).node(3, "sink.collect")
    result, _ = run(doc.edge(1, 2).edge(2, 3).build(), tmp_path)
    [output] = result.sinks
    assert [len(line) for line in output.preview] == [1_000, 1_000]
    assert output.preview[0] == '"' + "y" * 979 + "… (5,002 characters)"
    assert output.preview[1].endswith("y… (10,002 characters)")


def test_a_run_shares_one_preview_budget_among_its_sink_subtasks(tmp_path: Path):
    # 4 subtasks share 10,000 characters (at least 2,000 each): 2,500 each, so each keeps
    # its first 2 records of 902 characters and the start of a third.
    doc = (
        numbers(1, 40)
        .node(2, "map", {"fn": "'z' * 900"}, parallelism=4)
        .node(3, "sink.collect", parallelism=4)
        .edge(1, 2, "REBALANCE")
        .edge(2, 3)
        .build()
    )
    plan = build_run_plan(
        doc, compile_document(doc), RunOptions(str(tmp_path), seed=1, preview_budget=10_000)
    )
    result = run_locally(plan, lambda event: None)
    assert {o.subtask: o.records for o in result.sinks} == {0: 10, 1: 10, 2: 10, 3: 10}
    for output in result.sinks:
        assert [len(line) for line in output.preview] == [902, 902, 696]
        assert output.preview[2].endswith("z… (902 characters)")
        assert output.truncated


def test_file_sinks_write_one_part_per_subtask(tmp_path: Path):
    doc = (
        numbers(1, 4, parallelism=2)
        .node(2, "map", {"fn": "{'n': x, 'sq': x * x}"})
        .node(3, "sink.text", {"path": "out/text"})
        .node(4, "sink.csv", {"path": "out/csv"})
        .node(5, "sink.json", {"path": "out/json"})
        .edge(1, 2)
        .edge(2, 3)
        .edge(2, 4)
        .edge(2, 5)
        .build()
    )
    result, _ = run(doc, tmp_path)
    assert (
        tmp_path / "out/text/part-0.txt"
    ).read_text() == "{'n': 1, 'sq': 1}\n{'n': 2, 'sq': 4}\n"
    assert (tmp_path / "out/csv/part-1.csv").read_text() == "n,sq\n3,9\n4,16\n"
    assert (
        tmp_path / "out/json/part-1.jsonl"
    ).read_text() == '{"n": 3, "sq": 9}\n{"n": 4, "sq": 16}\n'
    files = sorted(f for o in result.sinks for f in o.files)
    assert files == [
        "out/csv/part-0.csv", "out/csv/part-1.csv", "out/json/part-0.jsonl",
        "out/json/part-1.jsonl", "out/text/part-0.txt", "out/text/part-1.txt",
    ]  # fmt: skip
    assert not list(tmp_path.glob("out/*/.*"))


def test_file_sink_writer_hands_its_files_to_the_committer(tmp_path: Path):
    doc = (
        numbers(1, 3)
        .node(2, "sink.writer", {"path": "out"})
        .node(3, "sink.committer")
        .edge(1, 2)
        .edge(2, 3)
        .build()
    )
    result, _ = run(doc, tmp_path)
    committer = next(o for o in result.sinks if o.node == 3)
    assert committer.files == ("out/part-0.txt",)
    assert (tmp_path / "out/part-0.txt").read_text() == "1\n2\n3\n"
