"""The working copy of an open pipeline, kept parsed and compiled, and edited in place.

A `LiveModel` is one revision of a working copy: the document, what the compiler made of
it, and its live plan with the run problems and state warnings per node and per edge
(`pipelines.documents`). `apply` gives the next revision's model, recomputing only what
the edit can change, so that the cost of an edit follows what it changes, not the size of
the pipeline:

* a move, or an edit of `ui` or `meta`: nothing (the plan is the same object);
* a node's `params` or operator kind: that node's run problems and state warning and those
  of the edges that touch it;
* a node's name, when the compiler reported nothing (its messages quote names) and all
  the node's edges chain (a data set's id hashes the names of its edge's ends): the name
  of the one vertex the node runs in, and the node's state warning;
* another field of a node, in a document read without diagnostics: that node is read
  again (`compiler.document.reread_node`); if it reads as it was (a field set to its
  default), only its run checks run again; else the passes after reading run over the graph,
  and only the plan entries whose inputs changed are computed again
  (`compiler.liveplan.live_plan_after`); an edit that breaks a chain still changes the
  OperatorID of every operator downstream, whose entries keep their old ids in `draft`
  (`lagging`) until the whole plan is read: the delta says by which XOR they moved;
* anything else: the whole document is compiled again.

Every model is immutable once built (the next one shares what did not change with it),
so one can stay cached per revision. `tests/backend/test_livemodel.py` checks, for random
documents and edits, that the plan kept this way equals a full compile's after every edit.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Any

from compiler.chaining import ChainPlan, chain_name
from compiler.diagnostics import structural_errors
from compiler.document import reread_node
from compiler.edits import Edit, apply_edit
from compiler.hashing import to_hex
from compiler.liveplan import (
    PlanBasis,
    Touched,
    live_plan_after,
    live_plan_with_basis,
    plan_delta,
    with_current_ids,
)
from compiler.model import NodeId, StreamGraph
from compiler.pipeline import PIPELINE, Compilation, compile_document, recompile_node
from compiler.state.kinds import unpinned_state_warnings
from pipelines.documents import RUN_STAGE, STATE_STAGE
from runtime.runnability import (
    Neighbourhood,
    element_runnability,
    runnability,
    runnability_by_element,
)

Json = dict[str, Any]


class EditUnreadable(ValueError):
    """The edit would leave a document the compiler cannot read as a graph."""

    def __init__(self, diagnostics: list[Json]) -> None:
        super().__init__(diagnostics[0]["message"])
        self.diagnostics = diagnostics


@dataclass(frozen=True, slots=True)
class _Elements:
    """The run problems per node (by id) and per edge (by index), and the state warning
    per node, as JSON diagnostics with their `stage`; only for documents whose node ids
    are distinct integers (others are checked whole, every time)."""

    node_runs: dict[int, list[Json]]
    edge_runs: list[list[Json]]
    node_states: dict[int, list[Json]]
    positions: dict[int, int]
    """Each node's place in the document's node list, by id."""

    def node(self, document: Json, node_id: int) -> Json | None:
        """The document's entry of the node with this id."""
        position = self.positions.get(node_id)
        return None if position is None else document["nodes"][position]


@dataclass(frozen=True, slots=True)
class LiveModel:
    document: Json
    draft: Json
    """`plan`, but for the ids of the `lagging` nodes' entries."""
    compiled: list[Json]
    """The compiler's own diagnostics."""
    compilation: Compilation
    """What the compiler made of the document (never changed once the model is built).
    After a rename taken the short way (`_renamed`) its graph and chains carry the new
    name, its JobGraph and ExecutionGraph still the old vertex name: read vertex names
    from `plan`."""
    elements: _Elements | None
    read_clean: bool
    """Whether reading the document (the compiler's first pass) said nothing."""
    basis: PlanBasis | None
    """What the plan's node and edge entries were computed from."""
    derived: tuple[Json, Touched] | None = None
    """The draft this model's draft was computed after, and which of its entries that
    could change (`live_plan_after`): what `delta_from` compares."""
    lagging: frozenset[NodeId] = frozenset()
    """Nodes whose entries in `draft` still hold the ids of an earlier revision: after an
    edit that breaks a chain, those downstream of it (`live_plan_after`). Their ids are
    written when the whole plan is read, not at every edit."""
    _current: list[Json] = field(default_factory=list, init=False, repr=False, compare=False)
    """`plan`, once read."""

    @property
    def plan(self) -> Json:
        """`liveplan/v1` with the run problems and state warnings after the compiler's."""
        if not self.lagging:
            return self.draft
        if not self._current:
            self._current.append(self._with_current_ids(self.draft, self.lagging))
        return self._current[0]

    def _with_current_ids(self, plan: Json, nodes: Collection[NodeId]) -> Json:
        """`plan` with these nodes' entries given this model's ids."""
        assert self.basis is not None  # nodes lag only behind a plan made after a basis
        return with_current_ids(plan, nodes, self.basis.hashes, self.basis.vertex_of_node)

    @staticmethod
    def build(document: Json) -> LiveModel:
        """The model of a document, compiled whole."""
        compilation = Compilation()
        read_clean = PIPELINE[0].run(document, compilation) and not compilation.diagnostics
        if compilation.graph is not None:
            _later_passes(document, compilation)
        return LiveModel._compiled(document, compilation, read_clean)

    @staticmethod
    def _compiled(
        document: Json,
        compilation: Compilation,
        read_clean: bool,
        elements: _Elements | None = None,
    ) -> LiveModel:
        """The model of a document and its compilation; `elements` when known."""
        plan, basis = live_plan_with_basis(compilation)
        return LiveModel._planned(document, compilation, read_clean, plan, basis, elements)

    def _recompiled(
        self, document: Json, compilation: Compilation, elements: _Elements | None, same: bool
    ) -> LiveModel:
        """The next model after a compilation of the same edges: the plan's entries that
        did not change are this model's, and so are its diagnostics when `same` (the run
        problems and state warnings are) and the compiler said the same."""
        plan, basis, touched, lagging = live_plan_after(
            self.draft, self.basis, compilation, self.lagging
        )
        derived = None if touched is None else (self.draft, touched)
        if same and plan["diagnostics"] == self.compiled:
            return LiveModel(
                document=document,
                draft={**plan, "diagnostics": self.draft["diagnostics"]},
                compiled=self.compiled,
                compilation=compilation,
                elements=elements,
                read_clean=True,
                basis=basis,
                derived=derived,
                lagging=lagging,
            )
        model = LiveModel._planned(document, compilation, True, plan, basis, elements)
        return replace(model, derived=derived, lagging=lagging)

    @staticmethod
    def _planned(
        document: Json,
        compilation: Compilation,
        read_clean: bool,
        plan: Json,
        basis: PlanBasis | None,
        elements: _Elements | None,
    ) -> LiveModel:
        compiled = plan["diagnostics"]
        if elements is None:
            elements = _elements(document)
        return LiveModel(
            document=document,
            draft={**plan, "diagnostics": _diagnostics(document, compiled, elements)},
            compiled=compiled,
            compilation=compilation,
            elements=elements,
            read_clean=read_clean,
            basis=basis,
        )

    def delta_from(self, previous: LiveModel) -> Json:
        """`plan_delta(previous.plan, self.plan)`; when this model was made from `previous`,
        comparing only the entries its edit could change."""
        if self.derived is None or self.derived[0] is not previous.draft:
            if self._same_ids(previous):  # a move, a rename, a parameter: compare drafts
                return plan_delta(previous.draft, self.draft)
            return plan_delta(previous.plan, self.plan)
        touched = self.derived[1]
        # Only the entries made again are compared (the shifted ones are known): those
        # of `previous` need their current ids, this model's have them.
        before = previous.draft
        remade = [NodeId(int(k)) for k in touched.keys.get("nodes", ())]
        if lagging := previous.lagging.intersection(remade):
            before = previous._with_current_ids(before, lagging)
        return plan_delta(before, self.draft, touched)

    def _same_ids(self, other: LiveModel) -> bool:
        """Whether this model's `nodes` entries are `other`'s, lagging ids and all, and
        their current ids too: then the drafts differ where the plans do."""
        return (
            self.draft["nodes"] is other.draft["nodes"]
            and self.lagging is other.lagging
            and self.basis is not None
            and other.basis is not None
            and self.basis.hashes is other.basis.hashes
            and self.basis.vertex_of_node is other.basis.vertex_of_node
        )

    @property
    def graph(self) -> StreamGraph | None:
        return self.compilation.graph

    @property
    def chains(self) -> ChainPlan | None:
        return self.compilation.chains

    def apply(self, edit: Edit) -> tuple[LiveModel, Edit]:
        """The model after `edit`, and the edit as applied. Raises `EditRejected` for an
        edit that does not apply and `EditUnreadable` for one that would leave the
        document unreadable as a graph."""
        positions = None if self.elements is None else self.elements.positions
        document, applied = apply_edit(self.document, edit, positions)
        if not edit.affects_plan:
            node_id = _parameters_of(edit)
            if node_id is None:  # moves, `ui`, `meta`: nothing any check reads
                return replace(self, document=document, derived=None), applied
            if self.elements is not None:
                return self._with_elements(document, {node_id}), applied
        renamed = self._renamed(document, edit)
        if renamed is not None:
            return renamed, applied
        compilation = self._node_reread(document, edit)
        if compilation is self.compilation:
            return self._with_elements(document, {_required(edit.node_id)}), applied
        if compilation is None:
            compilation = compile_document(document)
            model = None
        else:
            # The run checks read the document only around the edited node.
            assert self.elements is not None and edit.node_id is not None
            elements, same = _updated_elements(
                self.elements, document, {edit.node_id}, compilation.graph
            )
            model = self._recompiled(document, compilation, elements, same)
        blocking = structural_errors(compilation.diagnostics)
        if blocking:
            raise EditUnreadable([d.to_json() for d in blocking])
        if model is None:
            model = LiveModel._compiled(document, compilation, False)
        return model, applied

    def _node_reread(self, document: Json, edit: Edit) -> Compilation | None:
        """After an edit of one field of a node in a document read cleanly: the passes
        after reading over the graph with that node read again (`reread_node`), skipping
        reading the whole document. None when that does not apply."""
        graph = self.graph
        if (
            edit.kind != "set_field"
            or edit.element != "node"
            or edit.node_id is None
            or not self.read_clean
            or self.elements is None
            or graph is None
        ):
            return None
        before = self.elements.node(self.document, edit.node_id)
        after = self.elements.node(document, edit.node_id)
        if before is None or after is None:
            return None
        reread = reread_node(graph, before, after)
        if reread is None:
            return None
        if reread is graph:  # the node reads as it was: nothing compiled changes
            return self.compilation
        return recompile_node(self.compilation, reread, NodeId(edit.node_id))

    def _with_elements(self, document: Json, node_ids: set[int]) -> LiveModel:
        """The model with the run problems and state warnings of these nodes (and of their
        edges) checked again; the compiled plan stays."""
        assert self.elements is not None
        elements, same = _updated_elements(
            self.elements, document, node_ids, self.graph if self.read_clean else None
        )
        if elements is None:
            return LiveModel.build(document)
        if same:
            diagnostics = self.draft["diagnostics"]
        else:
            diagnostics = _diagnostics(document, self.compiled, elements)
        return replace(
            self,
            document=document,
            draft={**self.draft, "diagnostics": diagnostics},
            elements=elements,
            derived=None,
        )

    def _renamed(self, document: Json, edit: Edit) -> LiveModel | None:
        """After a rename: only the name of the vertex the node runs in changes, when
        nothing the compiler reported quotes the old one. None when that does not hold."""
        graph, chains = self.graph, self.chains
        if (
            edit.kind != "set_field"
            or edit.element != "node"
            or edit.field != "name"
            or not isinstance(edit.value, str)
            or not edit.value
            or edit.node_id is None
            or self.compiled
            or self.elements is None
            or self.basis is None
            or graph is None
            or chains is None
            or NodeId(edit.node_id) not in chains.head_of
        ):
            return None
        node_id = NodeId(edit.node_id)
        # A data set's id hashes the names of its edge's ends (`compiler.ids`): only a node
        # whose edges all chain is renamed without them.
        touching = (*graph.in_edges[node_id], *graph.out_edges[node_id])
        chainable = self.compilation.chainable
        if not graph.config.chaining_enabled or not all(chainable[e.index] for e in touching):
            return None
        nodes = dict(graph.nodes)
        nodes[node_id] = replace(nodes[node_id], name=edit.value)
        graph = replace(graph, nodes=nodes)
        head = chains.head_of[node_id]
        chain = next(c for c in chains.chains if c.head == head)
        if node_id not in chain.nodes:  # a chained source
            return None
        name = chain_name(graph, chainable, chain)
        vertex = to_hex(self.basis.vertex_of_node[head])
        vertices = dict(self.draft["vertices"])
        vertices[vertex] = {**vertices[vertex], "name": name}
        renamed = tuple(replace(c, name=name) if c is chain else c for c in chains.chains)
        compilation = replace(self.compilation, graph=graph, chains=replace(chains, chains=renamed))
        # Names reach no node or edge entry of the plan: its basis may take the new graph.
        basis = None if self.basis is None else replace(self.basis, graph=graph)
        model = replace(
            self,
            compilation=compilation,
            basis=basis,
            draft={**self.draft, "vertices": vertices},
            derived=None,
        )
        return model._with_elements(document, {node_id})


def _updated_elements(
    elements: _Elements, document: Json, node_ids: set[int], graph: StreamGraph | None
) -> tuple[_Elements | None, bool]:
    """`elements` with the run problems and state warnings of these nodes (and of their
    edges) checked again in `document` (None when the checks cannot read it), and whether
    they came out as they were. With the `graph` read from `document`'s edges, the checks
    read only the edges it says touch these nodes, not every edge."""
    near = None
    if graph is not None and all(NodeId(n) in graph.nodes for n in node_ids):
        touching = {
            e.index
            for n in node_ids
            for e in (*graph.in_edges[NodeId(n)], *graph.out_edges[NodeId(n)])
        }
        near = Neighbourhood(node=lambda i: elements.node(document, i), edges=touching)
    try:
        found = element_runnability(document, node_ids, near)
    except Exception:  # unreadable: the whole check says so
        return None, False
    # What differs, then copies of the tables only for that: they have an entry per node.
    node_runs = {
        node_id: runs
        for node_id, problems in found.nodes.items()
        if (runs := [_staged(d.to_json(), RUN_STAGE) for d in problems])
        != elements.node_runs.get(node_id)
    }
    edge_runs = {
        index: runs
        for index, problems in found.edges.items()
        if (runs := [_staged(d.to_json(), RUN_STAGE) for d in problems])
        != elements.edge_runs[index]
    }
    node_states = {}
    for node_id in node_ids:
        node = elements.node(document, node_id)
        if node is not None:
            warnings = _state_warnings(node)
            if warnings != elements.node_states.get(node_id):
                node_states[node_id] = warnings
    if not (node_runs or edge_runs or node_states):
        return elements, True
    every_edge_run = list(elements.edge_runs)
    for index, runs in edge_runs.items():
        every_edge_run[index] = runs
    updated = _Elements(
        node_runs={**elements.node_runs, **node_runs} if node_runs else elements.node_runs,
        edge_runs=every_edge_run,
        node_states=(
            {**elements.node_states, **node_states} if node_states else elements.node_states
        ),
        positions=elements.positions,
    )
    return updated, False


def _later_passes(document: Json, compilation: Compilation) -> None:
    """The compiler's passes after reading, as `compile_document` runs them."""
    for step in PIPELINE[1:]:
        if not step.run(document, compilation):
            break


def _required(node_id: int | None) -> int:
    assert node_id is not None  # an edit of a node's field names it
    return node_id


def _parameters_of(edit: Edit) -> int | None:
    """The node whose parameters or operator kind the edit changes; None for an edit of
    what no check reads (a move, `ui`, `meta`)."""
    if edit.kind == "set_operator":
        return edit.node_id
    field = edit.field if edit.kind == "set_field" and edit.element == "node" else None
    if field is not None and (field.startswith("params.") or field == "operator"):
        return edit.node_id
    return None


def _staged(diagnostic: Json, stage: str) -> Json:
    return {**diagnostic, "stage": stage}


def _state_warnings(node: Json) -> list[Json]:
    return [_staged(d.to_json(), STATE_STAGE) for d in unpinned_state_warnings({"nodes": [node]})]


def _elements(document: Json) -> _Elements | None:
    nodes = document.get("nodes")
    if not isinstance(nodes, list):
        return None
    ids = [n.get("id") if isinstance(n, dict) else None for n in nodes]
    if any(type(i) is not int for i in ids) or len(set(ids)) != len(ids):
        return None
    split = runnability_by_element(document)
    if split is None:
        return None
    node_runs, edge_runs = split
    return _Elements(
        node_runs={i: [_staged(d.to_json(), RUN_STAGE) for d in p] for i, p in node_runs.items()},
        edge_runs=[[_staged(d.to_json(), RUN_STAGE) for d in p] for p in edge_runs],
        node_states={n["id"]: _state_warnings(n) for n in nodes},
        positions={n["id"]: position for position, n in enumerate(nodes)},
    )


def _diagnostics(document: Json, compiled: list[Json], elements: _Elements | None) -> list[Json]:
    """The compiler's diagnostics, then the run problems (nodes in document order, then
    edges), then the state warnings (nodes in document order)."""
    if elements is None:
        runs = [_staged(d.to_json(), RUN_STAGE) for d in runnability(document)]
        states = [_staged(d.to_json(), STATE_STAGE) for d in unpinned_state_warnings(document)]
        return compiled + runs + states
    result = list(compiled)
    node_ids = [n["id"] for n in document["nodes"]]
    for node_id in node_ids:
        result.extend(elements.node_runs[node_id])
    for problems in elements.edge_runs:
        result.extend(problems)
    for node_id in node_ids:
        result.extend(elements.node_states[node_id])
    return result
