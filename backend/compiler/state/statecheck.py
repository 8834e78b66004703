"""The review gate's list: the state a version under review would not restore.

Both ways a version is checked are the restore check (`compiler.state.restore`) read as a
list of risks, one per savepoint operator whose state the reviewed version would not
restore, in the savepoint's order:

* `version_risks(old, new)`: against the savepoint the reference version `old` (the
  pipeline's last approved version) would write (`compiler.state.predicted`);
* `savepoint_risks(operators, new, previous=...)`: against a real savepoint's operators
  (`compiler.state.savepoint`), with the version that wrote it when it is known.

The reasons, each with the restore check's words:

* `state-lost`: no operator of the reviewed version takes the state: removed or its ID
  changed (Flink refuses to start, or with unclaimed state allowed drops it), or passed
  over for the state its uidHash names (Flink drops it without a word);
* `max-parallelism-changed`: the operator's vertex sets another max parallelism than the
  one the state was written with: Flink refuses to start, unclaimed state allowed or not;
* `parallelism-above-max`: the vertex runs more subtasks than that max parallelism: Flink
  refuses to start;
* `key-changed`: restored keyed state whose HASH input is keyed differently now (known
  only with the version that wrote the savepoint): Flink restores it without a word, and
  each key's state stays in the key group the old key put it in;
* `not-compiled`: the reviewed version does not compile, so nothing about its state can be
  promised (every state that may hold something).

State Flink drops freely (empty: a stateless operator's entry, or an empty one in a real
savepoint) is never at risk. Each risk names the state by the ID it is saved under (what
an approval acknowledges) and, when there is one, the operator of the reviewed version it
concerns. A reference that does not compile never ran, so it has no state to lose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from compiler.diagnostics import Severity
from compiler.pipeline import Compilation, compile_document
from compiler.state.predicted import predicted_savepoint
from compiler.state.restore import RestoreCheck, check_restore
from compiler.state.savepoint import OperatorState

RiskCode = Literal[
    "state-lost", "max-parallelism-changed", "parallelism-above-max", "key-changed", "not-compiled"
]
RISK_CODES: tuple[RiskCode, ...] = (
    "state-lost",
    "max-parallelism-changed",
    "parallelism-above-max",
    "key-changed",
    "not-compiled",
)


@dataclass(frozen=True, slots=True)
class Reason:
    code: RiskCode
    message: str


@dataclass(frozen=True, slots=True)
class StateRisk:
    node: int | None
    """The operator of the reviewed version it concerns: the one that would restore it, or
    for lost state the one that should take it over (null: none)."""
    name: str
    """The name the savepoint gives the operator that wrote the state."""
    operator_id: str
    """The ID the state is saved under: what an approval acknowledges."""
    reasons: tuple[Reason, ...]
    state_bytes: int | None = None
    """How much state it holds, as the savepoint says; None for a predicted savepoint's."""

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "name": self.name,
            "operatorId": self.operator_id,
            "stateBytes": self.state_bytes,
            "reasons": [{"code": r.code, "message": r.message} for r in self.reasons],
        }


def state_risks(reference: dict[str, Any], reviewed: dict[str, Any]) -> list[StateRisk]:
    """`version_risks` of two documents."""
    return version_risks(compile_document(reference), compile_document(reviewed))


def version_risks(old: Compilation, new: Compilation) -> list[StateRisk]:
    """The state a savepoint of `old` would hold that `new` would not restore."""
    if not old.ok:
        return []
    return savepoint_risks(predicted_savepoint(old), new, previous=old)


def savepoint_risks(
    operators: Sequence[OperatorState],
    reviewed: Compilation,
    *,
    previous: Compilation | None = None,
) -> list[StateRisk]:
    """The operator states of a savepoint whose state the reviewed version would not
    restore, as Flink restores (module docstring); `previous` is the version that wrote it,
    when it is known. Every state that may hold something, if `reviewed` does not compile."""
    if not reviewed.ok or reviewed.graph is None:
        first = next((d for d in reviewed.diagnostics if d.severity is Severity.ERROR), None)
        what = f" ({first.location.describe()}: {first.message})" if first is not None else ""
        text = f"the reviewed version does not compile{what}: its state cannot be checked"
        return [
            StateRisk(
                None,
                state.name or "",
                state.hex_id,
                (Reason("not-compiled", text),),
                state.state_bytes,
            )
            for state in operators
            if state.has_state is not False
        ]
    return restore_risks(check_restore(operators, reviewed, previous=previous))


_OUTCOME_CODES: dict[str, RiskCode] = {
    "lost": "state-lost",
    "shadowed": "state-lost",  # Flink starts, and drops it without a word
    "max-parallelism": "max-parallelism-changed",
    "parallelism-above-max": "parallelism-above-max",
}


def restore_risks(check: RestoreCheck) -> list[StateRisk]:
    """A restore check read as risks (module docstring)."""
    keys: dict[str, list[str]] = {}
    for warning in check.warnings:
        if warning.code == "key-changed" and warning.operator_id is not None:
            keys.setdefault(warning.operator_id, []).append(warning.message)
    risks = []
    for row in check.operators:
        reasons: list[Reason] = []
        code = _OUTCOME_CODES.get(row.outcome)
        if code == "state-lost" and row.has_state is False:
            code = None  # nothing to lose
        if code == "state-lost":
            text = "its state would not be restored: " + "; ".join(row.reasons)
            reasons.append(Reason(code, text))
        elif code is not None:
            reasons.append(Reason(code, "; ".join(row.reasons)))
        reasons.extend(Reason("key-changed", message) for message in keys.get(row.operator_id, []))
        if reasons:
            node = row.suggested_node if row.target is None else row.target.node
            sizes = [size.bytes for size in row.sizes]
            held = None if None in sizes else sum(size for size in sizes if size is not None)
            risks.append(StateRisk(node, row.name or "", row.operator_id, tuple(reasons), held))
    return risks
