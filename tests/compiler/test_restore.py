"""The restore check: what real Flink 2.3 did with each fixture savepoint, then every rule
on synthetic savepoints and plans."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from compiler.hashing import to_hex
from compiler.model import Hash128, NodeId
from compiler.pipeline import Compilation, compile_document
from compiler.state.restore import RestoreCheck, check_restore
from compiler.state.savepoint import OperatorState, StateKind, StateSize, read_savepoint
from tests.compiler.builders import GraphBuilder

DATA = Path(__file__).resolve().parent / "data" / "savepoints"
CASES = sorted(p.name.removesuffix(".restore.json") for p in DATA.glob("*.restore.json"))
# Flink names the operator, or the vertex ("task") whose parallelism it refused.
_NAMED = re.compile(r"(?:operator|task) ([0-9a-f]{32})")


def _json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _fixture_check(case: str, *, allow: bool, with_previous: bool) -> RestoreCheck:
    restore = _json(DATA / f"{case}.restore.json")
    savepoint = read_savepoint((DATA / restore["savepoint"]).read_bytes())
    plan = compile_document(_json(DATA / f"{case}.streamgraph.json"))
    previous = None
    if with_previous:
        written_by = restore["savepoint"].removesuffix(".savepoint")
        previous = compile_document(_json(DATA / f"{written_by}.streamgraph.json"))
    return check_restore(
        savepoint.operators, plan, allow_non_restored_state=allow, previous=previous
    )


def test_every_restore_case_has_its_variant_and_savepoint() -> None:
    assert CASES
    for case in CASES:
        restore = _json(DATA / f"{case}.restore.json")
        assert restore["format"] == "restore/v1"
        assert (DATA / f"{case}.streamgraph.json").is_file()
        assert (DATA / restore["savepoint"]).is_file()


@pytest.mark.parametrize("with_previous", [False, True], ids=["alone", "with-previous"])
@pytest.mark.parametrize("case", CASES)
def test_the_check_agrees_with_what_flink_did(case: str, with_previous: bool) -> None:
    restore = _json(DATA / f"{case}.restore.json")
    check = _fixture_check(case, allow=False, with_previous=with_previous)
    assert check.restores is restore["restored"]
    if restore["restored"]:
        assert check.failure is None and check.restores_allowing_non_restored_state
        return
    assert check.failure is not None
    assert [check.failure.operator_id] == _NAMED.findall(restore["error"])
    assert check.failure.message in restore["error"]
    allowing = restore["restoredAllowingNonRestoredState"]
    assert check.restores_allowing_non_restored_state is allowing
    assert _fixture_check(case, allow=True, with_previous=with_previous).restores is allowing


# -- synthetic plans and savepoints ----------------------------------------------------------


def keyed(
    *,
    key: str = "x",
    parallelism: int = 2,
    max_parallelism: int = -1,
    sum_uid: str | None = None,
    sum_uid_hash: str | None = None,
    sum_operator: str = "reduce",
    map_strategy: str = "ALWAYS",
) -> dict[str, Any]:
    """Source -> Map -> (keyBy) Sum -> Sink: two vertices."""
    return (
        GraphBuilder("keyed")
        .config(default_parallelism=parallelism)
        .node(1, "Source: Numbers", operator="source.sequence", parallelism=parallelism,
              max_parallelism=max_parallelism, factory="SOURCE")
        .node(2, "Map", parallelism=parallelism, max_parallelism=max_parallelism,
              strategy=map_strategy)
        .node(3, "Sum", operator=sum_operator, parallelism=parallelism,
              max_parallelism=max_parallelism, uid=sum_uid, uid_hash=sum_uid_hash)
        .node(4, "Sink: Out", operator="sink.print", parallelism=parallelism,
              max_parallelism=max_parallelism)
        .edge(1, 2)
        .edge(2, 3, partitioner="HASH", key={"fn": key})
        .edge(3, 4)
        .build()
    )  # fmt: skip


def compiled(document: dict[str, Any]) -> Compilation:
    compilation = compile_document(document)
    assert compilation.ok, compilation.diagnostics
    return compilation


def state(
    operator_id: Hash128 | str,
    name: str | None = None,
    *,
    kinds: tuple[StateKind, ...] = (),
    parallelism: int = 2,
    max_parallelism: int = 128,
) -> OperatorState:
    sizes = tuple(StateSize(kind, 10) for kind in kinds)
    return OperatorState(
        operator_id=Hash128(int(operator_id, 16) if isinstance(operator_id, str) else operator_id),
        name=name,
        uid=None,
        parallelism=parallelism,
        max_parallelism=max_parallelism,
        subtasks=parallelism,
        finished_subtasks=0,
        fully_finished=False,
        sizes=sizes,
        has_state=bool(sizes),
    )


def saved(compilation: Compilation) -> tuple[OperatorState, ...]:
    """The savepoint a run of `compilation` writes: the source's splits and enumerator, the
    Sum's keys, nothing for the others; under each operator's generated ID, whatever its
    uidHash, as Flink saves them."""
    assert compilation.graph is not None and compilation.execution is not None
    result = []
    for vertex in compilation.execution.vertices:
        for nid, (generated, _) in zip(
            vertex.job_vertex.nodes, vertex.job_vertex.operator_ids, strict=True
        ):
            node = compilation.graph.nodes[nid]
            kinds: tuple[StateKind, ...] = ()
            if node.operator.startswith("source"):
                kinds = (StateKind.OPERATOR_LIST, StateKind.COORDINATOR)
            elif node.operator == "reduce":
                kinds = (StateKind.KEYED_MANAGED,)
            result.append(
                state(
                    generated,
                    node.name,
                    kinds=kinds,
                    parallelism=vertex.parallelism,
                    max_parallelism=vertex.max_parallelism,
                )
            )
    return tuple(result)


def sum_id(compilation: Compilation) -> str:
    return to_hex(compilation.hashes[NodeId(3)])


def rows(check: RestoreCheck) -> dict[str | None, str]:
    return {row.name: row.outcome for row in check.operators}


def test_the_same_plan_restores_everything_through_its_generated_ids() -> None:
    plan = compiled(keyed())
    check = check_restore(saved(plan), plan)

    assert check.restores and check.failure is None and check.verdict == "Restores"
    assert set(rows(check).values()) == {"restored"}
    assert {row.target.matched_by for row in check.operators if row.target} == {"operator-id"}
    assert check.new_operators == ()


def test_unmapped_state_fails_naming_the_first_in_the_savepoints_order() -> None:
    old = compiled(keyed())
    new = compiled(keyed(map_strategy="HEAD"))  # every ID changes: Source no longer chains
    states = {s.name: s for s in saved(old)}
    source, sum_state = states["Source: Numbers"], states["Sum"]

    check = check_restore((sum_state, source), new)
    assert check.failure is not None and check.failure.code == "unmapped-state"
    assert check.failure.operator_id == sum_state.hex_id
    assert check.verdict == (
        f"Fails: state of Sum ({sum_state.hex_id[:8]}...) has no operator in this version"
    )
    assert check.restores_allowing_non_restored_state
    swapped = check_restore((source, sum_state), new)
    assert swapped.failure is not None and swapped.failure.operator_id == source.hex_id


def test_empty_state_may_go_but_coordinator_state_may_not() -> None:
    plan = compiled(keyed())
    check = check_restore((state("ab" * 16, "Gone"),), plan)
    assert check.restores and rows(check) == {"Gone": "empty"}

    coordinator = state("ab" * 16, "Gone", kinds=(StateKind.COORDINATOR,))
    assert not check_restore((coordinator,), plan).restores


def test_allowing_unclaimed_state_restores_and_says_what_is_dropped() -> None:
    plan = compiled(keyed())
    lost = state("ab" * 16, "Gone", kinds=(StateKind.KEYED_MANAGED,))
    check = check_restore((lost,), plan, allow_non_restored_state=True)

    assert check.restores and check.allow_non_restored_state
    assert check.verdict == "Restores, dropping the state of 1 operator"
    assert rows(check) == {"Gone": "lost"}
    assert [w.code for w in check.warnings] == ["state-dropped"]
    assert check.operators[0].reasons[-1] == "unclaimed state is allowed: Flink starts without it"


def test_a_uid_hash_or_uid_is_matched_as_flink_matches_it() -> None:
    old = compiled(keyed())
    pinned = compiled(keyed(map_strategy="HEAD", sum_uid_hash=sum_id(old)))
    check = check_restore(tuple(s for s in saved(old) if s.name == "Sum"), pinned)
    assert check.restores
    target = check.operators[0].target
    assert target is not None and (target.node, target.matched_by) == (3, "uid-hash")
    assert "through its uidHash" in check.operators[0].reasons[0]

    with_uid = compiled(keyed(sum_uid="sum"))
    check = check_restore(saved(with_uid), compiled(keyed(sum_uid="sum", map_strategy="HEAD")))
    sum_row = next(row for row in check.operators if row.name == "Sum")
    assert sum_row.outcome == "restored"
    assert sum_row.target is not None and sum_row.target.matched_by == "uid"


def test_a_generated_id_shadowed_by_the_operators_uid_hash_drops_its_state() -> None:
    old = compiled(keyed())
    plan = compiled(keyed(sum_uid_hash="ab" * 16))
    keyed_state = (StateKind.KEYED_MANAGED,)
    by_uid_hash = state("ab" * 16, "Sum", kinds=keyed_state)
    by_generated = state(sum_id(plan), "Sum", kinds=keyed_state)
    assert sum_id(plan) == sum_id(old)

    check = check_restore((by_generated, by_uid_hash), plan)
    assert check.restores, "Flink validates both, then restores only the uidHash's"
    assert [row.outcome for row in check.operators] == ["shadowed", "restored"]
    assert check.warnings[0].code == "state-dropped"


def test_a_max_parallelism_set_to_another_value_fails_even_allowing_unclaimed_state() -> None:
    old = compiled(keyed(max_parallelism=128))
    new = compiled(keyed(max_parallelism=256))
    for allow in (False, True):
        check = check_restore(saved(old), new, allow_non_restored_state=allow)
        assert check.failure is not None and check.failure.code == "max-parallelism-mismatch"
        assert check.failure.operator_id == saved(old)[0].hex_id
        assert "with max parallelism 128 to new program with max parallelism 256" in (
            check.failure.message
        )
        assert not check.restores_allowing_non_restored_state


def test_a_derived_max_parallelism_takes_the_savepoints() -> None:
    old = compiled(keyed(max_parallelism=4))
    check = check_restore(saved(old), compiled(keyed(max_parallelism=-1, parallelism=3)))
    assert check.restores
    target = next(row.target for row in check.operators if row.name == "Sum")
    assert target is not None and target.max_parallelism == 4
    warning = next(w for w in check.warnings if w.code == "derived-max-parallelism")
    assert "Flink takes the savepoint's 4 (without it, parallelism 3 would give 128)" in (
        warning.message
    )


def test_a_parallelism_above_the_savepoints_max_parallelism_fails_naming_the_vertex() -> None:
    old = compiled(keyed(max_parallelism=4))
    new = compiled(keyed(max_parallelism=-1, parallelism=5))
    for allow in (False, True):
        check = check_restore(saved(old), new, allow_non_restored_state=allow)
        assert check.failure is not None and check.failure.code == "parallelism-above-max"
        assert new.execution is not None
        assert check.failure.operator_id == to_hex(new.execution.vertices[0].id)
        assert "maximum parallelism (4) of the restored state is lower than the configured " in (
            check.failure.message
        )
    assert set(rows(check).values()) == {"parallelism-above-max"}


def test_the_verdict_names_the_vertex_flink_refuses() -> None:
    old = compiled(keyed(max_parallelism=4))
    new = compiled(keyed(max_parallelism=-1, parallelism=5))
    assert new.execution is not None
    first = new.execution.vertices[0]

    # The savepoint lists the second vertex's states first; Flink still names the first.
    check = check_restore(tuple(reversed(saved(old))), new)

    assert check.failure is not None and check.failure.operator_id == to_hex(first.id)
    assert check.verdict.startswith(f"Fails: {first.job_vertex.name} runs 5 subtasks")


def test_flink_checks_the_savepoint_in_order_before_the_parallelism() -> None:
    old = compiled(keyed(max_parallelism=4))
    new = compiled(keyed(max_parallelism=-1, parallelism=5))
    lost = state("ab" * 16, "Gone", kinds=(StateKind.KEYED_MANAGED,))
    check = check_restore((*saved(old), lost), new)
    assert check.failure is not None and check.failure.code == "unmapped-state"


def test_empty_subtask_states_hold_a_vertex_to_the_savepoints_max_parallelism_too() -> None:
    old = compiled(keyed(max_parallelism=4))
    new = compiled(keyed(max_parallelism=-1, parallelism=5))
    (sink,) = (s for s in saved(old) if s.name == "Sink: Out")
    assert not sink.has_state and sink.subtasks == 2
    check = check_restore((sink,), new)
    assert check.failure is not None and check.failure.code == "parallelism-above-max"

    # Without subtask entries (every subtask had finished), Flink checks nothing.
    finished = sink._replace(subtasks=0, fully_finished=True)
    assert check_restore((finished,), new).restores


def test_a_changed_key_is_a_warning_only_with_the_previous_version() -> None:
    old = compiled(keyed(key="x"))
    new = compiled(keyed(key="x % 3"))
    alone = check_restore(saved(old), new)
    assert alone.restores and "key-changed" not in [w.code for w in alone.warnings]

    check = check_restore(saved(old), new, previous=old)
    warning = next(w for w in check.warnings if w.code == "key-changed")
    assert warning.node == 3 and warning.operator_id == sum_id(old)
    assert "keyed by 'x % 3' instead of 'x'" in warning.message


def test_another_operator_kind_under_a_restored_id_is_a_warning() -> None:
    old = compiled(keyed(sum_uid="sum"))
    new = compiled(keyed(sum_uid="sum", sum_operator="keyed_process"))
    check = check_restore(saved(old), new, previous=old)
    warning = next(w for w in check.warnings if w.code == "kind-changed")
    assert "written by a 'reduce' operator" in warning.message and "'keyed_process'" in (
        warning.message
    )


def test_a_pinned_max_parallelism_gets_no_warning_and_a_derived_one_gets_one() -> None:
    derived = compiled(keyed())
    check = check_restore(saved(derived), derived)
    (warning,) = [w for w in check.warnings if w.code == "derived-max-parallelism"]
    assert "which Flink would derive only up to parallelism 85" in warning.message
    assert "set maxParallelism to 128" in warning.message

    pinned = compiled(keyed(max_parallelism=128))
    assert check_restore(saved(pinned), pinned).warnings == ()


def test_lost_state_is_explained_by_what_changed_when_the_previous_version_is_known() -> None:
    old = compiled(keyed())
    new = compiled(keyed(map_strategy="HEAD"))
    check = check_restore(saved(old), new, previous=old)
    sum_row = next(row for row in check.operators if row.name == "Sum")
    assert sum_row.outcome == "lost" and sum_row.target is None
    assert sum_row.reasons[0].startswith(f"its operator Sum (3) has ID {sum_id(new)} now: ")
    assert sum_row.reasons[1] == f"to restore it, set the uidHash of Sum (3) to {sum_id(old)}"

    alone = check_restore(saved(old), new)
    sum_row = next(row for row in alone.operators if row.name == "Sum")
    assert sum_row.reasons == (
        "no operator of this version has this ID (generated, or from uid or uidHash)",
        f"Sum (3) has the same name and ID {sum_id(new)}: if it should take this state over, "
        f"set its uidHash to {sum_id(old)}",
    )


def test_lost_state_is_explained_by_the_operator_whose_generated_id_it_has() -> None:
    # The writer gave Sum the source's ID as uidHash; its savepoint still holds each state
    # under the generated ID, so the source's lost state is the source's, not Sum's.
    first = compiled(keyed())
    old = compiled(keyed(sum_uid_hash=to_hex(first.hashes[NodeId(1)])))
    new = compiled(keyed(map_strategy="HEAD"))

    check = check_restore(saved(old), new, previous=old)

    source_row = next(row for row in check.operators if row.name == "Source: Numbers")
    assert source_row.outcome == "lost"
    assert source_row.reasons[0].startswith("its operator Source: Numbers (1) has ID ")


def test_a_removed_operator_is_said_to_be_removed() -> None:
    old_document = keyed()
    old = compiled(old_document)
    new_document = keyed()
    new_document["nodes"] = [n for n in new_document["nodes"] if n["id"] != 3]
    new_document["edges"] = [{**new_document["edges"][0]}, {**new_document["edges"][0]}]
    new_document["edges"][1].update(source=2, target=4)
    check = check_restore(saved(old), compiled(new_document), previous=old)
    sum_row = next(row for row in check.operators if row.name == "Sum")
    assert sum_row.reasons == ("its operator Sum (3) was removed",)


def test_new_operators_start_empty() -> None:
    old = compiled(keyed(sum_uid="sum"))
    new = compiled(keyed(sum_uid="sum", map_strategy="HEAD"))
    check = check_restore(saved(old), new, allow_non_restored_state=True)
    new_names = {(o.name, o.stateful) for o in check.new_operators}
    assert ("Source: Numbers", True) in new_names and ("Map", False) in new_names
    assert "Sum" not in {o.name for o in check.new_operators}


def test_the_result_is_json_with_hex_ids() -> None:
    old = compiled(keyed())
    check = check_restore(saved(old), compiled(keyed(map_strategy="HEAD")), previous=old)
    document = json.loads(json.dumps(check.to_json()))
    assert document["restores"] is False
    assert document["verdict"].startswith("Fails: state of Source: Numbers")
    row = next(r for r in document["operators"] if r["name"] == "Sum")
    assert row["state"] == [{"kind": "keyed", "bytes": 10}] and row["outcome"] == "lost"
    assert all(re.fullmatch("[0-9a-f]{32}", o["operatorId"]) for o in document["newOperators"])


def test_a_plan_that_does_not_compile_cannot_be_checked() -> None:
    broken = compile_document({"format": "streamgraph/v1", "nodes": "no"})
    with pytest.raises(ValueError, match="does not compile"):
        check_restore((), broken)


def test_an_operator_renumbered_by_an_insertion_is_found_by_its_name() -> None:
    # Inserting a map renumbers the nodes after it (Flink numbers transformations as they
    # are made): Sum was node 5 and is node 6, so "removed" would not be true.
    old = compile_document(_json(DATA / "counting.v1.streamgraph.json"))
    new = compile_document(_json(DATA / "counting--insert-map.streamgraph.json"))
    savepoint = read_savepoint((DATA / "counting.v1.savepoint").read_bytes())

    check = check_restore(savepoint.operators, new, previous=old)

    sum_row = next(row for row in check.operators if row.name == "Sum")
    assert sum_row.outcome == "lost"
    assert sum_row.reasons[0].startswith("its operator Sum (5) is Sum (6) in this version")
    assert (
        sum_row.reasons[1] == f"to restore it, set the uidHash of Sum (6) to {sum_row.operator_id}"
    )


def test_lost_state_suggests_the_operator_that_should_take_it_over() -> None:
    old = compiled(keyed())
    new = compiled(keyed(map_strategy="HEAD"))
    for previous in (old, None):
        check = check_restore(saved(old), new, previous=previous)
        suggested = {row.name: row.suggested_node for row in check.operators}
        assert suggested["Sum"] == 3 and suggested["Source: Numbers"] == 1
        rows_json = check.to_json()["operators"]
        assert next(r for r in rows_json if r["name"] == "Sum")["suggestedNode"] == 3
    # Only lost state gets a suggestion.
    assert all(row.suggested_node is None for row in check_restore(saved(old), old).operators)


def test_an_operator_restoring_other_state_is_never_suggested() -> None:
    plan = compiled(keyed())
    # State saved under another ID by an operator also named Sum: the plan's Sum restores
    # its own, and a uidHash would drop that.
    other = state("ab" * 16, "Sum", kinds=(StateKind.KEYED_MANAGED,))
    check = check_restore((*saved(plan), other), plan)
    row = check.operators[-1]
    assert row.outcome == "lost" and row.suggested_node is None


def test_one_operator_is_suggested_for_one_lost_state_only() -> None:
    plan = compiled(keyed(map_strategy="HEAD"))
    first = state("ab" * 16, "Map", kinds=(StateKind.OPERATOR_LIST,))
    second = state("cd" * 16, "Map", kinds=(StateKind.OPERATOR_LIST,))
    check = check_restore((first, second), plan, allow_non_restored_state=True)
    assert [row.suggested_node for row in check.operators] == [2, None]


def test_the_suggestion_prefers_the_kind_that_wrote_the_state() -> None:
    old = compiled(keyed())
    document = keyed(map_strategy="HEAD")
    # A map also named Sum comes first in the document; the state was a reduce's.
    document["nodes"][1]["name"] = "Sum"
    document["nodes"] = [document["nodes"][1], *document["nodes"][:1], *document["nodes"][2:]]
    new = compiled(document)
    sum_state = next(s for s in saved(old) if s.name == "Sum")
    alone = check_restore((sum_state,), new)
    assert alone.operators[0].suggested_node == 3, "a stateful operator before a stateless one"
    with_previous = check_restore((sum_state,), new, previous=old)
    assert with_previous.operators[0].suggested_node == 3


def test_a_renumbered_operator_is_suggested_under_its_new_id() -> None:
    old = compile_document(_json(DATA / "counting.v1.streamgraph.json"))
    new = compile_document(_json(DATA / "counting--insert-map.streamgraph.json"))
    savepoint = read_savepoint((DATA / "counting.v1.savepoint").read_bytes())
    for previous in (old, None):
        check = check_restore(savepoint.operators, new, previous=previous)
        sum_row = next(row for row in check.operators if row.name == "Sum")
        assert sum_row.suggested_node == 6
