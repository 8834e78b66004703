"""Would Flink 2.3 start a compiled plan from a savepoint? The answer Flink gives, before it.

The only code that applies Flink's restore rules: every surface that says whether state
survives a change asks it (the package docstring lists them).
`check_restore(operators, plan, allow_non_restored_state=...)` takes a savepoint's operator
states (read from a file, `compiler.state.savepoint`, or predicted from the version that
would write it, `compiler.state.predicted`, where whether a state is empty is unknown and
counted as holding state) and a compiled version (`compiler.pipeline.Compilation`) and
follows what Flink does when a job is submitted with a savepoint:

1. `Checkpoints.loadAndValidateCheckpoint`: every operator ID of every vertex, generated and
   user-defined (`uidHash`), is looked up; the savepoint's operator states are checked in
   the file's order. A state whose operator exists must have the vertex's max parallelism,
   unless the vertex's is derived (not set), which then takes the savepoint's
   (`ExecutionJobVertex.canRescaleMaxParallelism`); otherwise the start fails, with or
   without unclaimed state allowed. A state no operator has fails the start, naming it, if
   it holds any state (coordinator state, or any state handle of any subtask) and unclaimed
   state is not allowed; empty state is dropped (FLINK-7595).
2. `StateAssignmentOperation.assignStates`: per vertex (topological order here; Flink's
   order over vertices is a hash order, so when several vertices fail below, Flink may name
   another of them) and per operator, the state under its user-defined ID if the savepoint
   has one, else under its generated ID, goes to it. A state two IDs could reach is taken
   once; one that validated but no operator took is dropped without a word.
3. `checkParallelismPreconditions`, for every vertex that restores subtask state: no state
   may have a max parallelism below the vertex's parallelism (Flink names the vertex).

Besides Flink's verdict, every savepoint operator gets a row (what took its state, or why
nothing did; with the previous version's compilation, which hash input changed, in the
words of `compiler.state.idchanges`; for lost state, the operator that should take
it over by a uidHash set to the lost ID), the plan's operators that start empty are
listed, and warnings Flink never gives: a keyed operator whose HASH input is keyed
differently now, another operator kind under a restored ID (both need the previous
version), restored keyed state whose vertex leaves its max parallelism to Flink, and state
dropped although it held something.

The result is frozen dataclasses with ids as hex strings: `RestoreCheck.to_json()`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from compiler.hashing import to_hex
from compiler.keygroups import compute_default_max_parallelism
from compiler.model import UPPER_BOUND_MAX_PARALLELISM, Hash128, NodeId, Partitioner, StreamGraph
from compiler.pipeline import Compilation
from compiler.state.idchanges import operator_id_causes
from compiler.state.kinds import kept_state
from compiler.state.savepoint import OperatorState, StateSize

Outcome = Literal[
    "restored", "empty", "lost", "shadowed", "max-parallelism", "parallelism-above-max"
]
"""What becomes of one savepoint operator's state:

* `restored`: an operator of the plan takes it;
* `empty`: no operator has its ID, and it holds nothing, so dropping it is harmless;
* `lost`: no operator has its ID and it holds state: the start fails, or with unclaimed
  state allowed the state is dropped;
* `shadowed`: an operator has its ID, but restores another state (its uidHash's) instead;
  Flink drops this one without a word;
* `max-parallelism`: its operator's vertex sets another max parallelism: the start fails;
* `parallelism-above-max`: its operator's vertex runs more subtasks than the max
  parallelism the state was written with: the start fails."""

FailureCode = Literal[
    "unmapped-state", "max-parallelism-mismatch", "parallelism-above-max", "max-parallelism-changed"
]
WarningCode = Literal["key-changed", "kind-changed", "derived-max-parallelism", "state-dropped"]
MatchedBy = Literal["operator-id", "uid", "uid-hash"]
"""The ID that matched: the operator's generated ID (from the topology, or from its `uid`),
or the user-defined one of its `uidHash`."""


@dataclass(frozen=True, slots=True)
class Target:
    """The operator of the plan that takes a savepoint operator's state."""

    node: int
    name: str
    operator: str
    """Its kind (`map`, `reduce`, ...)."""
    operator_id: str
    """Its generated OperatorID."""
    matched_by: MatchedBy
    vertex_id: str
    vertex_name: str
    parallelism: int
    max_parallelism: int
    """The vertex's max parallelism once restored (the savepoint's, when it is derived)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "name": self.name,
            "operator": self.operator,
            "operatorId": self.operator_id,
            "matchedBy": self.matched_by,
            "vertexId": self.vertex_id,
            "vertexName": self.vertex_name,
            "parallelism": self.parallelism,
            "maxParallelism": self.max_parallelism,
        }


@dataclass(frozen=True, slots=True)
class OperatorRestore:
    """One row per operator state of the savepoint, in the file's order."""

    operator_id: str
    name: str | None
    uid: str | None
    parallelism: int
    max_parallelism: int
    sizes: tuple[StateSize, ...]
    has_state: bool | None
    """None: not known, in a predicted savepoint (`compiler.state.predicted`)."""
    outcome: Outcome
    target: Target | None
    reasons: tuple[str, ...]
    suggested_node: int | None = None
    """For lost state: the operator of the plan that should take it over (the one that
    wrote it, or one of the same name, and kind when the previous version is known), when
    one restores nothing else; None otherwise."""

    def to_json(self) -> dict[str, Any]:
        return {
            "operatorId": self.operator_id,
            "name": self.name,
            "uid": self.uid,
            "parallelism": self.parallelism,
            "maxParallelism": self.max_parallelism,
            "state": [{"kind": s.kind.value, "bytes": s.bytes} for s in self.sizes],
            "hasState": self.has_state,
            "outcome": self.outcome,
            "target": None if self.target is None else self.target.to_json(),
            "reasons": list(self.reasons),
            "suggestedNode": self.suggested_node,
        }


@dataclass(frozen=True, slots=True)
class NewOperator:
    """An operator of the plan that restores nothing: it starts empty."""

    node: int
    name: str
    operator: str
    operator_id: str
    vertex_id: str
    stateful: bool
    """Of a kind that keeps state (`compiler.state.kinds.STATEFUL_KINDS`) or with a uid."""

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "name": self.name,
            "operator": self.operator,
            "operatorId": self.operator_id,
            "vertexId": self.vertex_id,
            "stateful": self.stateful,
        }


@dataclass(frozen=True, slots=True)
class RestoreFailure:
    code: FailureCode
    operator_id: str
    """The ID Flink names: the operator's, or for `parallelism-above-max` the vertex's."""
    message: str
    """Flink's own words."""

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "operatorId": self.operator_id, "message": self.message}


@dataclass(frozen=True, slots=True)
class RestoreWarning:
    code: WarningCode
    message: str
    operator_id: str | None
    node: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "operatorId": self.operator_id,
            "node": self.node,
        }


@dataclass(frozen=True, slots=True)
class RestoreCheck:
    restores: bool
    """Flink starts the plan from the savepoint, with `allow_non_restored_state` as given."""
    allow_non_restored_state: bool
    failure: RestoreFailure | None
    """Why it does not start; None when it does."""
    restores_allowing_non_restored_state: bool
    """Whether it would start with unclaimed state allowed."""
    operators: tuple[OperatorRestore, ...]
    new_operators: tuple[NewOperator, ...]
    warnings: tuple[RestoreWarning, ...]

    @property
    def verdict(self) -> str:
        """The answer in one sentence."""
        if self.failure is None:
            lost = [o for o in self.operators if o.outcome == "lost"]
            if lost:
                maybe = " (if they hold any)" if all(o.has_state is None for o in lost) else ""
                return f"Restores, dropping the state of {_count(len(lost), 'operator')}{maybe}"
            return "Restores"
        row = next((o for o in self.operators if o.operator_id == self.failure.operator_id), None)
        what = f"{row.name} ({_short(row.operator_id)})" if row and row.name else None
        what = what or f"operator {_short(self.failure.operator_id)}"
        if self.failure.code == "unmapped-state":
            if row is not None and row.has_state is None:
                return f"Fails if {what} holds state, which no operator of this version takes"
            return f"Fails: state of {what} has no operator in this version"
        if self.failure.code == "parallelism-above-max":
            rows = [
                o
                for o in self.operators
                if o.outcome == "parallelism-above-max"
                and o.target is not None
                and o.target.vertex_id == self.failure.operator_id
            ]
            if rows and rows[0].target is not None:
                target = rows[0].target
                return (
                    f"Fails: {target.vertex_name} runs {target.parallelism} subtasks, more than "
                    f"the max parallelism {rows[0].max_parallelism} its state was saved with"
                )
        if row is not None and row.target is not None:
            return (
                f"Fails: {what} was saved with max parallelism {row.max_parallelism}, and this "
                f"version sets {row.target.max_parallelism}"
            )
        return "Fails: " + self.failure.message

    def to_json(self) -> dict[str, Any]:
        return {
            "restores": self.restores,
            "verdict": self.verdict,
            "allowNonRestoredState": self.allow_non_restored_state,
            "failure": None if self.failure is None else self.failure.to_json(),
            "restoresAllowingNonRestoredState": self.restores_allowing_non_restored_state,
            "operators": [o.to_json() for o in self.operators],
            "newOperators": [o.to_json() for o in self.new_operators],
            "warnings": [w.to_json() for w in self.warnings],
        }


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _short(hex_id: str) -> str:
    return hex_id[:8] + "..."


# -- the plan as Flink's scheduler sees it ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Vertex:
    id: Hash128
    name: str
    parallelism: int
    max_parallelism: int
    derived: bool
    operators: tuple[tuple[NodeId, Hash128, Hash128 | None], ...]
    """(node, generated ID, user-defined ID) in `getOperatorIDs()` order."""

    def can_rescale_max_parallelism(self, max_parallelism: int) -> bool:
        """`canRescaleMaxParallelism`: only a max parallelism Flink derived may change."""
        return self.derived and 1 <= max_parallelism <= UPPER_BOUND_MAX_PARALLELISM


def _vertices(plan: Compilation) -> tuple[_Vertex, ...]:
    assert plan.execution is not None
    return tuple(
        _Vertex(
            id=v.id,
            name=v.job_vertex.name,
            parallelism=v.parallelism,
            max_parallelism=v.max_parallelism,
            derived=v.max_parallelism_derived,
            operators=tuple(
                (node, generated, user)
                for node, (generated, user) in zip(
                    v.job_vertex.nodes, v.job_vertex.operator_ids, strict=True
                )
            ),
        )
        for v in plan.execution.vertices
    )


@dataclass(frozen=True, slots=True)
class _Claim:
    vertex: _Vertex
    node: NodeId
    matched: Hash128


@dataclass(frozen=True, slots=True)
class _Flink:
    """What Flink does with the savepoint's states, phase by phase."""

    mapping: dict[Hash128, _Vertex]
    """Every operator ID of the plan -> its vertex (a later operator wins, as in Flink)."""
    validated: dict[Hash128, OperatorState]
    """States that passed validation; with unclaimed state allowed, every state that maps."""
    mismatched: dict[Hash128, _Vertex]
    """States whose vertex has another, fixed, max parallelism."""
    claims: dict[Hash128, _Claim]
    """State ID -> the operator that takes it."""


def _simulate(states: Sequence[OperatorState], vertices: tuple[_Vertex, ...]) -> _Flink:
    mapping: dict[Hash128, _Vertex] = {}
    for vertex in vertices:
        for _, generated, user in vertex.operators:
            mapping[generated] = vertex
            if user is not None:
                mapping[user] = vertex
    validated: dict[Hash128, OperatorState] = {}
    mismatched: dict[Hash128, _Vertex] = {}
    for state in states:
        found = mapping.get(state.operator_id)
        if found is None:
            continue
        if found.max_parallelism == state.max_parallelism or found.can_rescale_max_parallelism(
            state.max_parallelism
        ):
            validated[state.operator_id] = state
        else:
            mismatched[state.operator_id] = found
    local = dict(validated)
    claims: dict[Hash128, _Claim] = {}
    for vertex in vertices:
        for node, generated, user in vertex.operators:
            key = user if user is not None and user in local else generated
            if local.pop(key, None) is not None:
                claims[key] = _Claim(vertex, node, key)
    return _Flink(mapping, validated, mismatched, claims)


def _flink_failure(
    states: Sequence[OperatorState],
    vertices: tuple[_Vertex, ...],
    flink: _Flink,
    *,
    allow_non_restored_state: bool,
) -> RestoreFailure | None:
    """The first refusal Flink reports, or None when the job starts."""
    for state in states:  # loadAndValidateCheckpoint, in the file's order
        hex_id = to_hex(state.operator_id)
        vertex = flink.mismatched.get(state.operator_id)
        if vertex is not None:
            return RestoreFailure(
                "max-parallelism-mismatch",
                hex_id,
                "Max parallelism mismatch between checkpoint/savepoint state and new program. "
                f"Cannot map operator {hex_id} with max parallelism {state.max_parallelism} to "
                f"new program with max parallelism {vertex.max_parallelism}. This indicates that "
                "the program has been changed in a non-compatible way after the "
                "checkpoint/savepoint.",
            )
        if (
            state.operator_id in flink.mapping
            or allow_non_restored_state
            or state.has_state is False
        ):
            continue
        return RestoreFailure(
            "unmapped-state",
            hex_id,
            f"Cannot map checkpoint/savepoint state for operator {hex_id} to the new program, "
            "because the operator is not available in the new program. If you want to allow to "
            "skip this, you can set the --allowNonRestoredState option on the CLI.",
        )
    by_vertex: dict[Hash128, list[OperatorState]] = {}
    for state_id, claim in flink.claims.items():
        by_vertex.setdefault(claim.vertex.id, []).append(flink.validated[state_id])
    for vertex in vertices:  # checkParallelismPreconditions
        restored = by_vertex.get(vertex.id, [])
        if not any(state.subtasks > 0 for state in restored):
            continue
        max_parallelism = vertex.max_parallelism
        for state in restored:
            if state.max_parallelism < vertex.parallelism:
                return RestoreFailure(
                    "parallelism-above-max",
                    to_hex(vertex.id),
                    f"The state for task {to_hex(vertex.id)} can not be restored. The maximum "
                    f"parallelism ({state.max_parallelism}) of the restored state is lower than "
                    f"the configured parallelism ({vertex.parallelism}). Please reduce the "
                    "parallelism of the task to be lower or equal to the maximum parallelism.",
                )
            if state.max_parallelism != max_parallelism:
                if not vertex.can_rescale_max_parallelism(state.max_parallelism):
                    return RestoreFailure(
                        "max-parallelism-changed",
                        to_hex(state.operator_id),
                        f"The maximum parallelism ({state.max_parallelism}) with which the "
                        f"latest checkpoint of the execution job vertex {vertex.name} has been "
                        f"taken and the current maximum parallelism ({max_parallelism}) "
                        "changed. This is currently not supported.",
                    )
                max_parallelism = state.max_parallelism
    return None


# -- the report ---------------------------------------------------------------------------


def check_restore(
    operators: Sequence[OperatorState],
    plan: Compilation,
    *,
    allow_non_restored_state: bool = False,
    previous: Compilation | None = None,
) -> RestoreCheck:
    """What Flink 2.3 does when `plan` starts from a savepoint holding `operators`.

    `previous` is the compilation of the version that wrote the savepoint, when it is known:
    it explains lost state by what changed, and finds changed keys and operator kinds.
    """
    if not plan.ok or plan.graph is None:
        raise ValueError("the plan does not compile: there is no job to restore")
    vertices = _vertices(plan)
    flink = _simulate(operators, vertices)
    failure = _flink_failure(
        operators, vertices, flink, allow_non_restored_state=allow_non_restored_state
    )
    failure_allowing = (
        failure
        if allow_non_restored_state
        else _flink_failure(operators, vertices, flink, allow_non_restored_state=True)
    )
    report = _Report(plan, plan.graph, previous, flink, allow_non_restored_state)
    rows = tuple(report.row(state) for state in operators)
    return RestoreCheck(
        restores=failure is None,
        allow_non_restored_state=allow_non_restored_state,
        failure=failure,
        restores_allowing_non_restored_state=failure_allowing is None,
        operators=rows,
        new_operators=report.new_operators(vertices),
        warnings=tuple(report.warnings(operators, rows)),
    )


def _is_stateful_node(operator: str, *, uid: str | None, uid_hash: str | None) -> bool:
    """`compiler.state.kinds.is_stateful` of a StreamNode."""
    return kept_state(operator) is not None or bool(uid) or bool(uid_hash)


class _Report:
    def __init__(
        self,
        plan: Compilation,
        graph: StreamGraph,
        previous: Compilation | None,
        flink: _Flink,
        allow_non_restored_state: bool,
    ) -> None:
        self.plan = plan
        self.graph = graph
        self.previous = previous if previous is not None and previous.graph is not None else None
        self.flink = flink
        self.allow = allow_non_restored_state
        self._owners: dict[Hash128, NodeId] | None = None
        self._names: dict[str, list[NodeId]] | None = None
        self._suggested: set[NodeId] = set()

    def target(self, claim: _Claim, max_parallelism: int) -> Target:
        node = self.graph.nodes[claim.node]
        generated = self.plan.hashes[claim.node]
        if claim.matched != generated:
            matched_by: MatchedBy = "uid-hash"
        else:
            matched_by = "uid" if node.uid is not None else "operator-id"
        vertex = claim.vertex
        return Target(
            node=int(claim.node),
            name=node.name,
            operator=node.operator,
            operator_id=to_hex(generated),
            matched_by=matched_by,
            vertex_id=to_hex(vertex.id),
            vertex_name=vertex.name,
            parallelism=vertex.parallelism,
            max_parallelism=(
                max_parallelism
                if vertex.can_rescale_max_parallelism(max_parallelism)
                else vertex.max_parallelism
            ),
        )

    def row(self, state: OperatorState) -> OperatorRestore:
        claim = self.flink.claims.get(state.operator_id)
        target: Target | None = None
        suggested: NodeId | None = None
        reasons: list[str]
        if claim is not None:
            target = self.target(claim, state.max_parallelism)
            outcome: Outcome = "restored"
            reasons = [self._restored_reason(state, target)]
            if state.max_parallelism < claim.vertex.parallelism:
                outcome = "parallelism-above-max"
                reasons = [
                    f"its vertex {claim.vertex.name} runs {claim.vertex.parallelism} subtasks, "
                    f"more than the max parallelism its state was written with "
                    f"({state.max_parallelism}): Flink cannot split its key groups further"
                ]
            elif state.max_parallelism != claim.vertex.max_parallelism and not (
                claim.vertex.can_rescale_max_parallelism(state.max_parallelism)
            ):
                # Validated against another operator with this ID, in a vertex that derives
                # its max parallelism; taken by this one, whose vertex sets another.
                outcome = "max-parallelism"
                reasons = [
                    f"it is restored into {target.name} ({target.node}), whose vertex "
                    f"{claim.vertex.name} sets max parallelism {claim.vertex.max_parallelism}; "
                    f"the state was written with {state.max_parallelism} key groups and Flink "
                    "cannot change that number"
                ]
        elif state.operator_id in self.flink.mismatched:
            vertex = self.flink.mismatched[state.operator_id]
            outcome = "max-parallelism"
            node = next(n for n, g, u in vertex.operators if state.operator_id in (g, u))
            target = self.target(_Claim(vertex, node, state.operator_id), state.max_parallelism)
            reasons = [
                f"its vertex {vertex.name} sets max parallelism {vertex.max_parallelism}; the "
                f"state was written with {state.max_parallelism} key groups and Flink cannot "
                "change that number"
            ]
        elif state.operator_id in self.flink.mapping:
            outcome = "shadowed"
            vertex = self.flink.mapping[state.operator_id]
            node = next(n for n, g, _ in vertex.operators if g == state.operator_id)
            name = f"{self.graph.nodes[node].name} ({node})"
            reasons = [
                f"{name} has this as its generated ID but restores the state under its uidHash "
                "instead: Flink drops this state without a word"
            ]
        elif state.has_state is False:
            outcome = "empty"
            reasons = [
                "no operator of this version has this ID, but it holds no state: Flink drops "
                "it (FLINK-7595)"
            ]
        else:
            outcome = "lost"
            reasons = self._lost_reasons(state)
            suggested = self._suggest(state)
            if state.has_state is None:
                reasons.append(
                    "whether it holds state only the running job can tell: if it does, "
                    + ("Flink drops it" if self.allow else "Flink refuses to start without it")
                )
            if self.allow:
                reasons.append("unclaimed state is allowed: Flink starts without it")
        return OperatorRestore(
            operator_id=state.hex_id,
            name=state.name,
            uid=state.uid,
            parallelism=state.parallelism,
            max_parallelism=state.max_parallelism,
            sizes=state.sizes,
            has_state=state.has_state,
            outcome=outcome,
            target=target,
            reasons=tuple(reasons),
            suggested_node=None if suggested is None else int(suggested),
        )

    def _suggest(self, state: OperatorState) -> NodeId | None:
        """The operator that should take lost state over. One that restores other state is
        never suggested (its uidHash would drop that state), nor one twice."""
        taken = {
            claim.node
            for state_id, claim in self.flink.claims.items()
            if self.flink.validated[state_id].has_state is not False
        } | self._suggested
        kind: str | None = None
        candidates: list[NodeId] = []
        owner = self._previous_owner(state.operator_id)
        if self.previous is not None and self.previous.graph is not None and owner is not None:
            old = self.previous.graph.nodes[owner]
            kind = old.operator
            now = self.graph.nodes.get(owner)
            if now is not None and (now.name == old.name or now.operator == old.operator):
                candidates.append(owner)
            candidates.extend(self._named(old.name))
        else:
            candidates.extend(self._named(state.name))

        def rank(node: NodeId) -> tuple[bool, bool]:
            stream_node = self.graph.nodes[node]
            stateful = _is_stateful_node(
                stream_node.operator, uid=stream_node.uid, uid_hash=stream_node.uid_hash
            )
            return (kind is not None and stream_node.operator != kind, not stateful)

        free = sorted((n for n in dict.fromkeys(candidates) if n not in taken), key=rank)
        if not free:
            return None
        self._suggested.add(free[0])
        return free[0]

    def _restored_reason(self, state: OperatorState, target: Target) -> str:
        how = {
            "operator-id": "its generated ID",
            "uid": f"the ID of its uid '{self.graph.nodes[NodeId(target.node)].uid}'",
            "uid-hash": "its uidHash",
        }[target.matched_by]
        text = f"restored into {target.name} ({target.node}) through {how}"
        kept = self._kept_cause(state, NodeId(target.node))
        if kept is not None:
            text += f" ({kept})"
        if state.parallelism != target.parallelism:
            text += f"; rescaled from {state.parallelism} to {target.parallelism} subtasks"
        return text

    def _kept_cause(self, state: OperatorState, node: NodeId) -> str | None:
        """Why the operator that wrote the state still finds it, when the previous version
        is known and that operator restores it: its ID did not change (kept by its uid, a
        uidHash pinning it, or the topology around it), or its uidHash is the old ID."""
        if self._previous_owner(state.operator_id) != node:
            return None
        generated = self.plan.hashes[node]
        if generated != state.operator_id:
            return f"its ID is {to_hex(generated)} now, but its uidHash is the old ID"
        uid = self.graph.nodes[node].uid
        if uid is not None:
            return f"uid '{uid}' set, ID stable"
        if self.plan.user_hashes.get(node) == generated:
            return "ID unchanged, and its uidHash pins it"
        return "same topology around it: ID unchanged; set a uid to keep it stable"

    def _previous_owner(self, operator_id: Hash128) -> NodeId | None:
        """The node of the previous version whose state is saved under `operator_id`: its
        generated ID, whatever its uidHash (Flink saves restored state under that too)."""
        if self.previous is None:
            return None
        if self._owners is None:
            owners: dict[Hash128, NodeId] = {}
            for nid, generated in sorted(self.previous.hashes.items()):
                owners.setdefault(generated, nid)
            self._owners = owners
        return self._owners.get(operator_id)

    def _lost_reasons(self, state: OperatorState) -> list[str]:
        hex_id = state.hex_id
        owner = self._previous_owner(state.operator_id)
        if self.previous is not None and self.previous.graph is not None and owner is not None:
            old = self.previous.graph.nodes[owner]
            now = self.graph.nodes.get(owner)
            if now is None or (now.name != old.name and now.operator != old.operator):
                # Node ids are not stable across versions (Flink numbers transformations as
                # they are made): the same operator may now have another id.
                return self._renumbered_reasons(state, old.name, owner)
            new_id = to_hex(self.plan.hashes[owner])
            taken = self._taken_by_uid_hash(owner)
            if taken is not None:
                return [
                    f"its operator {old.name} ({owner}) has the uidHash {to_hex(taken)}, the "
                    f"saved ID of {self._state_name(taken)}, so Flink restores that state into "
                    "it instead of its own"
                ]
            causes = operator_id_causes(self.previous, self.plan, owner)
            user = self.plan.user_hashes.get(owner)
            if user is not None:
                causes.append(
                    f"its uidHash {to_hex(user)} finds nothing in the savepoint, which holds its "
                    f"state under {hex_id}"
                )
            return [
                f"its operator {old.name} ({owner}) has ID {new_id} now: " + "; ".join(causes),
                f"to restore it, set the uidHash of {old.name} ({owner}) to {hex_id}",
            ]
        reasons = ["no operator of this version has this ID (generated, or from uid or uidHash)"]
        for node in self._named(state.name):
            stream_node = self.graph.nodes[node]
            reasons.append(
                f"{stream_node.name} ({node}) has the same name and ID "
                f"{to_hex(self.plan.hashes[node])}: if it should take this state over, set its "
                f"uidHash to {hex_id}"
            )
        return reasons

    def _taken_by_uid_hash(self, node: NodeId) -> Hash128 | None:
        """The other state `node` restores through its uidHash, if it does."""
        return next(
            (
                state_id
                for state_id, claim in self.flink.claims.items()
                if claim.node == node and state_id != self.plan.hashes[node]
            ),
            None,
        )

    def _state_name(self, operator_id: Hash128) -> str:
        """The operator that wrote a state, in words: its node in the previous version, or
        the name the savepoint gives it."""
        owner = self._previous_owner(operator_id)
        if owner is not None and self.previous is not None and self.previous.graph is not None:
            return f"{self.previous.graph.nodes[owner].name} ({owner})"
        state = self.flink.validated.get(operator_id)
        return state.name if state is not None and state.name else f"operator {to_hex(operator_id)}"

    def _renumbered_reasons(self, state: OperatorState, name: str, owner: NodeId) -> list[str]:
        hex_id = state.hex_id
        same_name = self._named(name)
        if not same_name:
            return [f"its operator {name} ({owner}) was removed"]
        node = same_name[0]
        return [
            f"its operator {name} ({owner}) is {name} ({node}) in this version, with ID "
            f"{to_hex(self.plan.hashes[node])}: the graph around it changed",
            f"to restore it, set the uidHash of {name} ({node}) to {hex_id}",
        ]

    def _named(self, name: str | None) -> list[NodeId]:
        if name is None:
            return []
        if self._names is None:
            names: dict[str, list[NodeId]] = {}
            for nid, node in self.graph.nodes.items():
                names.setdefault(node.name, []).append(nid)
            self._names = names
        return self._names.get(name, [])

    def new_operators(self, vertices: tuple[_Vertex, ...]) -> tuple[NewOperator, ...]:
        restored = {claim.node for claim in self.flink.claims.values()}
        result = []
        for vertex in vertices:
            for node_id, generated, _ in reversed(vertex.operators):  # head first
                if node_id in restored:
                    continue
                node = self.graph.nodes[node_id]
                result.append(
                    NewOperator(
                        node=int(node_id),
                        name=node.name,
                        operator=node.operator,
                        operator_id=to_hex(generated),
                        vertex_id=to_hex(vertex.id),
                        stateful=_is_stateful_node(
                            node.operator, uid=node.uid, uid_hash=node.uid_hash
                        ),
                    )
                )
        return tuple(result)

    # -- warnings -------------------------------------------------------------------------

    def warnings(
        self, states: Sequence[OperatorState], rows: tuple[OperatorRestore, ...]
    ) -> list[RestoreWarning]:
        found: list[RestoreWarning] = []
        pinned: set[str] = set()
        for state, row in zip(states, rows, strict=True):
            name = f"{row.name} ({_short(row.operator_id)})" if row.name else row.operator_id
            if row.outcome in ("lost", "shadowed") and state.has_state is not False and self.allow:
                found.append(
                    RestoreWarning(
                        "state-dropped",
                        f"the state of {name} ({_size(state)}) is dropped{_if_any(state)}: no "
                        "operator restores it",
                        row.operator_id,
                        None,
                    )
                )
            elif row.outcome == "shadowed" and state.has_state is not False:
                found.append(
                    RestoreWarning(
                        "state-dropped",
                        f"the state of {name} is dropped{_if_any(state)}: " + row.reasons[0],
                        row.operator_id,
                        None,
                    )
                )
            if row.outcome != "restored" or row.target is None:
                continue
            found.extend(self._changed_since_previous(state, row.target, name))
            claim = self.flink.claims[state.operator_id]
            if state.is_keyed and claim.vertex.derived and row.target.vertex_id not in pinned:
                pinned.add(row.target.vertex_id)
                found.append(_derived_max_parallelism(state, row.target, claim.vertex))
        return found

    def _changed_since_previous(
        self, state: OperatorState, target: Target, name: str
    ) -> list[RestoreWarning]:
        owner = self._previous_owner(state.operator_id)
        if self.previous is None or self.previous.graph is None or owner is None:
            return []
        old = self.previous.graph
        node = NodeId(target.node)
        found = []
        if old.nodes[owner].operator != target.operator:
            found.append(
                RestoreWarning(
                    "kind-changed",
                    f"the state of {name} was written by a '{old.nodes[owner].operator}' "
                    f"operator and is restored into {target.name} ({target.node}), a "
                    f"'{target.operator}': it may not be able to read it",
                    state.hex_id,
                    target.node,
                )
            )
        if state.is_keyed:
            before, after = _hash_keys(old, owner), _hash_keys(self.graph, node)
            if before != after:
                found.append(
                    RestoreWarning(
                        "key-changed",
                        f"{target.name} ({target.node}) restores keyed state, but its input is "
                        f"keyed by {_key_list(after)} instead of {_key_list(before)}: Flink "
                        "restores it without a word, and each key's state stays in the key "
                        "group the old key put it in",
                        state.hex_id,
                        target.node,
                    )
                )
        return found


def _size(state: OperatorState) -> str:
    size = state.state_bytes
    return "size not known before it runs" if size is None else _count(size, "byte")


def _if_any(state: OperatorState) -> str:
    """Words for state that may be empty (a predicted savepoint's)."""
    return " if it holds any" if state.has_state is None else ""


def _hash_keys(graph: StreamGraph, node: NodeId) -> tuple[str, ...]:
    """The keys of a node's HASH inputs, in in-edge order."""
    return tuple(
        _key_text(edge.key) for edge in graph.in_edges[node] if edge.partitioner is Partitioner.HASH
    )


def _key_text(key: object) -> str:
    """A HASH edge's key selector (kept as sorted JSON text by `compiler.document`)."""
    value = json.loads(key) if isinstance(key, str) else key
    if isinstance(value, dict) and set(value) == {"fn"} and isinstance(value["fn"], str):
        return f"'{value['fn']}'"
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _key_list(keys: tuple[str, ...]) -> str:
    return " and ".join(keys) if keys else "no key"


def _derived_max_parallelism(
    state: OperatorState, target: Target, vertex: _Vertex
) -> RestoreWarning:
    saved = state.max_parallelism
    derived_now = compute_default_max_parallelism(vertex.parallelism)
    text = (
        f"the max parallelism of {vertex.name} is not set: its keyed state restores because "
        f"Flink takes the savepoint's {saved}"
    )
    if derived_now != saved:
        text += f" (without it, parallelism {vertex.parallelism} would give {derived_now})"
    else:
        widest = _widest_parallelism_deriving(saved)
        if widest is not None:
            text += f", which Flink would derive only up to parallelism {widest}"
    text += (
        f". The state can never run on more than {saved} subtasks; set maxParallelism to "
        f"{saved} on its operators so that it no longer depends on the parallelism"
    )
    return RestoreWarning("derived-max-parallelism", text, state.hex_id, target.node)


def _widest_parallelism_deriving(max_parallelism: int) -> int | None:
    """The largest parallelism whose derived max parallelism is `max_parallelism`."""
    if max_parallelism < 128 or max_parallelism & (max_parallelism - 1):
        return None  # not a value Flink derives
    if max_parallelism >= UPPER_BOUND_MAX_PARALLELISM:
        return UPPER_BOUND_MAX_PARALLELISM
    # 1.5 x p rounded up to a power of two: p + p // 2 <= max_parallelism.
    widest = (2 * max_parallelism) // 3 + 1
    while widest + widest // 2 > max_parallelism:
        widest -= 1
    return widest
