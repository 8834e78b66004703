"""The savepoint a version would write, predicted from its plan.

A savepoint of a running job holds an entry for every operator of every vertex, stateful
or not, under the operator's generated OperatorID (a uidHash only says where to look when
restoring; what is restored is saved under the generated ID again), with its vertex's
parallelism, its vertex's max parallelism (the number of key groups the keyed state is
written in: set on the operator or the job, or derived by the scheduler) and one subtask
state per subtask. `predicted_savepoint(compilation)` builds those entries in the shape
the savepoint reader gives (`compiler.state.savepoint.OperatorState`), so that a version
is checked against the savepoint another would write by the same `check_restore` that
checks a real file.

What a plan cannot tell is whether an operator's state will be empty when the savepoint is
taken, and that decides whether Flink may drop it (FLINK-7595). So per operator:

* a kind that keeps no state writes an empty entry: `has_state` is False, as in Flink;
* a source keeps its enumerator's checkpoint as coordinator state, which Flink writes
  whatever the enumerator holds: `has_state` is True;
* any other kind that keeps state (`compiler.state.kinds`): `has_state` is None, unknown.
  The restore check treats it as holding state (Flink refuses to start without it) and
  says "if it holds state".

Sizes are unknown (`StateSize.bytes` None); the kinds of state are those the operator's
kind writes.

The entries are in the order Flink writes them: `PendingCheckpoint` collects the operator
states in a `java.util.HashMap` keyed by OperatorID and the metadata file lists its
values, so in the order of that map's buckets (`_java_hash_map_order`). The restore check
goes through the file in that order, and so names the operator Flink names when several
states cannot be restored.
"""

from __future__ import annotations

from compiler.pipeline import Compilation
from compiler.state.kinds import state_kinds
from compiler.state.savepoint import OperatorState, StateKind, StateSize


def predicted_savepoint(compilation: Compilation) -> tuple[OperatorState, ...]:
    """The operator states a savepoint of `compilation`'s job would hold, in the order of
    its file. `ValueError` when the document does not compile: such a job never ran."""
    if not compilation.ok or compilation.graph is None or compilation.execution is None:
        raise ValueError("the version does not compile: it never ran, so it wrote no savepoint")
    graph = compilation.graph
    states: list[OperatorState] = []
    for vertex in compilation.execution.vertices:
        job_vertex = vertex.job_vertex
        for node_id, (generated, _) in zip(job_vertex.nodes, job_vertex.operator_ids, strict=True):
            node = graph.nodes[node_id]
            kinds = state_kinds(node.operator)
            has_state: bool | None
            if not kinds:
                has_state = False
            elif StateKind.COORDINATOR in kinds:
                has_state = True
            else:
                has_state = None
            states.append(
                OperatorState(
                    operator_id=generated,
                    name=node.name or None,
                    uid=node.uid,
                    parallelism=vertex.parallelism,
                    max_parallelism=vertex.max_parallelism,
                    subtasks=vertex.parallelism,
                    finished_subtasks=0,
                    fully_finished=False,
                    sizes=tuple(StateSize(kind, None) for kind in kinds),
                    has_state=has_state,
                )
            )
    return _java_hash_map_order(states)


def _java_hash_map_order(states: list[OperatorState]) -> tuple[OperatorState, ...]:
    """`states` as a `HashMap<OperatorID, OperatorState>` filled with them iterates: by
    bucket (`AbstractID.hashCode`, the four 32-bit words of the ID xored, spread as
    `HashMap.hash` does, masked by the table size: 16, doubled whenever the entries pass
    three quarters of it); within a bucket in the order put, here topological (Flink's is
    the order the tasks acknowledged, which no plan tells)."""
    capacity = 16
    while len(states) > capacity * 3 // 4:
        capacity *= 2

    def bucket(state: OperatorState) -> int:
        words = state.operator_id.to_bytes(16, "big")
        code = 0
        for start in range(0, 16, 4):
            code ^= int.from_bytes(words[start : start + 4], "big")
        return (code ^ (code >> 16)) & (capacity - 1)

    return tuple(sorted(states, key=bucket))  # a stable sort keeps the order put
