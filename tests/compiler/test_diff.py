"""The plan diff: three levels and the state verdict with its causes (the verdict itself is
the state engine's: `tests/compiler/test_state_engine.py` holds it to Flink)."""

from __future__ import annotations

import copy
from typing import Any

from compiler.diff import diff_documents
from compiler.keygroups import compute_operator_index_for_key_group


def pipeline(sink_partitioner: str = "REBALANCE", sink_parallelism: int = 4) -> dict[str, Any]:
    return {
        "format": "streamgraph/v1",
        "name": "orders",
        "config": {"defaultParallelism": 4},
        "nodes": [
            {
                "id": 1,
                "name": "Source: orders",
                "operator": "source.sequence",
                "parallelism": 4,
                "factory": "SOURCE",
            },
            {"id": 2, "name": "Map", "operator": "map", "parallelism": 4},
            {"id": 3, "name": "Keyed Reduce", "operator": "reduce", "parallelism": 4},
            {
                "id": 4,
                "name": "Sink: out",
                "operator": "sink.print",
                "parallelism": sink_parallelism,
            },
        ],
        "edges": [
            {"source": 1, "target": 2, "partitioner": "FORWARD"},
            {"source": 2, "target": 3, "partitioner": "HASH"},
            {"source": 3, "target": 4, "partitioner": sink_partitioner},
        ],
    }


def verdict(diff: dict[str, Any], node: int) -> dict[str, Any]:
    return next(o for o in diff["savepoint"]["operators"] if o["node"] == node)


def test_identical_versions_keep_everything() -> None:
    diff = diff_documents(pipeline(), pipeline())
    assert diff["savepoint"]["restores"] is True
    assert diff["savepoint"]["verdict"] == "Restores"
    assert diff["streamGraph"]["nodes"] == {"added": [], "removed": [], "changed": []}
    assert diff["jobGraph"]["merged"] == [] and diff["jobGraph"]["split"] == []


def test_breaking_a_chain_loses_the_upstream_state_and_says_why() -> None:
    old = pipeline(sink_partitioner="FORWARD")
    new = pipeline(sink_partitioner="REBALANCE", sink_parallelism=8)
    diff = diff_documents(old, new)
    reduce = verdict(diff, 3)
    assert reduce["verdict"] == "lost"
    assert reduce["oldOperatorId"] != reduce["newOperatorId"]
    cause = " ".join(reduce["causes"])
    assert "chainable out-edges changed from 1 to 0" in cause
    assert "parallelism 4 != 8" in cause
    assert "Sink: out parallelism went 4 -> 8" in cause
    assert verdict(diff, 1)["verdict"] == "kept"
    split = diff["jobGraph"]["split"]
    assert [s["old"]["name"] for s in split] == ["Keyed Reduce -> Sink: out"]
    sink = next(v for v in diff["executionGraph"]["vertices"] if v["vertex"]["head"] == 4)
    assert sink["subtasks"] == {"old": 4, "new": 8}


def test_uid_keeps_the_operator_id_stable() -> None:
    old = pipeline(sink_partitioner="FORWARD")
    new = pipeline(sink_partitioner="REBALANCE", sink_parallelism=8)
    for document in (old, new):
        document["nodes"][2]["uid"] = "reduce-orders"
    reduce = verdict(diff_documents(old, new), 3)
    assert reduce["verdict"] == "kept"
    assert reduce["causes"] == [
        "restored into Keyed Reduce (3) through the ID of its uid 'reduce-orders' (uid "
        "'reduce-orders' set, ID stable)"
    ]


def test_removed_and_added_operators() -> None:
    new = copy.deepcopy(pipeline())
    new["nodes"][2] = {"id": 5, "name": "Window", "operator": "window.reduce", "parallelism": 4}
    new["nodes"][2]["uid"] = "window"
    new["edges"][1]["target"] = 5
    new["edges"][2]["source"] = 5
    diff = diff_documents(pipeline(), new)
    assert verdict(diff, 3)["verdict"] == "lost"
    assert verdict(diff, 5)["verdict"] == "new"
    assert diff["streamGraph"]["nodes"]["added"] == [5]
    assert diff["streamGraph"]["nodes"]["removed"] == [3]
    assert diff["savepoint"]["summary"] == {"kept": 1, "lost": 1, "refused": 0, "new": 1}
    assert diff["savepoint"]["restores"] is False
    assert diff["savepoint"]["restoresAllowingNonRestoredState"] is True


def test_parallelism_change_reports_moved_key_groups() -> None:
    old = pipeline()
    new = copy.deepcopy(old)
    for node in new["nodes"][2:3]:
        node["parallelism"] = 3
    diff = diff_documents(old, new)
    entry = next(v for v in diff["executionGraph"]["vertices"] if v["vertex"]["head"] == 3)
    assert entry["subtasks"] == {"old": 4, "new": 3}
    moved = sum(
        1
        for group in range(128)
        if compute_operator_index_for_key_group(128, 4, group)
        != compute_operator_index_for_key_group(128, 3, group)
    )
    assert entry["movedKeyGroups"] == moved == 65
    assert entry["keyGroups"] == 128


def test_invalid_version_still_gets_a_stream_graph_diff() -> None:
    new = pipeline()
    new["edges"][0]["target"] = 99
    diff = diff_documents(pipeline(), new)
    assert diff["savepoint"] is None and diff["jobGraph"] is None
    assert diff["diagnostics"]["new"][0]["code"] == "edge.unknown-node"
    removed = diff["streamGraph"]["edges"]["removed"]
    added = diff["streamGraph"]["edges"]["added"]
    assert [(e["source"], e["target"]) for e in removed] == [(1, 2)]
    assert [(e["source"], e["target"]) for e in added] == [(1, 99)]


# Every cause of the savepoint verdict is true ----------------------------------------------------


def test_an_unchanged_topology_keeps_the_id_and_says_so() -> None:
    source = verdict(diff_documents(pipeline(), pipeline()), 1)
    assert source["verdict"] == "kept"
    assert source["oldOperatorId"] == source["newOperatorId"]
    assert source["causes"] == [
        "restored into Source: orders (1) through its generated ID (same topology around it: "
        "ID unchanged; set a uid to keep it stable)"
    ]


def test_a_uid_hash_keeps_a_changed_id_and_says_so() -> None:
    # Breaking the reduce's chain changes its generated ID; a uidHash naming the old ID is
    # how Flink restores its state anyway.
    old = pipeline(sink_partitioner="FORWARD")
    new = pipeline(sink_partitioner="REBALANCE", sink_parallelism=8)
    old_id = verdict(diff_documents(old, new), 3)["oldOperatorId"]
    new["nodes"][2]["uidHash"] = old_id
    reduce = verdict(diff_documents(old, new), 3)
    assert reduce["verdict"] == "kept"
    assert reduce["oldOperatorId"] != reduce["newOperatorId"]
    (cause,) = reduce["causes"]
    new_id = verdict(diff_documents(new, new), 3)["oldOperatorId"]
    assert cause.startswith(
        f"restored into Keyed Reduce (3) through its uidHash (its ID is {new_id} now, but its "
        "uidHash is the old ID)"
    )
    assert "unchanged" not in cause


def test_a_uid_hash_pinning_an_unchanged_id_says_it_keeps_it() -> None:
    # The editor pins an operator's current ID as its uidHash: the ID is unchanged, and
    # the uidHash keeps it so whatever changes around it, which a uid would not add to.
    old = pipeline()
    pinned = verdict(diff_documents(old, old), 3)["oldOperatorId"]
    new = pipeline()
    new["nodes"][2]["uidHash"] = pinned
    reduce = verdict(diff_documents(old, new), 3)
    assert reduce["verdict"] == "kept"
    assert reduce["causes"] == [
        "restored into Keyed Reduce (3) through its generated ID (ID unchanged, and its "
        "uidHash pins it)"
    ]


def test_a_uid_hash_that_is_not_the_old_id_keeps_nothing() -> None:
    # The same uidHash in both versions: the savepoint holds the state under the old
    # generated ID, which no operator of the new job has.
    old = pipeline(sink_partitioner="FORWARD")
    new = pipeline(sink_partitioner="REBALANCE", sink_parallelism=8)
    for document in (old, new):
        document["nodes"][2]["uidHash"] = "ab" * 16
    reduce = verdict(diff_documents(old, new), 3)
    assert reduce["verdict"] == "lost"
    assert "chainable out-edges changed from 1 to 0" in " ".join(reduce["causes"])


def test_an_operator_replaced_in_place_hands_its_state_to_the_new_one() -> None:
    # The window takes the reduce's place, so it gets the reduce's ID, and its state.
    new = copy.deepcopy(pipeline())
    new["nodes"][2] = {"id": 5, "name": "Window", "operator": "window.reduce", "parallelism": 4}
    new["edges"][1]["target"] = 5
    new["edges"][2]["source"] = 5
    diff = diff_documents(pipeline(), new)
    window = verdict(diff, 5)
    assert window["verdict"] == "kept"
    assert (window["name"], window["operator"]) == ("Keyed Reduce", "reduce")
    assert window["oldOperatorId"] == window["newOperatorId"]
    assert window["causes"] == ["restored into Window (5) through its generated ID"]
    (warning,) = [w for w in diff["savepoint"]["warnings"] if w["code"] == "kind-changed"]
    assert warning["code"] == "kind-changed"
    assert (
        "'reduce' operator and is restored into Window (5), a 'window.reduce'"
        in (warning["message"])
    )


def test_a_uid_hash_naming_a_state_already_taken_falls_back_to_the_generated_id() -> None:
    # Flink looks an operator up by its uidHash only while that state is still unclaimed:
    # the source, restored first, takes its own state, so the reduce takes its own too.
    old = pipeline()
    new = pipeline()
    source = verdict(diff_documents(old, new), 1)
    new["nodes"][2]["uidHash"] = source["oldOperatorId"]
    diff = diff_documents(old, new)
    assert diff["savepoint"]["restores"] is True
    assert [(o["name"], o["node"], o["verdict"]) for o in diff["savepoint"]["operators"]] == [
        ("Source: orders", 1, "kept"),
        ("Keyed Reduce", 3, "kept"),
    ]
