"""Every state surface is the one restore check, and it agrees with Flink.

The version diff's verdict (`compiler.state.verdict`), the review gate's list
(`compiler.state.statecheck`) and the rescale simulator's "restores?" (`compiler.rescale`)
all read `check_restore` against a version's predicted savepoint
(`compiler.state.predicted`). Held here: to what real Flink 2.3 did with every case of
`data/savepoints/` (the diff and the gate alike), to the real savepoint files (the
prediction of v1 is the file v1 wrote, order and all), to the cases where a derived max
parallelism decides, and, on generated pairs of versions, to each other.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from compiler.diff import diff_documents
from compiler.pipeline import Compilation, compile_document
from compiler.rescale import Rescale, simulate_rescale
from compiler.state.predicted import predicted_savepoint
from compiler.state.restore import check_restore
from compiler.state.savepoint import read_savepoint
from compiler.state.statecheck import state_risks, version_risks
from tests.compiler.builders import GraphBuilder

DATA = Path(__file__).resolve().parent / "data" / "savepoints"
VARIANTS = sorted(p.name.removesuffix(".restore.json") for p in DATA.glob("*--*.restore.json"))
CASES = sorted(p.name.removesuffix(".v1.savepoint") for p in DATA.glob("*.v1.savepoint"))
# Flink names the operator (or the vertex, by its head's id) whose state it refused.
_NAMED = re.compile(r"(?:operator|task) ([0-9a-f]{32})")
BLOCKING = {"state-lost", "max-parallelism-changed", "parallelism-above-max"}


def _read(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((DATA / name).read_text("utf-8"))
    return result


def _pair(variant: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = variant.split("--")[0]
    return _read(f"{case}.v1.streamgraph.json"), _read(f"{variant}.streamgraph.json")


# Against real Flink ------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_version_diff_says_what_flink_did(variant: str) -> None:
    flink = _read(f"{variant}.restore.json")
    verdict = diff_documents(*_pair(variant))["savepoint"]

    assert verdict["restores"] is flink["restored"]
    if not flink["restored"]:
        assert (
            verdict["restoresAllowingNonRestoredState"]
            is (flink["restoredAllowingNonRestoredState"])
        )
        assert verdict["failure"]["operatorId"] in _NAMED.findall(flink["error"])
        assert verdict["verdict"].startswith("Fails")
    else:
        assert verdict["failure"] is None
        assert verdict["summary"]["lost"] == verdict["summary"]["refused"] == 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_review_gate_says_what_flink_did(variant: str) -> None:
    flink = _read(f"{variant}.restore.json")
    risks = state_risks(*_pair(variant))
    blocking = {r.operator_id for r in risks if {x.code for x in r.reasons} & BLOCKING}

    if flink["restored"]:
        assert blocking == set()
    else:
        assert set(_NAMED.findall(flink["error"])) & (
            blocking | {_vertex_of(variant, r.operator_id) for r in risks}
        )


def _vertex_of(variant: str, operator_id: str) -> str:
    """The id of the vertex an operator of v1 runs in (Flink names a vertex by it)."""
    compiled = compile_document(_pair(variant)[0])
    assert compiled.execution is not None
    for vertex in compiled.execution.vertices:
        if any(f"{g:032x}" == operator_id for g, _ in vertex.job_vertex.operator_ids):
            return f"{vertex.id:032x}"
    raise AssertionError(operator_id)


@pytest.mark.parametrize("case", CASES)
def test_the_predicted_savepoint_is_the_one_flink_wrote(case: str) -> None:
    written = read_savepoint((DATA / f"{case}.v1.savepoint").read_bytes()).operators
    predicted = predicted_savepoint(compile_document(_read(f"{case}.v1.streamgraph.json")))

    # The same entries in the same order, with the same parallelism and key groups.
    assert [(s.hex_id, s.parallelism, s.max_parallelism, s.subtasks) for s in predicted] == [
        (s.hex_id, s.parallelism, s.max_parallelism, s.subtasks) for s in written
    ]
    for guess, real in zip(predicted, written, strict=True):
        # What the plan knows is what the file says; the rest is left unknown.
        assert guess.has_state in (real.has_state, None)
        assert guess.kinds == real.kinds or guess.has_state is None
        assert all(size.bytes is None for size in guess.sizes)


# A derived max parallelism --------------------------------------------------------------


def keyed(parallelism: int) -> dict[str, Any]:
    """Source -> (keyBy) Sum -> Sink at the job's default parallelism, no max parallelism
    set anywhere."""
    return (
        GraphBuilder("keyed")
        .config(default_parallelism=parallelism)
        .node(1, "Source: Numbers", operator="source.sequence", parallelism=-1,
              factory="SOURCE")
        .node(2, "Sum", operator="reduce", parallelism=-1)
        .node(3, "Sink: Out", operator="sink.print", parallelism=-1)
        .edge(1, 2, partitioner="HASH", key={"fn": "x"})
        .edge(2, 3)
        .build()
    )  # fmt: skip


def test_a_derived_max_parallelism_restores_as_far_as_the_saved_one() -> None:
    # At 100 the scheduler would derive 256; restored, Flink keeps the savepoint's 128.
    verdict = diff_documents(keyed(2), keyed(100))["savepoint"]
    assert verdict["restores"] is True
    assert not any(w["code"] == "max-parallelism-mismatch" for w in verdict["warnings"])
    assert state_risks(keyed(2), keyed(100)) == []
    rescale = simulate_rescale(keyed(2), Rescale(parallelism=100))
    assert [v.restores for v in rescale.vertices] == [True, True]
    assert rescale.restores


def test_a_parallelism_above_the_saved_max_parallelism_fails_everywhere() -> None:
    verdict = diff_documents(keyed(2), keyed(200))["savepoint"]
    assert verdict["restores"] is False
    assert verdict["restoresAllowingNonRestoredState"] is False
    assert verdict["failure"]["code"] == "parallelism-above-max"
    assert "runs 200 subtasks, more than the max parallelism 128" in verdict["verdict"]
    (sum_risk,) = [r for r in state_risks(keyed(2), keyed(200)) if r.name == "Sum"]
    assert [r.code for r in sum_risk.reasons] == ["parallelism-above-max"]
    rescale = simulate_rescale(keyed(2), Rescale(parallelism=200))
    assert [v.restores for v in rescale.vertices] == [False, False]
    assert not rescale.restores


# Every surface agrees, on generated versions --------------------------------------------

KINDS = ["map", "filter", "reduce", "count", "window.reduce", "keyed_process", "process"]
KEYED = {"reduce", "count", "window.reduce", "keyed_process"}
Spec = list[dict[str, Any]]


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    """A source and a chain of operators, each with what a version may change."""
    count = draw(st.integers(1, 5))
    return [
        {
            "operator": "source.sequence" if i == 0 else draw(st.sampled_from(KINDS)),
            "parallelism": draw(st.sampled_from([1, 2, 4, 4, 130])),
            "maxParallelism": draw(st.sampled_from([-1, -1, -1, 8, 256])),
            "uid": draw(st.sampled_from([None, None, f"u{i}"])),
            "strategy": draw(st.sampled_from(["ALWAYS", "ALWAYS", "HEAD"])),
            "name": draw(st.sampled_from([f"Op{i}", f"Op{i}", "Same"])),
            "key": draw(st.sampled_from(["x", "x", "x % 3"])),
        }
        for i in range(count + 1)
    ]


def build(spec: Spec, *, first_id: int = 1, job_max: int = -1) -> dict[str, Any]:
    builder = GraphBuilder("generated").config(default_parallelism=2, max_parallelism=job_max)
    for index, node in enumerate(spec):
        builder.node(
            first_id + index,
            node["name"],
            operator=node["operator"],
            parallelism=node["parallelism"],
            max_parallelism=node["maxParallelism"],
            strategy=node["strategy"],
            uid=node["uid"],
            uid_hash=node.get("uidHash"),
            factory="SOURCE" if index == 0 else "OPERATOR",
        )
    for index in range(1, len(spec)):
        node, before = spec[index], spec[index - 1]
        source, target = first_id + index - 1, first_id + index
        if node["operator"] in KEYED:
            builder.edge(source, target, partitioner="HASH", key={"fn": node["key"]})
        elif node["parallelism"] == before["parallelism"]:
            builder.edge(source, target)
        else:
            builder.edge(source, target, partitioner="REBALANCE")
    return builder.build()


@st.composite
def changed(draw: st.DrawFn, spec: Spec, old: Compilation) -> Spec:
    """`spec` after a few of the changes a team makes between versions."""
    result = [dict(node) for node in spec]
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(result) - 1))
        change = draw(
            st.sampled_from(
                ["parallelism", "maxParallelism", "uid", "strategy", "key", "insert", "remove",
                 "pin", "kind"]
            )
        )  # fmt: skip
        node = result[index]
        if change == "parallelism":
            node["parallelism"] = draw(st.sampled_from([1, 2, 3, 5, 100, 200]))
        elif change == "maxParallelism":
            node["maxParallelism"] = draw(st.sampled_from([-1, 4, 128, 256]))
        elif change == "uid":
            node["uid"] = draw(st.sampled_from([None, f"u{index}", "other"]))
        elif change == "strategy":
            node["strategy"] = draw(st.sampled_from(["ALWAYS", "HEAD"]))
        elif change == "key":
            node["key"] = draw(st.sampled_from(["x", "x % 3", "x + 1"]))
        elif change == "insert" and index > 0:
            result.insert(index, {**result[index - 1], "operator": "map", "uid": None,
                                  "uidHash": None, "name": "Inserted"})  # fmt: skip
        elif change == "remove" and index > 0:
            del result[index]
        elif change == "pin" and index > 0:
            # A uidHash set to an operator's ID in the older version (its own or another's).
            ids = list(old.hashes.values())
            node["uidHash"] = f"{draw(st.sampled_from(ids)):032x}"
        elif change == "kind" and index > 0:
            node["operator"] = draw(st.sampled_from(KINDS))
    return result


def _blocked(compilation_old: Compilation, compilation_new: Compilation) -> set[str]:
    """What the one restore check says is lost or refused: the ids of those states."""
    check = check_restore(
        predicted_savepoint(compilation_old), compilation_new, previous=compilation_old
    )
    return {
        row.operator_id
        for row in check.operators
        if row.outcome in ("max-parallelism", "parallelism-above-max")
        or (row.outcome in ("lost", "shadowed") and row.has_state is not False)
    }


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_the_diff_the_gate_and_the_rescale_give_the_restore_checks_answer(
    data: st.DataObject,
) -> None:
    spec = data.draw(specs())
    old_document = build(spec, job_max=data.draw(st.sampled_from([-1, -1, 256])))
    old = compile_document(old_document)
    if not old.ok:
        event("the older version does not compile")
        return  # never ran: no savepoint
    # Node ids are not stable across versions: an imported plan numbers its own.
    first_id = data.draw(st.sampled_from([1, 1, 7]))
    new_document = build(data.draw(changed(spec, old)), first_id=first_id)
    new = compile_document(new_document)
    if not new.ok:
        event("the newer version does not compile")
        return
    check = check_restore(predicted_savepoint(old), new, previous=old)
    event("restores" if check.restores else f"fails: {check.failure and check.failure.code}")
    blocked = _blocked(old, new)

    verdict = diff_documents(old_document, new_document)["savepoint"]
    assert verdict["restores"] is check.restores
    assert verdict["restoresAllowingNonRestoredState"] is check.restores_allowing_non_restored_state
    assert verdict["verdict"] == check.verdict
    assert {
        o["oldOperatorId"] for o in verdict["operators"] if o["verdict"] in ("lost", "refused")
    } == blocked

    risks = version_risks(old, new)
    gate = {r.operator_id for r in risks if {x.code for x in r.reasons} & BLOCKING}
    assert gate == blocked
    if not check.restores:
        assert gate, "Flink refuses to start: the gate must say why"

    parallelism = data.draw(st.sampled_from([1, 3, 64, 129, 300]))
    rescale = simulate_rescale(old_document, Rescale(parallelism=parallelism), before=old)
    if rescale.ok:
        after = check_restore(predicted_savepoint(old), rescale.compilation, previous=old)
        refused = {
            row.operator_id
            for row in after.operators
            if row.outcome in ("max-parallelism", "parallelism-above-max")
        }
        for vertex in rescale.vertices:
            ids = {f"{g:032x}" for g, _ in _job_vertex(old, vertex.id).operator_ids}
            assert vertex.restores is not (ids & refused != set())


def _job_vertex(compilation: Compilation, vertex_id: int) -> Any:
    assert compilation.execution is not None
    return next(v.job_vertex for v in compilation.execution.vertices if v.id == vertex_id)
