"""Every JobEdge becomes the exchange Flink would make: records land on the same
subtasks as in the reference executor and as the compiler predicts."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from compiler.keygroups import assign_to_key_group, key_group_range
from runtime.events import RunOutcome
from runtime.spark.session import Session
from tests.runtime.builders import Doc
from tests.runtime.spark.conftest import (
    plan_of,
    received,
    reported_stages,
    run_local,
    run_spark,
)

RECORDS = 120


def exchange(
    partitioner: str, producers: int, consumers: int, *, key: str | None = None
) -> dict[str, Any]:
    """A source, one JobEdge with `partitioner`, and a consumer with a sink chained to it."""
    return (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": RECORDS}, parallelism=producers)
        # HEAD: a JobEdge even for FORWARD; the sink chains to the map.
        .node(2, "map", {"fn": "x"}, parallelism=consumers, strategy="HEAD")
        .node(3, "sink.collect", parallelism=consumers)
        .edge(1, 2, partitioner, key=key)
        .edge(2, 3)
        .build()
    )


@pytest.mark.parametrize(
    ("partitioner", "producers", "consumers"),
    [
        ("FORWARD", 2, 2),
        ("REBALANCE", 2, 3),
        ("RESCALE", 4, 2),
        ("RESCALE", 2, 4),
        ("SHUFFLE", 2, 3),
        ("BROADCAST", 2, 3),
        ("GLOBAL", 3, 2),
    ],
)
def test_each_partitioner_places_records_as_the_reference(
    spark: Session, partitioner: str, producers: int, consumers: int
):
    plan = plan_of(exchange(partitioner, producers, consumers))
    assert [len(v.inputs) for v in plan.vertices] == [0, 1]  # one JobEdge
    reference = run_local(plan)
    result = run_spark(spark, plan)
    assert result.outcome is RunOutcome.FINISHED, result.error
    assert received(result, 3) == received(reference, 3)
    copies = consumers if partitioner == "BROADCAST" else 1
    assert sum(len(r) for r in received(result, 3).values()) == RECORDS * copies


def test_hash_puts_every_key_in_its_key_group_range(spark: Session):
    consumers = 3
    plan = plan_of(exchange("HASH", 2, consumers, key="x % 17"))
    consumer = plan.vertices[1]
    result = run_spark(spark, plan)
    assert result.outcome is RunOutcome.FINISHED, result.error
    by_subtask = received(result, 3)
    assert by_subtask == received(run_local(plan), 3)
    seen: set[int] = set()
    for subtask, records in by_subtask.items():
        first, last = key_group_range(consumer.max_parallelism, consumers, subtask)
        keys = {r % 17 for r in records}
        assert all(first <= assign_to_key_group(k, consumer.max_parallelism) <= last for k in keys)
        assert not keys & seen  # a key is processed by exactly one subtask
        seen |= keys
    assert seen == set(range(17))


def test_a_vertex_with_several_outputs_runs_once_and_feeds_each(spark: Session, run_events):
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": RECORDS}, parallelism=2)
        .node(2, "map", {"fn": "x * 10"}, parallelism=2)
        .node(3, "sink.collect", parallelism=3)
        .node(4, "sink.collect", parallelism=2)
        .node(5, "sink.collect", parallelism=2)
        .edge(1, 2)
        .edge(2, 3, "REBALANCE")
        .edge(2, 4, "HASH", key="x % 7")
        .edge(2, 5, "BROADCAST")
        .build()
    )
    plan = plan_of(doc)
    source = plan.vertices[0]
    assert len(source.outputs) == 3
    log = run_events()
    result = run_spark(spark, plan, log)
    assert result.outcome is RunOutcome.FINISHED, result.error
    reference = run_local(plan)
    for sink in (3, 4, 5):
        assert received(result, sink) == received(reference, sink)
    # The producing vertex ran once per subtask: one hook FINISHED each, no retry.
    events = log.settle()
    finished = Counter(
        (e.subtask, e.attempt)
        for e in events
        if e.vertex == source.id and e.source == "hook" and e.state.value == "FINISHED"
    )
    assert finished == {(0, 0): 1, (1, 0): 1}
    # The listener found every consumer's subtasks in the stages that read their ranges.
    confirmed = {(e.vertex, e.subtask) for e in events if e.source == "listener"}
    confirmed_finished = {
        (e.vertex, e.subtask)
        for e in events
        if e.source == "listener" and e.state.value == "FINISHED"
    }
    every = {(v.id, i) for v in plan.vertices for i in range(v.parallelism)}
    assert confirmed == confirmed_finished == every


def test_a_range_of_a_shared_shuffle_can_meet_other_inputs(spark: Session):
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 60}, parallelism=2)
        .node(5, "source.sequence", {"from": 1000, "to": 1010}, parallelism=1)
        .node(2, "map", {"fn": "x"}, parallelism=3, strategy="HEAD")
        .node(3, "sink.collect", parallelism=3)
        .node(4, "sink.collect", parallelism=2)
        .edge(1, 2, "REBALANCE")
        .edge(5, 2, "HASH", key="x % 3")
        .edge(2, 3)
        .edge(1, 4, "REBALANCE")
        .build()
    )
    plan = plan_of(doc)
    assert [len(v.outputs) for v in plan.vertices if not v.inputs] in ([2, 1], [1, 2])
    result = run_spark(spark, plan)
    assert result.outcome is RunOutcome.FINISHED, result.error
    reference = run_local(plan)
    assert received(result, 3) == received(reference, 3)
    assert received(result, 4) == received(reference, 4)
    # The range meeting the other input is moved again, by a stage of its own.
    assert [s.edge for s in reported_stages(plan, result).stages].count(0) == 1


def test_inputs_of_several_edges_meet_in_their_subtasks(spark: Session):
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 60}, parallelism=2)
        .node(2, "source.sequence", {"from": 1000, "to": 1030}, parallelism=1)
        .node(3, "map", {"fn": "x"}, parallelism=3, strategy="HEAD")
        .node(4, "sink.collect", parallelism=3)
        .edge(1, 3, "HASH", key="x % 5")
        .edge(2, 3, "REBALANCE")
        .edge(3, 4)
        .build()
    )
    plan = plan_of(doc)
    assert len(plan.vertices[-1].inputs) == 2
    result = run_spark(spark, plan)
    assert result.outcome is RunOutcome.FINISHED, result.error
    assert received(result, 4) == received(run_local(plan), 4)


def test_two_input_operators_see_each_input_on_its_side(spark: Session):
    doc = (
        Doc()
        .node(1, "source.sequence", {"from": 1, "to": 40}, parallelism=2)
        .node(2, "source.collection", {"values": ["a", "b", "c", "d"]}, parallelism=1)
        .node(3, "co_map", {"fn1": "x * 2", "fn2": "x.upper()"}, parallelism=2)
        .node(4, "sink.collect", parallelism=2)
        .edge(1, 3, "REBALANCE", type_number=1)
        .edge(2, 3, "BROADCAST", type_number=2)
        .edge(3, 4)
        .build()
    )
    plan = plan_of(doc)
    result = run_spark(spark, plan)
    assert result.outcome is RunOutcome.FINISHED, result.error
    assert received(result, 4) == received(run_local(plan), 4)
    everything = [r for records in received(result, 4).values() for r in records]
    assert sorted(r for r in everything if isinstance(r, str)) == sorted("AABBCCDD")
