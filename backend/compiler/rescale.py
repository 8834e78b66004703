"""What restarting a version from a savepoint at another parallelism does to its state.

A rescale is a change to the document (`rescale_edits`), so that what is simulated is the
very document Flink would be given, and anything else that judges a document (a check
against a real savepoint) can be handed the same one (`RescaleSimulation.document`, and
compiled, `RescaleSimulation.compilation`):

* one vertex: every operator of the JobVertex (its chained sources included) gets
  `parallelism` = P, as `setParallelism(P)` on each of them would;
* the whole job: `config.defaultParallelism` = P, which is what `flink run -p P` changes
  when a job is restarted from a savepoint. Operators that set their own parallelism keep
  it (`followsDefault` is false for their vertices), exactly as in Flink.

`simulate_rescale(document, rescale)` compiles the document before and after and gives,
per JobVertex of the document (the chosen one, or all of them in topological order):

* its parallelism before and after and its max parallelism: the number of key groups its
  state was written with, whether it was set (on an operator or the job) or derived
  (`KeyGroupRangeAssignment.computeDefaultMaxParallelism`), and what Flink would derive at
  the new parallelism;
* the key-group range before (`computeKeyGroupRangeForOperatorIndex`) and after of its
  first `SUBTASKS_SHOWN` subtasks of each side (what a view draws; a job may have 32768),
  with the old subtasks each new one reads its key groups from (the first `READS_SHOWN`)
  and how many of them it already held (the overlap with the old range of the same index),
  so the share of its keyed state it keeps locally, counting every key group as the same
  size; and over all its subtasks, computed without listing them, the key groups that move
  and the least and most share a new subtask keeps;
* the slots the job needs before and after (per slot sharing group its widest vertex,
  summed over the groups, as `compiler.jobgraph` computes them).

A job may have thousands of vertices, so the answer (`RescaleSimulation.to_json`) is a
page of them: what every vertex's state does is judged (the verdict, the problems counted,
the pin), but the subtasks are worked out only for the vertices the page describes, and the
problems listed are bounded (`shown_problems`).

Restoring follows `StateAssignmentOperation.checkParallelismPreconditions`: the state
keeps the max parallelism it was saved with. A vertex that sets its max parallelism must
keep it; one that leaves it to Flink takes the savepoint's, whatever it would derive now
(`canRescaleMaxParallelism`), but only while its new parallelism is within it. A
parallelism above it cannot restore: Flink refuses to start the job from that savepoint.
The problems say so, and also warn, before a first deploy, about every derived max
parallelism, which caps how wide the job can ever grow with its state (`pin_edits` gives
the edits that set it to its current value). Vertices are matched before and after by the
node at their head; that the rescale changes how operators chain (and so OperatorIDs) is
a problem too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from compiler.diagnostics import Diagnostic, Severity
from compiler.edits import Edit, apply_edit
from compiler.execution import ExecutionJobVertex
from compiler.hashing import to_hex
from compiler.keygroups import compute_default_max_parallelism, key_group_range
from compiler.model import (
    PARALLELISM_DEFAULT,
    UPPER_BOUND_MAX_PARALLELISM,
    Hash128,
    NodeId,
    Partitioner,
)
from compiler.pipeline import Compilation, compile_document
from compiler.state.predicted import predicted_savepoint
from compiler.state.restore import RestoreCheck, check_restore
from compiler.state.statecheck import restore_risks

ProblemCode = Literal[
    "not-compiled",
    "above-max-parallelism",
    "derived-max-parallelism",
    "derived-max-parallelism-differs",
    "chaining-changed",
    "state-lost",
]
ProblemSeverity = Literal["error", "warning", "info"]
PROBLEM_SEVERITIES: tuple[ProblemSeverity, ...] = ("error", "warning", "info")
Scope = Literal["vertex", "job"]
RefusedParameter = Literal["vertex", "parallelism", "document"]

SUBTASKS_SHOWN = 64
"""Subtasks described per side of a vertex: the first ones, as many as a view draws."""
READS_SHOWN = 16
"""Old subtasks listed per new subtask (a shrink to 1 reads from every old one)."""
VERTICES_SHOWN = 20
"""Vertices an answer describes by default: a page (a job may have thousands)."""
MAX_VERTICES_SHOWN = 100
"""The most an answer describes: each is up to 2 x `SUBTASKS_SHOWN` subtasks."""
PROBLEMS_SHOWN = 200
"""Problems an answer lists (all of them are counted)."""
PIN_NAMES_SHOWN = 5
"""Vertices a pin's message names; the others are counted."""

# Compiler errors that only repeat `above-max-parallelism` in the compiler's words.
_ABOVE_MAX_CODES = frozenset({"node.parallelism-above-max", "execution.parallelism-above-max"})


class RescaleRefused(ValueError):
    """A rescale that cannot be simulated: `parameter` says which input is wrong."""

    def __init__(
        self,
        parameter: RefusedParameter,
        message: str,
        diagnostics: tuple[Diagnostic, ...] = (),
    ) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.message = message
        self.diagnostics = diagnostics


@dataclass(frozen=True, slots=True)
class Rescale:
    parallelism: int
    vertex: Hash128 | None = None
    """The JobVertexID to rescale; None: the whole job (its default parallelism)."""

    @property
    def scope(self) -> Scope:
        return "job" if self.vertex is None else "vertex"


@dataclass(frozen=True, slots=True)
class KeyGroups:
    """An inclusive range of key groups."""

    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start + 1

    def to_json(self) -> list[int]:
        return [self.start, self.end]


@dataclass(frozen=True, slots=True)
class Read:
    """Key groups a new subtask takes from the state of an old one."""

    subtask: int
    key_groups: KeyGroups

    def to_json(self) -> dict[str, Any]:
        return {"subtask": self.subtask, "keyGroups": self.key_groups.to_json()}


@dataclass(frozen=True, slots=True)
class NewSubtask:
    index: int
    key_groups: KeyGroups
    reads: tuple[Read, ...]
    """The first `READS_SHOWN` old subtasks whose key groups it restores, in key-group
    order."""
    reads_from: int
    """How many old subtasks it restores key groups from, listed or not."""
    kept: int
    """Key groups the old subtask of the same index held: state that stays where it was."""

    @property
    def kept_fraction(self) -> float:
        return self.kept / self.key_groups.size

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "keyGroups": self.key_groups.to_json(),
            "reads": [read.to_json() for read in self.reads],
            "readsFrom": self.reads_from,
            "kept": self.kept,
            "keptFraction": self.kept_fraction,
        }


@dataclass(frozen=True, slots=True)
class Totals:
    """A rescale's figures over all new subtasks of a vertex."""

    moved: int
    """Key groups that change subtask."""
    least: float
    """The smallest share of its key groups a new subtask already held."""
    most: float

    def to_json(self) -> dict[str, Any]:
        return {"least": self.least, "most": self.most}


@dataclass(frozen=True, slots=True)
class MaxParallelism:
    key_groups: int
    """The max parallelism the state was written with: its number of key groups."""
    explicit: bool
    """Set on an operator or the job; False: derived from the parallelism by Flink."""
    derived_after: int | None
    """What Flink derives at the new parallelism (None when it is set)."""
    after: int | None
    """What the rescaled job runs with after restoring; None when it cannot restore."""

    def to_json(self) -> dict[str, Any]:
        return {
            "keyGroups": self.key_groups,
            "explicit": self.explicit,
            "derivedAfter": self.derived_after,
            "after": self.after,
        }


@dataclass(frozen=True, slots=True)
class VertexRef:
    id: Hash128
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"id": to_hex(self.id), "name": self.name}


@dataclass(frozen=True, slots=True)
class VertexRescale:
    id: Hash128
    name: str
    head: NodeId
    nodes: tuple[NodeId, ...]
    """Its operators (chained sources included), by ascending node id."""
    keyed: bool
    """Behind a keyBy (a HASH edge into one of its operators): it holds keyed state."""
    follows_default: bool
    """Its head operator takes the job's default parallelism."""
    parallelism_before: int
    parallelism_after: int
    max_parallelism: MaxParallelism
    after_vertices: tuple[VertexRef, ...]
    """The vertices its operators run in after the rescale (empty if it does not compile)."""
    restores: bool
    """Flink takes its state at the new parallelism (`compiler.state.restore`, against the
    savepoint the job writes before the rescale), as far as its max parallelism decides;
    False too when the rescaled job cannot be built, its parallelism above a max
    parallelism it sets."""

    @property
    def changed(self) -> bool:
        return self.parallelism_before != self.parallelism_after

    # Worked out when asked, for the vertices a page shows: a job may have thousands of
    # vertices, each up to 32768 subtasks wide.

    @property
    def before(self) -> tuple[KeyGroups, ...]:
        """The first `SUBTASKS_SHOWN` old subtasks' key groups."""
        return key_group_ranges(
            self.max_parallelism.key_groups, self.parallelism_before, SUBTASKS_SHOWN
        )

    @property
    def after(self) -> tuple[NewSubtask, ...]:
        """The first `SUBTASKS_SHOWN` new subtasks; empty when the state cannot be restored
        at the new parallelism."""
        if not self.restores:
            return ()
        return redistribute(
            self.max_parallelism.key_groups,
            self.parallelism_before,
            self.parallelism_after,
            SUBTASKS_SHOWN,
        )

    @property
    def totals(self) -> Totals | None:
        """Over all new subtasks; None when the state cannot be restored."""
        if not self.restores:
            return None
        return rescale_totals(
            self.max_parallelism.key_groups, self.parallelism_before, self.parallelism_after
        )

    @property
    def moved_key_groups(self) -> int | None:
        """Key groups that change subtask; None when the state cannot be restored."""
        totals = self.totals
        return None if totals is None else totals.moved

    def to_json(self) -> dict[str, Any]:
        totals = self.totals
        return {
            "id": to_hex(self.id),
            "name": self.name,
            "head": self.head,
            "nodes": list(self.nodes),
            "keyed": self.keyed,
            "followsDefault": self.follows_default,
            "changed": self.changed,
            "parallelism": {"before": self.parallelism_before, "after": self.parallelism_after},
            "maxParallelism": self.max_parallelism.to_json(),
            "restores": self.restores,
            "movedKeyGroups": None if totals is None else totals.moved,
            "keptFraction": None if totals is None else totals.to_json(),
            "subtasksShown": SUBTASKS_SHOWN,
            "before": [key_groups.to_json() for key_groups in self.before],
            "after": [subtask.to_json() for subtask in self.after],
            "afterVertices": [vertex.to_json() for vertex in self.after_vertices],
        }


@dataclass(frozen=True, slots=True)
class RescaleProblem:
    code: ProblemCode
    severity: ProblemSeverity
    message: str
    vertex: Hash128 | None = None
    node: NodeId | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "vertex": None if self.vertex is None else to_hex(self.vertex),
            "node": self.node,
        }


@dataclass(frozen=True, slots=True)
class Pin:
    """Edits that set the max parallelism every derived vertex has now, as one step."""

    edits: tuple[Edit, ...]
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"edits": [edit.to_json() for edit in self.edits], "message": self.message}


@dataclass(frozen=True, slots=True)
class BeforeAfter:
    """Slots or subtasks before and after (None: the rescaled job does not compile)."""

    before: int
    after: int | None

    def to_json(self) -> dict[str, Any]:
        return {"before": self.before, "after": self.after}


@dataclass(frozen=True, slots=True)
class RescaleSimulation:
    rescale: Rescale
    default_parallelism: BeforeAfter
    ok: bool
    """The rescaled document compiles."""
    slots: BeforeAfter
    subtasks: BeforeAfter
    vertices: tuple[VertexRescale, ...]
    problems: tuple[RescaleProblem, ...]
    pin: Pin | None
    """Setting the max parallelism of the vertices shown that derive it; None: none do."""
    document: dict[str, Any]
    """The rescaled document, for any further check of it (not part of the JSON)."""
    compilation: Compilation
    """The rescaled document compiled: what a check against a savepoint takes (ditto)."""

    @property
    def restores(self) -> bool:
        """Every vertex's state can be restored at its new parallelism, as far as the
        parallelism and the operators' ids tell."""
        return self.ok and not any(p.severity == "error" for p in self.problems)

    def to_json(self, offset: int = 0, limit: int = VERTICES_SHOWN) -> dict[str, Any]:
        """The answer, describing the vertices from `offset` (in topological order) on, at
        most `limit` of them, and the problems that matter there (`shown_problems`)."""
        page = self.vertices[offset : offset + limit]
        return {
            "scope": self.rescale.scope,
            "vertex": None if self.rescale.vertex is None else to_hex(self.rescale.vertex),
            "parallelism": self.rescale.parallelism,
            "defaultParallelism": self.default_parallelism.to_json(),
            "ok": self.ok,
            "restores": self.restores,
            "slots": self.slots.to_json(),
            "subtasks": self.subtasks.to_json(),
            "page": {"offset": offset, "limit": limit, "total": len(self.vertices)},
            "vertices": [vertex.to_json() for vertex in page],
            "problems": [
                problem.to_json()
                for problem in shown_problems(self.problems, {vertex.id for vertex in page})
            ],
            "problemCounts": {
                severity: sum(1 for problem in self.problems if problem.severity == severity)
                for severity in PROBLEM_SEVERITIES
            },
            "pin": None if self.pin is None else self.pin.to_json(),
        }


def shown_problems(
    problems: tuple[RescaleProblem, ...], page: set[Hash128]
) -> tuple[RescaleProblem, ...]:
    """At most `PROBLEMS_SHOWN` of `problems`: the whole job's, then those of the vertices
    on the page, by severity, then the errors of other vertices (what makes the verdict
    "does not restore" wherever the user is)."""
    rank = {severity: order for order, severity in enumerate(PROBLEM_SEVERITIES)}

    def here(problem: RescaleProblem) -> bool:
        return problem.vertex is None or problem.vertex in page

    nearby = sorted(
        (p for p in problems if here(p)), key=lambda p: (p.vertex is not None, rank[p.severity])
    )
    elsewhere = [p for p in problems if not here(p) and p.severity == "error"]
    return tuple([*nearby, *elsewhere][:PROBLEMS_SHOWN])


# Key groups ---------------------------------------------------------------------------------


def key_group_ranges(
    max_parallelism: int, parallelism: int, limit: int | None = None
) -> tuple[KeyGroups, ...]:
    """The key groups of every subtask (or of the first `limit`), as
    `KeyGroupRangeAssignment` assigns them."""
    count = parallelism if limit is None else min(parallelism, limit)
    return tuple(
        KeyGroups(*key_group_range(max_parallelism, parallelism, index)) for index in range(count)
    )


def redistribute(
    max_parallelism: int, old: int, new: int, limit: int | None = None
) -> tuple[NewSubtask, ...]:
    """What each of `new` subtasks (or of the first `limit`) restores from `old` ones, over
    `max_parallelism` key groups (`new` <= `max_parallelism`), listing at most
    `READS_SHOWN` reads each when `limit` is given: O(subtasks described)."""
    count = new if limit is None else min(new, limit)
    result: list[NewSubtask] = []
    for index in range(count):
        mine = KeyGroups(*key_group_range(max_parallelism, new, index))
        first = mine.start * old // max_parallelism
        last = mine.end * old // max_parallelism
        listed = last if limit is None else min(last, first + READS_SHOWN - 1)
        reads = tuple(
            Read(i, _overlap(mine, KeyGroups(*key_group_range(max_parallelism, old, i))))
            for i in range(first, listed + 1)
        )
        kept = 0
        if first <= index <= last:
            kept = _overlap(mine, KeyGroups(*key_group_range(max_parallelism, old, index))).size
        result.append(NewSubtask(index, mine, reads, last - first + 1, kept))
    return tuple(result)


def _overlap(a: KeyGroups, b: KeyGroups) -> KeyGroups:
    return KeyGroups(max(a.start, b.start), min(a.end, b.end))


@lru_cache(maxsize=256)
def rescale_totals(max_parallelism: int, old: int, new: int) -> Totals:
    """The key groups that move and the least and most share a new subtask keeps, over all
    `new` subtasks, without listing them: O(min(old, new)) integers at worst.

    Only new subtask j can keep key groups, from old subtask j. Both ranges start at
    ceil(j * max / p); the later start passes the earlier end once j >= old / (new - old)
    (growing; shrinking swaps them), after which no subtask keeps anything.
    """
    if old == new:
        return Totals(0, 1.0, 1.0)
    shared = min(old, new)
    overlapping = min(shared, -(-min(old, new) // abs(new - old)))
    kept_total = 0
    least, most = 1.0, 0.0
    m = max_parallelism
    for index in range(overlapping):  # `key_group_range` inlined: up to 32768 turns
        start_new, end_new = (index * m + new - 1) // new, ((index + 1) * m - 1) // new
        start_old, end_old = (index * m + old - 1) // old, ((index + 1) * m - 1) // old
        kept = max(0, min(end_new, end_old) - max(start_new, start_old) + 1)
        kept_total += kept
        fraction = kept / (end_new - start_new + 1)
        least, most = min(least, fraction), max(most, fraction)
    if overlapping < new:  # the others keep nothing
        least = 0.0
    return Totals(max_parallelism - kept_total, least, most)


# The rescale as edits -----------------------------------------------------------------------


def _vertex(compilation: Compilation, vertex_id: Hash128) -> ExecutionJobVertex | None:
    assert compilation.execution is not None
    return next((v for v in compilation.execution.vertices if v.id == vertex_id), None)


def _operators(vertex: ExecutionJobVertex) -> tuple[NodeId, ...]:
    job_vertex = vertex.job_vertex
    return job_vertex.chained_sources + job_vertex.nodes


def _compiled(document: dict[str, Any]) -> Compilation:
    compilation = compile_document(document)
    if not compilation.ok or compilation.execution is None:
        errors = tuple(d for d in compilation.diagnostics if d.severity is Severity.ERROR)
        first = f": {errors[0].location.describe()}: {errors[0].message}" if errors else ""
        raise RescaleRefused(
            "document", f"the document does not compile{first}; it has no plan to rescale", errors
        )
    return compilation


def rescale_edits(
    document: dict[str, Any], compilation: Compilation, rescale: Rescale
) -> tuple[Edit, ...]:
    """The edits that make `document` (compiled as `compilation`) the rescaled one."""
    if not 1 <= rescale.parallelism <= UPPER_BOUND_MAX_PARALLELISM:
        raise RescaleRefused(
            "parallelism",
            f"parallelism must be between 1 and {UPPER_BOUND_MAX_PARALLELISM}, "
            f"found: {rescale.parallelism}",
        )
    if rescale.vertex is None:
        return (
            Edit(
                kind="set_field",
                element="config",
                field="defaultParallelism",
                value=rescale.parallelism,
            ),
        )
    vertex = _vertex(compilation, rescale.vertex)
    if vertex is None:
        raise RescaleRefused("vertex", f"there is no JobVertex {to_hex(rescale.vertex)}")
    return tuple(
        Edit(
            kind="set_field",
            element="node",
            node_id=node,
            field="parallelism",
            value=rescale.parallelism,
        )
        for node in _operators(vertex)
    )


def apply_edits(document: dict[str, Any], edits: tuple[Edit, ...]) -> dict[str, Any]:
    for edit in edits:
        document, _ = apply_edit(document, edit)
    return document


def rescaled_document(document: dict[str, Any], rescale: Rescale) -> dict[str, Any]:
    """`document` rescaled (it must compile): what Flink would be given."""
    return apply_edits(document, rescale_edits(document, _compiled(document), rescale))


def _own_parallelism(document: dict[str, Any]) -> dict[NodeId, int]:
    """Each node's own `parallelism` (-1: the job's default), by node id."""
    return {
        NodeId(node["id"]): int(node.get("parallelism", PARALLELISM_DEFAULT))
        for node in document["nodes"]
    }


def _default_parallelism(document: dict[str, Any]) -> int:
    config = document.get("config")
    return int(config.get("defaultParallelism", 1)) if isinstance(config, dict) else 1


def pin_edits(
    vertices: tuple[VertexRescale, ...], document: dict[str, Any], *, whole_job: bool
) -> Pin | None:
    """Set the max parallelism each of `vertices` that derives it has now: its state keeps
    its key groups, and the vertex may grow to that many subtasks.

    For every vertex of the job (`whole_job`) when they all derive the same value and the
    job sets none, the job's `config.maxParallelism` (what `env.setMaxParallelism` sets; it
    reaches exactly the operators that set none); otherwise each of their operators'
    `maxParallelism`.
    """
    derived = [v for v in vertices if not v.max_parallelism.explicit]
    if not derived:
        return None
    values = sorted({v.max_parallelism.key_groups for v in derived})
    config = document.get("config")
    job_unset = not isinstance(config, dict) or config.get("maxParallelism", -1) == -1
    if whole_job and len(values) == 1 and job_unset:
        return Pin(
            (Edit(kind="set_field", element="config", field="maxParallelism", value=values[0]),),
            f"Set the job's max parallelism to {values[0]}, the key groups its state has now.",
        )
    edits = tuple(
        Edit(
            kind="set_field",
            element="node",
            node_id=node,
            field="maxParallelism",
            value=vertex.max_parallelism.key_groups,
        )
        for vertex in derived
        for node in vertex.nodes
    )
    names = ", ".join(
        f"{v.name} to {v.max_parallelism.key_groups}" for v in derived[:PIN_NAMES_SHOWN]
    )
    if len(derived) > PIN_NAMES_SHOWN:
        names += f" and of {len(derived) - PIN_NAMES_SHOWN} more vertices to theirs"
    return Pin(edits, f"Set the max parallelism of {names}: the key groups its state has now.")


# The simulation -----------------------------------------------------------------------------


def simulate_rescale(
    document: dict[str, Any], rescale: Rescale, *, before: Compilation | None = None
) -> RescaleSimulation:
    """Rescale `document` (compiled as `before`, if already) and say what that does."""
    old = before if before is not None and before.ok else _compiled(document)
    edits = rescale_edits(document, old, rescale)
    rescaled = apply_edits(document, edits)
    new = compile_document(rescaled)
    assert old.execution is not None and old.job_graph is not None and old.graph is not None
    chosen = (
        old.execution.vertices
        if rescale.vertex is None
        else tuple(v for v in old.execution.vertices if v.id == rescale.vertex)
    )
    keyed_nodes = {e.target for e in old.graph.edges if e.partitioner is Partitioner.HASH}
    after_vertex_of = _after_vertices(new)
    check = check_restore(predicted_savepoint(old), new, previous=old) if new.ok else None
    refused = _refused_vertices(old, new, check)
    own_before, own_after = _own_parallelism(document), _own_parallelism(rescaled)
    default_after = _default_parallelism(rescaled)
    vertices = tuple(
        _vertex_rescale(
            vertex,
            follows_default=own_before[vertex.job_vertex.head] == PARALLELISM_DEFAULT,
            parallelism_after=(
                default_after
                if own_after[vertex.job_vertex.head] == PARALLELISM_DEFAULT
                else own_after[vertex.job_vertex.head]
            ),
            keyed_nodes=keyed_nodes,
            after_vertex_of=after_vertex_of,
            restores=vertex.id not in refused,
        )
        for vertex in chosen
    )
    problems = _problems(vertices, new, check, after_vertex_of)
    pin = pin_edits(vertices, document, whole_job=rescale.vertex is None)
    return RescaleSimulation(
        rescale=rescale,
        default_parallelism=BeforeAfter(
            old.graph.config.default_parallelism,
            rescale.parallelism if rescale.vertex is None else old.graph.config.default_parallelism,
        ),
        ok=new.ok,
        slots=BeforeAfter(
            old.job_graph.slots_required,
            new.job_graph.slots_required if new.ok and new.job_graph is not None else None,
        ),
        subtasks=BeforeAfter(
            old.execution.total_subtasks,
            new.execution.total_subtasks if new.ok and new.execution is not None else None,
        ),
        vertices=vertices,
        problems=problems,
        pin=pin,
        document=rescaled,
        compilation=new,
    )


def _after_vertices(new: Compilation) -> dict[NodeId, tuple[VertexRef, frozenset[NodeId]]]:
    """Per node, the vertex it runs in after the rescale and all operators of that vertex."""
    if not new.ok or new.execution is None:
        return {}
    found: dict[NodeId, tuple[VertexRef, frozenset[NodeId]]] = {}
    for vertex in new.execution.vertices:
        operators = _operators(vertex)
        entry = (VertexRef(vertex.id, vertex.job_vertex.name), frozenset(operators))
        for node in operators:
            found[node] = entry
    return found


def _vertex_rescale(
    vertex: ExecutionJobVertex,
    *,
    follows_default: bool,
    parallelism_after: int,
    keyed_nodes: set[NodeId],
    after_vertex_of: dict[NodeId, tuple[VertexRef, frozenset[NodeId]]],
    restores: bool,
) -> VertexRescale:
    nodes = tuple(sorted(_operators(vertex)))
    head = vertex.job_vertex.head
    old, new = vertex.parallelism, parallelism_after
    key_groups = vertex.max_parallelism
    explicit = not vertex.max_parallelism_derived
    after_refs: dict[Hash128, VertexRef] = {}
    for node in nodes:
        if node in after_vertex_of:
            ref = after_vertex_of[node][0]
            after_refs.setdefault(ref.id, ref)
    return VertexRescale(
        id=vertex.id,
        name=vertex.job_vertex.name,
        head=head,
        nodes=nodes,
        keyed=any(node in keyed_nodes for node in nodes),
        follows_default=follows_default,
        parallelism_before=old,
        parallelism_after=new,
        max_parallelism=MaxParallelism(
            key_groups=key_groups,
            explicit=explicit,
            derived_after=None if explicit else compute_default_max_parallelism(new),
            after=key_groups if restores else None,
        ),
        after_vertices=tuple(after_refs.values()),
        restores=restores,
    )


def _refused_vertices(
    old: Compilation, new: Compilation, check: RestoreCheck | None
) -> set[Hash128]:
    """The vertices of `old` whose state the rescaled job cannot take because of its max
    parallelism: the restore check's refusals, or without one (the rescaled job does not
    compile), those whose operators now run above the max parallelism they set."""
    assert old.execution is not None
    vertex_of = {
        to_hex(operator): vertex.id
        for vertex in old.execution.vertices
        for operator, _ in vertex.job_vertex.operator_ids
    }
    if check is not None:
        return {
            vertex_of[row.operator_id]
            for row in check.operators
            if row.outcome in ("max-parallelism", "parallelism-above-max")
        }
    above = {
        NodeId(d.location.node)
        for d in new.diagnostics
        if d.code in _ABOVE_MAX_CODES and d.location.node is not None
    }
    return {vertex.id for vertex in old.execution.vertices if above & set(vertex.job_vertex.nodes)}


def _problems(
    vertices: tuple[VertexRescale, ...],
    new: Compilation,
    check: RestoreCheck | None,
    after_vertex_of: dict[NodeId, tuple[VertexRef, frozenset[NodeId]]],
) -> tuple[RescaleProblem, ...]:
    problems: list[RescaleProblem] = [
        RescaleProblem(
            "not-compiled",
            "error",
            f"At the new parallelism the job does not compile: "
            f"{d.location.describe()}: {d.message}",
            node=None if d.location.node is None else NodeId(d.location.node),
        )
        for d in new.diagnostics
        if d.severity is Severity.ERROR and d.code not in _ABOVE_MAX_CODES
    ]
    for vertex in vertices:
        problems.extend(_vertex_problems(vertex, after_vertex_of))
    if check is not None:
        vertex_of = {node: v.id for v in vertices for node in v.nodes}
        for risk in restore_risks(check):
            if risk.node is None:
                continue
            for reason in risk.reasons:
                if reason.code == "state-lost":
                    problems.append(
                        RescaleProblem(
                            "state-lost",
                            "error",
                            f"{risk.name} (node {risk.node}): {reason.message}",
                            vertex=vertex_of.get(NodeId(risk.node)),
                            node=NodeId(risk.node),
                        )
                    )
    return tuple(problems)


def _vertex_problems(
    vertex: VertexRescale,
    after_vertex_of: dict[NodeId, tuple[VertexRef, frozenset[NodeId]]],
) -> list[RescaleProblem]:
    found: list[RescaleProblem] = []
    name, key_groups = vertex.name, vertex.max_parallelism.key_groups
    old, new = vertex.parallelism_before, vertex.parallelism_after
    state = "keyed state" if vertex.keyed else "state"

    def problem(code: ProblemCode, severity: ProblemSeverity, message: str) -> None:
        found.append(RescaleProblem(code, severity, message, vertex.id, vertex.head))

    if not vertex.restores:
        if vertex.max_parallelism.explicit:
            problem(
                "above-max-parallelism",
                "error",
                f"{name} sets its max parallelism to {key_groups}: Flink cannot run it with "
                f"{new} subtasks, and its {state}, kept in {key_groups} key groups, cannot "
                f"be spread over more than {key_groups}. Stay at {key_groups} or below.",
            )
        else:
            problem(
                "above-max-parallelism",
                "error",
                f"{name}'s {state} was saved with the {key_groups} key groups Flink derived "
                f"from its parallelism {old}: Flink refuses to restore it at parallelism "
                f"{new}, which is more than {key_groups}. Stay at {key_groups} or below, or "
                "start without this state.",
            )
    if not vertex.max_parallelism.explicit:
        if vertex.keyed:
            message = (
                f"This job never set a max parallelism, so the keyed state of {name} is "
                f"written with {key_groups} key groups; it can never run wider than "
                f"{key_groups} without losing keyed state: set maxParallelism explicitly "
                "before the first deploy."
            )
        else:
            message = (
                f"This job never set a max parallelism, so the state of {name} is saved "
                f"with max parallelism {key_groups}; Flink restores it at no more than "
                f"{key_groups} subtasks: set maxParallelism explicitly before the first "
                "deploy."
            )
        problem("derived-max-parallelism", "warning", message)
        derived = vertex.max_parallelism.derived_after
        if vertex.restores and derived is not None and derived != key_groups:
            problem(
                "derived-max-parallelism-differs",
                "info",
                f"At parallelism {new} Flink would derive {derived} key groups for {name}; "
                f"restored from a savepoint it keeps the {key_groups} its state has (started "
                f"without state, it would have {derived}).",
            )
    after = {after_vertex_of[node] for node in vertex.nodes if node in after_vertex_of}
    if after and (len(after) > 1 or next(iter(after))[1] != frozenset(vertex.nodes)):
        names = ", ".join(sorted(ref.name for ref, _ in after))
        problem(
            "chaining-changed",
            "warning",
            f"At the new parallelism the operators of {name} chain differently: they run "
            f"in {names}.",
        )
    return found
