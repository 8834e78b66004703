"""Would a savepoint of one version restore into another? The version diff's answer.

`version_verdict(old, new)` is the restore check (`compiler.state.restore`) of `new`
against the savepoint `old` would write (`compiler.state.predicted`), with `old` as the
version that wrote it, read per stateful operator for the diff page:

* `kept`: an operator of `new` restores its state (under its generated ID, its uid's, or a
  uidHash set to the old ID);
* `lost`: none does (removed, its ID changed, or passed over for the state its uidHash
  names): Flink refuses to start, or with unclaimed state allowed drops it;
* `refused`: its operator's vertex cannot take the state's max parallelism (another one
  set, or more subtasks than it): Flink refuses to start, unclaimed state allowed or not;
* `new`: an operator of `new` of a kind that keeps state restores nothing: it starts empty.

Operators of a kind that keeps no state write empty entries, which Flink drops freely:
they are no row unless Flink refuses to start for them (a max parallelism is checked for
every entry, empty or not). Whether a stateful operator's state is empty is not known before the job
runs, and the sentences say "if it holds state" where that decides (`has_state` None).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from compiler.hashing import to_hex
from compiler.model import Hash128, NodeId
from compiler.pipeline import Compilation
from compiler.state.kinds import state_kinds
from compiler.state.predicted import predicted_savepoint
from compiler.state.restore import OperatorRestore, RestoreCheck, check_restore

OperatorVerdict = Literal["kept", "lost", "refused", "new"]
OPERATOR_VERDICTS: tuple[OperatorVerdict, ...] = ("kept", "lost", "refused", "new")

_VERDICTS: dict[str, OperatorVerdict] = {
    "restored": "kept",
    "lost": "lost",
    "shadowed": "lost",
    "max-parallelism": "refused",
    "parallelism-above-max": "refused",
}


@dataclass(frozen=True, slots=True)
class OperatorStateVerdict:
    node: int | None
    """Where the diff draws it: the operator of the newer version that restores it or, for
    state not restored, the operator of the older version that wrote it; for `new`, the
    operator of the newer version."""
    name: str
    operator: str
    old_operator_id: str | None
    """The ID its state is saved under; None for `new`."""
    new_operator_id: str | None
    """The generated ID of the operator that restores it (or of the same node, when it
    restores nothing); None when the node is gone."""
    verdict: OperatorVerdict
    has_state: bool | None
    """None: a stateful kind whose state may be empty, which only the running job tells."""
    causes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "name": self.name,
            "operator": self.operator,
            "oldOperatorId": self.old_operator_id,
            "newOperatorId": self.new_operator_id,
            "verdict": self.verdict,
            "hasState": self.has_state,
            "causes": list(self.causes),
        }


@dataclass(frozen=True, slots=True)
class StateVerdict:
    check: RestoreCheck
    """The restore check it reads."""
    operators: tuple[OperatorStateVerdict, ...]

    def to_json(self) -> dict[str, Any]:
        check = self.check
        return {
            "basis": "predicted",
            "restores": check.restores,
            "restoresAllowingNonRestoredState": check.restores_allowing_non_restored_state,
            "verdict": check.verdict,
            "failure": None if check.failure is None else check.failure.to_json(),
            "warnings": [w.to_json() for w in check.warnings],
            "summary": {
                v: sum(1 for o in self.operators if o.verdict == v) for v in OPERATOR_VERDICTS
            },
            "operators": [o.to_json() for o in self.operators],
        }


def version_verdict(old: Compilation, new: Compilation) -> StateVerdict:
    """What becomes of a savepoint of `old` when `new` starts from it. Both must compile
    (`ValueError` otherwise)."""
    if not new.ok or new.graph is None:
        raise ValueError("the newer version does not compile: there is no job to restore")
    states = predicted_savepoint(old)
    check = check_restore(states, new, previous=old)
    assert old.graph is not None
    owners: dict[Hash128, NodeId] = {}
    for node, generated in sorted(old.hashes.items()):
        owners.setdefault(generated, node)
    rows: list[OperatorStateVerdict] = []
    for state, row in zip(states, check.operators, strict=True):
        if state.has_state is False and _VERDICTS.get(row.outcome) != "refused":
            continue  # an empty entry, which Flink drops freely unless it refuses it
        owner = owners[state.operator_id]
        rows.append(_row(row, owner, old, new))
    drawn = {row.node for row in rows if row.verdict != "kept"}
    for fresh in check.new_operators:
        # An operator whose own state is lost is that row, not a new one too.
        if state_kinds(fresh.operator) and fresh.node not in drawn:
            rows.append(
                OperatorStateVerdict(
                    node=fresh.node,
                    name=fresh.name,
                    operator=fresh.operator,
                    old_operator_id=None,
                    new_operator_id=fresh.operator_id,
                    verdict="new",
                    has_state=None,
                    causes=(_new_cause(fresh.node, old, new),),
                )
            )
    return StateVerdict(check, tuple(rows))


def _row(
    row: OperatorRestore, owner: NodeId, old: Compilation, new: Compilation
) -> OperatorStateVerdict:
    assert old.graph is not None
    written_by = old.graph.nodes[owner]
    target = row.target
    new_id = new.hashes.get(owner)
    return OperatorStateVerdict(
        node=int(owner) if target is None else target.node,
        name=written_by.name,
        operator=written_by.operator,
        old_operator_id=row.operator_id,
        new_operator_id=(
            target.operator_id if target is not None else None if new_id is None else to_hex(new_id)
        ),
        verdict=_VERDICTS[row.outcome],
        has_state=row.has_state,
        causes=row.reasons,
    )


def _new_cause(node: int, old: Compilation, new: Compilation) -> str:
    assert new.graph is not None and old.graph is not None
    if old.graph.nodes.get(NodeId(node)) is None:
        return "the operator is new: it starts without state"
    return (
        "no state of the older version is saved under its ID "
        f"{to_hex(new.hashes[NodeId(node)])}: it starts without state"
    )
