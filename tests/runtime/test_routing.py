"""Routers place every record on the subtask Flink would send it to."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.keygroups import (
    assign_key_to_parallel_operator,
    assign_to_key_group,
    compute_default_max_parallelism,
    key_group_range,
)
from compiler.pipeline import compile_document
from runtime.chains import SubtaskRun
from runtime.plan import RunPlan
from runtime.planner import RunOptions, build_run_plan
from runtime.routing import RoutingError
from tests.runtime.builders import Doc


def plan_of(
    partitioner: str,
    producers: int,
    consumers: int,
    *,
    key: str | None = None,
    partition: str | None = None,
    seed: int = 3,
    max_parallelism: int = -1,
    consumer: tuple[str, dict[str, Any]] = ("map", {"fn": "x"}),
) -> RunPlan:
    doc = (
        Doc(chaining=False)  # a JobEdge even for FORWARD
        .node(1, "source.sequence", {"from": 1, "to": 100}, parallelism=producers)
        .node(2, *consumer, parallelism=consumers, max_parallelism=max_parallelism)
        .edge(1, 2, partitioner, key=key, partition=partition)
        .build()
    )
    return build_run_plan(doc, compile_document(doc), RunOptions(data_dir=".", seed=seed))


def placement(plan: RunPlan, producer: int, records: list[Any]) -> list[int]:
    router = plan.vertices[0].outputs[0].router
    return [target for target, _ in router.route(producer, records)]


def test_forward_keeps_the_subtask_index():
    plan = plan_of("FORWARD", 3, 3)
    assert [placement(plan, s, [1, 2]) for s in range(3)] == [[0, 0], [1, 1], [2, 2]]


@pytest.mark.parametrize(
    ("producers", "consumers", "channels"),
    [
        (4, 2, [[0], [0], [1], [1]]),
        (7, 2, [[0], [0], [0], [1], [1], [1], [1]]),
        (2, 4, [[0, 1], [2, 3]]),
        (3, 2, [[0], [1], [1]]),
        (2, 3, [[0, 1], [2]]),
        # Subpartition j of a partition is read by the consumer c of its group with
        # c % len(group) == j: producer 1 of 2 -> 5 sends to 4 first, then 3.
        (2, 5, [[0, 1, 2], [4, 3]]),
    ],
)
def test_rescale_follows_the_pointwise_groups_round_robin(
    producers: int, consumers: int, channels: list[list[int]]
):
    plan = plan_of("RESCALE", producers, consumers)
    for producer, expected in enumerate(channels):
        records = list(range(2 * len(expected) + 1))
        cycle = expected * 3
        assert placement(plan, producer, records) == cycle[: len(records)]


def test_rebalance_starts_after_a_seeded_random_channel_and_goes_round_robin():
    plan = plan_of("REBALANCE", 2, 3, seed=11)
    router = plan.vertices[0].outputs[0].router
    for producer in range(2):
        start = router.rebalance_start(producer)
        targets = placement(plan, producer, list(range(7)))
        assert targets == [(start + 1 + n) % 3 for n in range(7)]
        counts = Counter(targets)
        assert max(counts.values()) - min(counts.values()) <= 1
    assert placement(plan_of("REBALANCE", 2, 3, seed=11), 0, [1] * 5) == placement(plan, 0, [1] * 5)
    starts = {plan_of("REBALANCE", 1, 8, seed=s).vertices[0].outputs[0].router.rebalance_start(0)
              for s in range(20)}  # fmt: skip
    assert len(starts) > 1


def test_shuffle_is_random_but_reproducible_from_the_seed():
    targets = placement(plan_of("SHUFFLE", 1, 3, seed=5), 0, list(range(600)))
    assert targets == placement(plan_of("SHUFFLE", 1, 3, seed=5), 0, list(range(600)))
    assert targets != placement(plan_of("SHUFFLE", 1, 3, seed=6), 0, list(range(600)))
    assert all(count > 150 for count in Counter(targets).values())


def test_broadcast_global_and_custom():
    assert placement(plan_of("BROADCAST", 2, 3), 1, ["a", "b"]) == [0, 1, 2, 0, 1, 2]
    assert placement(plan_of("GLOBAL", 2, 3), 1, ["a", "b"]) == [0, 0]
    custom = plan_of("CUSTOM", 1, 4, key="x * 2", partition="key % n")
    assert placement(custom, 0, [1, 2, 3]) == [2, 0, 2]
    wrong = plan_of("CUSTOM", 1, 4, key="x", partition="key + 10")
    with pytest.raises(RoutingError, match="subtask index from 0 to 3"):
        placement(wrong, 0, [1])


def test_hash_uses_the_consumers_effective_max_parallelism():
    plan = plan_of("HASH", 2, 3, key="x", max_parallelism=7)
    keys = list(range(50))
    assert placement(plan, 0, keys) == [assign_key_to_parallel_operator(k, 7, 3) for k in keys]
    plan = plan_of("HASH", 2, 3, key="str(x)")
    keys = [str(k) for k in range(50)]
    assert placement(plan, 1, list(range(50))) == [
        assign_key_to_parallel_operator(k, 128, 3) for k in keys
    ]


def test_a_keyless_hash_edge_routes_like_flinks_null_byte_key():
    windows = {"assigner": "count_tumbling", "size": 2, "fn": "a + b"}
    plan = plan_of("HASH", 2, 5, consumer=("window_all.reduce", windows))
    assert set(placement(plan, 0, [1, "a", None])) == {assign_key_to_parallel_operator(0, 128, 5)}


def test_java_types_decide_the_hash():
    plan = plan_of("HASH", 1, 128, key="x")
    subtask = plan.vertices[0].outputs[0].router.subtask_of_key()

    def flink(key: object) -> int:
        return assign_key_to_parallel_operator(key, 256, 128)  # max parallelism of 128: 256

    # Boolean.hashCode() is 1231 for true, Integer 1 hashes as 1: different key groups.
    assert subtask(True) == flink(True)
    assert subtask(1) == flink(1)
    assert subtask(True) != subtask(1)
    assert subtask(1) == flink(1)  # the second time from the fast dict
    assert subtask(True) == flink(True)
    # Beyond 32 bits an int is a Java Long.
    assert subtask(2**40) == flink(2**40)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("x / 2", "is a float; keys must be int, str, bool or a tuple of them"),
        ("[x][0:1]", "unhashable type: 'list'; keys must be int, str, bool or a tuple of them"),
        ("None if x else 0", "is a NoneType"),
        ("x * 2**70", "does not fit a Java Long"),
        ("(x, x / 2)", "has a field 1.5 that is a float; keys must be int, str, bool or a tuple"),
        ("(x, None if x else 0)", "has a field None that is a NoneType"),
        ("(x, [x][0:1])", "has a field [3] that is a list"),
        ("tuple(range(26))", "a tuple key has 26 fields; Flink's tuples have at most 25"),
    ],
)
def test_other_keys_are_a_clear_error_naming_the_edge_and_operator(key: str, message: str):
    plan = plan_of("HASH", 1, 2, key=key)
    with pytest.raises(RoutingError, match="HASH edge into Map \\(node 2\\)") as caught:
        placement(plan, 0, [3])
    assert message in str(caught.value)


def test_tuple_keys_route_as_flinks_tuples():
    # Tuple2(1, 10000001) hashes to 31 * 1 + 10000001 = 10000032, whose murmur hash is
    # 15868712 (tests/compiler/test_keygroups.py): key group 40 of 128, subtask 1 of 4.
    plan = plan_of("HASH", 1, 4, key="(1, x)", max_parallelism=128)
    assert placement(plan, 0, [10000001]) == [1]
    subtask = plan.vertices[0].outputs[0].router.subtask_of_key()
    for key in [(1, 10000001), ("a", (2, True)), (), (1 << 40, "x")]:
        assert subtask(key) == assign_key_to_parallel_operator(key, 128, 4)


def test_tuples_of_equal_values_but_other_java_types_are_other_keys():
    # (1, True) == (1, 1) in Python, but Flink hashes Boolean.TRUE as 1231 and 1 as 1.
    plan = plan_of("HASH", 1, 128, key="x")
    subtask = plan.vertices[0].outputs[0].router.subtask_of_key()

    def flink(key: object) -> int:
        return assign_key_to_parallel_operator(key, 256, 128)

    assert flink((1, True)) != flink((1, 1))
    for _ in range(2):  # computed, then cached
        assert subtask((1, True)) == flink((1, True))
        assert subtask((1, 1)) == flink((1, 1))
        assert subtask(((1,), True)) == flink(((1,), True))
        assert subtask(((True,), 1)) == flink(((True,), 1))


@settings(max_examples=300, deadline=None)
@given(
    key=st.one_of(st.integers(-(2**63), 2**63 - 1), st.text(max_size=12), st.booleans()),
    parallelism=st.integers(1, 300),
)
def test_hash_routing_agrees_with_the_compilers_key_groups(key: object, parallelism: int):
    max_parallelism = compute_default_max_parallelism(parallelism)
    plan = plan_of("HASH", 1, parallelism, key="x")
    subtask = plan.vertices[0].outputs[0].router.subtask_of_key()
    for _ in range(2):  # computed, then cached
        target = subtask(key)
        assert target == assign_key_to_parallel_operator(key, max_parallelism, parallelism)
        first, last = key_group_range(max_parallelism, parallelism, target)
        assert first <= assign_to_key_group(key, max_parallelism) <= last


# --- the fused routing of generated chains agrees with the routers ----------------------------

PARTITIONERS = [
    "FORWARD",
    "REBALANCE",
    "RESCALE",
    "SHUFFLE",
    "HASH",
    "BROADCAST",
    "GLOBAL",
    "CUSTOM",
]


def fan_out(tmp: Path) -> tuple[RunPlan, dict[str, Any]]:
    doc = Doc(parallelism=3, chaining=False).node(1, "source.sequence", {"from": 1, "to": 2000})
    for position, partitioner in enumerate(PARTITIONERS, 2):
        consumers = 3 if partitioner == "FORWARD" else 5
        keyed = partitioner in ("HASH", "CUSTOM")
        doc.node(position, "map", {"fn": "x"}, parallelism=consumers)
        doc.edge(
            1,
            position,
            partitioner,
            key="x % 7" if keyed else None,
            partition="key % n" if partitioner == "CUSTOM" else None,
        )
    document = doc.build()
    return build_run_plan(
        document, compile_document(document), RunOptions(str(tmp), seed=9)
    ), document


def test_routed_and_batched_chains_place_records_like_the_routers(tmp_path: Path):
    plan, _ = fan_out(tmp_path)
    source = plan.vertices[0]
    assert len(source.outputs) == len(PARTITIONERS)
    for subtask in range(source.parallelism):
        plain = list(SubtaskRun(source, subtask).run(()))
        expected = []
        for output in source.outputs:
            records = [record for position, record in plain if position == output.position]
            expected += [
                (output.position, (target, (output.consumer_input, record)))
                for target, record in output.router.route(subtask, records)
            ]
        routed = list(SubtaskRun(source, subtask).run_routed(()))
        assert sorted(routed) == sorted(expected)
        for position in range(len(PARTITIONERS)):  # same order per output and target
            assert [r for r in routed if r[0] == position] == [
                e for e in expected if e[0] == position
            ]
        batched = [
            (position, (target, (consumer_input, record)))
            for position, (target, (consumer_input, batch)) in SubtaskRun(source, subtask).execute(
                (), output="batched"
            )
            for record in batch
        ]
        assert sorted(batched) == sorted(expected)


def test_a_single_output_is_routed_without_its_position(tmp_path: Path):
    plan = plan_of("HASH", 1, 3, key="x % 5")
    routed = list(SubtaskRun(plan.vertices[0], 0).run_routed(()))
    assert routed[0] == (assign_key_to_parallel_operator(1, 128, 3), (0, 1))
    batches = list(SubtaskRun(plan.vertices[0], 0).execute((), output="batched"))
    assert sum(len(batch) for _, (_, batch) in batches) == 100
