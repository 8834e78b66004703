"""The state-loss check: golden cases from real Flink savepoints, held to what Flink did,
and the rules one at a time."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from compiler.hashing import to_hex
from compiler.model import NodeId
from compiler.pipeline import compile_document
from compiler.state.statecheck import state_risks
from tests.compiler.builders import GraphBuilder

DATA = Path(__file__).resolve().parent / "data"
VARIANTS = sorted(
    p.name.removesuffix(".streamgraph.json")
    for p in (DATA / "savepoints").glob("*--*.streamgraph.json")
)
# Flink names the operator (or the vertex, by its head's id) whose state it refused.
_NAMED = re.compile(r"(?:operator|task) ([0-9a-f]{32})")


def _read(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((DATA / name).read_text("utf-8"))
    return result


def _risks(variant: str) -> list[dict[str, Any]]:
    case = variant.split("--")[0]
    reference = _read(f"savepoints/{case}.v1.streamgraph.json")
    reviewed = _read(f"savepoints/{variant}.streamgraph.json")
    return [risk.to_json() for risk in state_risks(reference, reviewed)]


def test_every_savepoint_variant_has_its_expected_output() -> None:
    expected = sorted(
        p.name.removesuffix(".expected.json") for p in (DATA / "statecheck").glob("*.expected.json")
    )
    assert expected == VARIANTS


@pytest.mark.parametrize("variant", VARIANTS)
def test_golden(variant: str) -> None:
    assert _risks(variant) == _read(f"statecheck/{variant}.expected.json")["risks"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_what_flink_refused_is_listed_and_what_it_restored_is_not(variant: str) -> None:
    restore = _read(f"savepoints/{variant}.restore.json")
    risks = _risks(variant)
    listed = {risk["operatorId"] for risk in risks}
    if restore["restored"]:
        codes = {reason["code"] for risk in risks for reason in risk["reasons"]}
        assert codes <= {"key-changed"}, "Flink restored this one"
    else:
        named = _NAMED.findall(restore["error"])
        assert named, restore["error"]
        assert set(named) <= listed


def keyed(
    *,
    key: str = "x",
    partitioner: str = "HASH",
    parallelism: int = 2,
    max_parallelism: int = -1,
    sum_uid: str | None = None,
    sum_uid_hash: str | None = None,
    map_strategy: str = "ALWAYS",
) -> dict[str, Any]:
    """Source -> Map -> (keyBy) Sum -> Sink."""
    return (
        GraphBuilder("keyed")
        .config(default_parallelism=parallelism)
        .node(1, "Source: Numbers", operator="source.sequence", parallelism=parallelism,
              max_parallelism=max_parallelism, factory="SOURCE")
        .node(2, "Map", parallelism=parallelism, max_parallelism=max_parallelism,
              strategy=map_strategy)
        .node(3, "Sum", operator="reduce", parallelism=parallelism,
              max_parallelism=max_parallelism, uid=sum_uid, uid_hash=sum_uid_hash)
        .node(4, "Sink: Out", operator="sink.print", parallelism=parallelism,
              max_parallelism=max_parallelism)
        .edge(1, 2)
        .edge(2, 3, partitioner=partitioner, key={"fn": key})
        .edge(3, 4)
        .build()
    )  # fmt: skip


def codes(risks: list[Any]) -> dict[str, list[str]]:
    return {risk.name: [reason.code for reason in risk.reasons] for risk in risks}


def test_the_same_version_risks_nothing() -> None:
    assert state_risks(keyed(), keyed()) == []


def test_a_changed_key_puts_the_keyed_operator_at_risk() -> None:
    (risk,) = state_risks(keyed(key="x"), keyed(key="x % 3"))

    assert (risk.node, risk.name) == (3, "Sum")
    (reason,) = risk.reasons
    assert reason.code == "key-changed"
    assert reason.message == (
        "Sum (3) restores keyed state, but its input is keyed by 'x % 3' instead of 'x': Flink "
        "restores it without a word, and each key's state stays in the key group the old key "
        "put it in"
    )


def test_an_edge_that_stops_partitioning_by_key_changes_the_key_too() -> None:
    risks = state_risks(keyed(), keyed(partitioner="REBALANCE"))

    (risk,) = [r for r in risks if r.name == "Sum"]
    assert [r.code for r in risk.reasons] == ["key-changed"]
    assert "its input is keyed by no key instead of 'x'" in risk.reasons[0].message


def test_a_set_max_parallelism_that_changes_is_a_risk_for_every_operator() -> None:
    # Flink refuses to start for any state of another max parallelism, empty or not.
    risks = state_risks(keyed(max_parallelism=128), keyed(max_parallelism=256))

    assert codes(risks) == {
        name: ["max-parallelism-changed"] for name in ("Source: Numbers", "Map", "Sum", "Sink: Out")
    }


def test_a_derived_max_parallelism_within_the_saved_one_is_no_risk() -> None:
    # 2 -> 100 subtasks: the scheduler would derive 256, but Flink keeps the saved 128.
    assert state_risks(keyed(parallelism=2), keyed(parallelism=100)) == []


def test_a_derived_max_parallelism_beyond_the_saved_one_is_a_risk() -> None:
    risks = state_risks(keyed(parallelism=2), keyed(parallelism=200))

    assert codes(risks)["Sum"] == ["parallelism-above-max"]
    (sum_risk,) = [r for r in risks if r.name == "Sum"]
    assert "runs 200 subtasks, more than the max parallelism its state was written with (128)" in (
        sum_risk.reasons[0].message
    )


def test_a_uid_keeps_state_through_a_topology_change() -> None:
    reference = keyed(sum_uid="sum")
    reviewed = keyed(sum_uid="sum")
    reviewed["nodes"][1]["chainingStrategy"] = "HEAD"  # the source's id changes, Sum's not

    assert codes(state_risks(reference, reviewed)) == {"Source: Numbers": ["state-lost"]}


def test_a_removed_operator_is_named_by_the_id_its_state_is_saved_under() -> None:
    # Flink saves an operator's state under its generated ID, whatever its uidHash.
    reference = keyed(sum_uid_hash="0123456789abcdef0123456789abcdef")
    reviewed = keyed()
    reviewed["nodes"] = [n for n in reviewed["nodes"] if n["id"] != 3]
    reviewed["edges"] = [reviewed["edges"][0]]

    (risk,) = [r for r in state_risks(reference, reviewed) if r.name == "Sum"]

    assert risk.operator_id == _sum_id(reference)
    assert [r.code for r in risk.reasons] == ["state-lost"]
    assert "its operator Sum (3) was removed" in risk.reasons[0].message


def _sum_id(document: dict[str, Any]) -> str:
    return to_hex(compile_document(document).hashes[NodeId(3)])


def _with_filter_before_sum(document: dict[str, Any]) -> dict[str, Any]:
    """The document with a filter between Map and Sum: Sum's generated ID changes."""
    changed = copy.deepcopy(document)
    changed["nodes"].append(
        {"id": 5, "name": "Filter", "operator": "filter", "params": {}, "parallelism": 2}
    )
    keyed_edge = changed["edges"][1]
    changed["edges"][1] = {"source": 2, "target": 5, "partitioner": "FORWARD"}
    changed["edges"].append({**keyed_edge, "source": 5})
    return changed


def test_a_pin_keeps_state_through_one_change_only() -> None:
    # v1's Sum ID pinned as uidHash takes v1's state through a change (v2); a savepoint of
    # v2 then holds Sum's state under v2's generated ID, which the pin does not look up.
    pinned = keyed(map_strategy="HEAD", sum_uid_hash=_sum_id(keyed()))
    assert _sum_id(pinned) != _sum_id(keyed())
    assert [r.name for r in state_risks(keyed(), pinned)] == ["Source: Numbers"]

    (risk,) = [r for r in state_risks(pinned, _with_filter_before_sum(pinned)) if r.name == "Sum"]

    assert risk.operator_id == _sum_id(pinned)
    (reason,) = risk.reasons
    assert reason.code == "state-lost"
    assert (
        f"its uidHash {_sum_id(keyed())} finds nothing in the savepoint, which holds its state "
        f"under {_sum_id(pinned)}"
    ) in reason.message


def test_a_uid_hash_that_takes_another_state_leaves_its_own_behind() -> None:
    # The source's ID changes, and Sum is given the source's old ID by mistake.
    reference = keyed()
    source_id = to_hex(compile_document(reference).hashes[NodeId(1)])

    risks = state_risks(reference, keyed(map_strategy="HEAD", sum_uid_hash=source_id))

    (risk,) = [r for r in risks if r.name == "Sum"]
    assert risk.operator_id == _sum_id(reference)
    assert risk.reasons[0].message.startswith(
        f"its state would not be restored: its operator Sum (3) has the uidHash {source_id}, the "
        "saved ID of Source: Numbers (1), so Flink restores that state into it instead of its own"
    )


def test_a_reviewed_version_that_does_not_compile_risks_all_state() -> None:
    reviewed = keyed()
    reviewed["nodes"][3]["parallelism"] = 3  # a FORWARD edge across parallelism

    risks = state_risks(keyed(), reviewed)

    assert codes(risks) == {"Source: Numbers": ["not-compiled"], "Sum": ["not-compiled"]}
    assert risks[0].reasons[0].message.startswith("the reviewed version does not compile (")


def test_a_reference_that_does_not_compile_has_no_state_to_lose() -> None:
    reference = keyed()
    reference["nodes"][3]["parallelism"] = 3

    assert state_risks(reference, keyed()) == []
