"""The plan as the live canvas needs it, and the delta between two of them.

`live_plan` is a `liveplan/v1` document of keyed sections, so that after an edit
the server can send each client only what changed (`plan_delta`) instead of the
whole plan; `apply_plan_delta` is what a client does with it (the TypeScript
client mirrors it). Sections:

* `nodes`: per node id, its OperatorID, vertex, and what its hash depends on;
* `vertices`: per JobVertexID, name, head, operators, parallelism, slots, inputs;
* `edges`: per edge index, its partitioner (and whether the document chose it or Flink's
  default applies), whether it chains and why not;
* `summary` (with the vertices' topological order) and `diagnostics`: small,
  always replaced whole.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from compiler.chainability import head_factories
from compiler.explain import EdgeExplanation, HashExplanation, explain, explain_edge, explain_hash
from compiler.hashing import to_hex
from compiler.model import Hash128, NodeId, OperatorFactory, StreamGraph
from compiler.pipeline import Compilation, NodeChange

FORMAT = "liveplan/v1"
KEYED_SECTIONS = ("nodes", "vertices", "edges")

Shifts = Mapping[tuple[str, int], Collection[int]]
"""Entries of a section whose id field `field` differs by the XOR `by`: (field, by) -> the
keys, of a section whose keys are integers (`str(key)` is the key)."""


@dataclass(frozen=True, slots=True)
class Touched:
    """What `live_plan_after` knows of the plan it made after another: per keyed section,
    the keys of the entries that may differ (`keys`; the section has the same keys in
    both), and of those that differ only in id fields, each by a known XOR (`shifted`)."""

    keys: Mapping[str, Collection[str]]
    shifted: Mapping[str, Shifts]


def live_plan(compilation: Compilation) -> dict[str, Any]:
    """The live plan of a compilation; without a JobGraph, only diagnostics."""
    return live_plan_with_basis(compilation)[0]


@dataclass(frozen=True, slots=True)
class PlanBasis:
    """What the `nodes` and `edges` entries of a live plan were computed from, so that
    `live_plan_after` can tell which of them the next compilation changes."""

    graph: StreamGraph
    chainable: list[bool]
    hashes: dict[NodeId, Hash128]
    user_hashes: dict[NodeId, Hash128 | None]
    vertex_of_node: dict[NodeId, Hash128]
    factories: dict[NodeId, OperatorFactory]
    chained_sources: frozenset[NodeId]


def live_plan_with_basis(compilation: Compilation) -> tuple[dict[str, Any], PlanBasis | None]:
    """The live plan of a compilation and its basis (None without a JobGraph)."""
    diagnostics = [d.to_json() for d in compilation.diagnostics]
    graph, chains, job_graph = compilation.graph, compilation.chains, compilation.job_graph
    if graph is None or chains is None or job_graph is None:
        return {
            "format": FORMAT,
            "ok": False,
            "summary": None,
            "diagnostics": diagnostics,
            "nodes": {},
            "vertices": {},
            "edges": {},
        }, None
    explanation = explain(
        graph, compilation.chainable, chains, compilation.hashes, compilation.user_hashes
    )
    nodes = {str(n.node): _node_entry(n, job_graph.vertex_of_node) for n in explanation.nodes}
    edges = {str(e.edge): _edge_entry(e) for e in explanation.edges}
    basis = PlanBasis(
        graph=graph,
        chainable=compilation.chainable,
        hashes=compilation.hashes,
        user_hashes=compilation.user_hashes,
        vertex_of_node=job_graph.vertex_of_node,
        factories=head_factories(graph, compilation.chainable),
        chained_sources=frozenset(s for c in chains.chains for s in c.chained_sources),
    )
    return _plan(compilation, diagnostics, nodes, edges), basis


def live_plan_after(
    plan: dict[str, Any],
    basis: PlanBasis | None,
    compilation: Compilation,
    lagging: AbstractSet[NodeId] = frozenset(),
) -> tuple[dict[str, Any], PlanBasis | None, Touched | None, frozenset[NodeId]]:
    """`live_plan_with_basis(compilation)`, reusing the entries of `plan` (computed from
    `basis`) that the compilation leaves as they were: a changed chain recomputes the
    entries of the nodes whose hash, vertex or chained outputs changed and of the edges
    whose chainability, ends or chain head changed, not the thousands of others. Only for
    a compilation of the same edges (one node changed); the whole plan otherwise. Also
    the entries recomputed (for `plan_delta`), None when the plan was made whole.

    The nodes whose OperatorID and vertex alone changed (after a broken chain, every one
    downstream) keep their entries, ids and all: their new ids are in `Touched.shifted`
    and in the compilation, and `with_current_ids` writes them when the whole plan is
    read. Returned last, those lagging nodes: `lagging` (those of `plan`) and this edit's,
    but for the entries made again."""
    graph, chains, job_graph = compilation.graph, compilation.chains, compilation.job_graph
    if (
        basis is None
        or graph is None
        or chains is None
        or job_graph is None
        or graph.edges is not basis.graph.edges
        or graph.config is not basis.graph.config
    ):
        return (*live_plan_with_basis(compilation), None, frozenset())
    change = compilation.change
    if change is not None and change.previous_graph is basis.graph:
        dirty = _dirty_after_change(compilation, basis, change)
    else:
        if list(compilation.hashes) != list(basis.hashes) or set(graph.nodes) != set(
            basis.graph.nodes
        ):
            return (*live_plan_with_basis(compilation), None, frozenset())
        dirty = _dirty_by_comparison(compilation, basis)
    factories, chained_sources, dirty_nodes, dirty_edges, moved_only = dirty
    chainable = compilation.chainable
    position = compilation.positions()
    hashes, vertex_of_node = compilation.hashes, job_graph.vertex_of_node
    nodes = dict(plan["nodes"])
    # The nodes whose ids alone moved: often thousands, so this loop is kept lean (shifts
    # grouped by their XOR, entries left as they were).
    by_operator: dict[int, list[NodeId]] = {}
    by_vertex: dict[int, list[NodeId]] = {}
    # The last shift of each field and its keys: most nodes share one (a change upstream
    # XORs every hash after it by the same value), so it is looked up only when it differs.
    operator_keys: list[NodeId] = []
    vertex_keys: list[NodeId] = []
    operator_by, vertex_by = -1, -1
    old_hashes, old_vertices = basis.hashes, basis.vertex_of_node
    shifted_now: list[NodeId] = []
    for nid in moved_only:
        operator_id, vertex = hashes[nid], vertex_of_node[nid]
        old_operator, old_vertex = old_hashes[nid], old_vertices[nid]
        if operator_id == old_operator and vertex == old_vertex:
            continue  # in a chain built again, upstream of where it split: as it was
        shifted_now.append(nid)
        if operator_id != old_operator:
            if (by := operator_id ^ old_operator) != operator_by:
                operator_by, operator_keys = by, by_operator.setdefault(by, [])
            operator_keys.append(nid)
        if vertex != old_vertex:
            if (by := vertex ^ old_vertex) != vertex_by:
                vertex_by, vertex_keys = by, by_vertex.setdefault(by, [])
            vertex_keys.append(nid)
    # A shift no other node shares goes as a patch of that node's entry (`_xor_groups`),
    # which `plan_delta` reads: such nodes get their entries made with the new ids.
    alone = {
        keys[0] for groups in (by_operator, by_vertex) for keys in groups.values() if len(keys) == 1
    }
    if alone:
        by_operator, by_vertex = (
            {
                by: kept
                for by, keys in groups.items()
                if (kept := [n for n in keys if n not in alone])
            }
            for groups in (by_operator, by_vertex)
        )
    shifted = {
        **{("operatorId", by): keys for by, keys in by_operator.items()},
        **{("vertex", by): keys for by, keys in by_vertex.items()},
    }
    recomputed = dirty_nodes - moved_only
    for nid in recomputed:
        key = str(nid)
        hashed = explain_hash(graph, nid, chainable, hashes, compilation.user_hashes, position)
        nodes[key] = _node_entry(hashed, vertex_of_node)
    for nid in alone:
        key = str(nid)
        nodes[key] = _with_ids(nodes[key], hashes[nid], vertex_of_node[nid])
    remade = recomputed | alone
    still_lagging = frozenset(lagging).union(shifted_now).difference(remade)
    edges = dict(plan["edges"])
    for index in dirty_edges:
        edge = graph.edges[index]
        explained = explain_edge(graph, edge, chainable, factories, chained_sources)
        edges[str(index)] = _edge_entry(explained)
    diagnostics = [d.to_json() for d in compilation.diagnostics]
    basis = PlanBasis(
        graph=graph,
        chainable=chainable,
        hashes=compilation.hashes,
        user_hashes=compilation.user_hashes,
        vertex_of_node=job_graph.vertex_of_node,
        factories=factories,
        chained_sources=chained_sources,
    )
    touched = Touched(
        keys={"nodes": [str(n) for n in remade], "edges": [str(i) for i in dirty_edges]},
        shifted={"nodes": shifted},
    )
    return _plan(compilation, diagnostics, nodes, edges), basis, touched, still_lagging


def with_current_ids(
    plan: dict[str, Any],
    lagging: Collection[NodeId],
    hashes: Mapping[NodeId, int],
    vertex_of_node: Mapping[NodeId, int],
) -> dict[str, Any]:
    """`plan` whose `nodes` entries of the `lagging` nodes (`live_plan_after`) take their
    OperatorIDs from `hashes` and their vertices from `vertex_of_node`, those of the
    compilation the plan was made from."""
    if not lagging:
        return plan
    nodes = dict(plan["nodes"])
    for nid in lagging:
        key = str(nid)
        nodes[key] = _with_ids(nodes[key], hashes[nid], vertex_of_node[nid])
    return {**plan, "nodes": nodes}


def _with_ids(entry: dict[str, Any], operator_id: int, vertex: int) -> dict[str, Any]:
    """A `nodes` entry (`_node_entry`'s fields) with these ids."""
    return {
        "operatorId": operator_id.to_bytes(16, "big").hex(),  # as `to_hex`, inlined
        "userDefinedId": entry["userDefinedId"],
        "vertex": vertex.to_bytes(16, "big").hex(),
        "hashBasis": entry["hashBasis"],
    }


_Dirty = tuple[dict[NodeId, OperatorFactory], frozenset[NodeId], set[NodeId], set[int], set[NodeId]]
"""A compilation's head factories and chained sources, the nodes and edges whose plan
entries differ from the basis's, and those of the nodes whose entries differ only in their
OperatorID and JobVertexID."""


def _dirty_after_change(compilation: Compilation, basis: PlanBasis, change: NodeChange) -> _Dirty:
    """What changed since `basis`, read off what `recompile_node` changed (`change`) when
    it recompiled the compilation `basis` describes, not found by comparing every node."""
    graph, chains = compilation.graph, compilation.chains
    assert graph is not None and chains is not None
    # `recompile_node` leaves no chained source: each node's head factory is its chain
    # head's, which can differ only in the chains it built again.
    by_head = {chain.head: chain for chain in chains.chains}
    basis_changed = {change.node, *(e.source for e in change.flipped)}
    dirty_nodes = basis_changed | change.moved
    refactored: dict[NodeId, OperatorFactory] = {}
    for head in change.rebuilt:
        factory = graph.nodes[head].factory
        for nid in by_head[head].nodes:
            if basis.factories.get(nid) is not factory:
                refactored[nid] = factory
        dirty_nodes.update(by_head[head].nodes)  # their vertex
    factories = {**basis.factories, **refactored} if refactored else basis.factories
    for chain in chains.chains:
        if chain.head in change.moved:
            dirty_nodes.update(chain.nodes)  # their vertex
    dirty_edges: set[int] = {e.index for e in change.flipped}
    dirty_edges.update(e.index for e in graph.in_edges[change.node])
    dirty_edges.update(e.index for e in graph.out_edges[change.node])
    return factories, frozenset(), dirty_nodes, dirty_edges, dirty_nodes - basis_changed


def _dirty_by_comparison(compilation: Compilation, basis: PlanBasis) -> _Dirty:
    """What changed since `basis`, found by comparing the compilation with it whole."""
    graph, chains, job_graph = compilation.graph, compilation.chains, compilation.job_graph
    assert graph is not None and chains is not None and job_graph is not None
    chainable = compilation.chainable
    factories = head_factories(graph, chainable)
    chained_sources = frozenset(s for c in chains.chains for s in c.chained_sources)
    changed_nodes = {
        nid for nid, node in graph.nodes.items() if node is not basis.graph.nodes.get(nid)
    }
    dirty_nodes = set(changed_nodes)
    for table, before in (
        (compilation.hashes, basis.hashes),
        (compilation.user_hashes, basis.user_hashes),
        (job_graph.vertex_of_node, basis.vertex_of_node),
    ):
        if table != before:
            dirty_nodes.update(nid for nid, value in table.items() if before.get(nid) != value)
    dirty_edges: set[int] = set()
    if chainable != basis.chainable:
        for edge in graph.edges:
            if chainable[edge.index] != basis.chainable[edge.index]:
                dirty_edges.add(edge.index)
                dirty_nodes.add(edge.source)  # its chained outputs
    if factories != basis.factories:
        for nid, factory in factories.items():
            if basis.factories.get(nid) != factory:
                dirty_edges.update(e.index for e in graph.out_edges[nid])
    for nid in changed_nodes | (chained_sources ^ basis.chained_sources):
        dirty_edges.update(e.index for e in graph.out_edges[nid])
        dirty_edges.update(e.index for e in graph.in_edges[nid])
    return factories, chained_sources, dirty_nodes, dirty_edges, set()


def _node_entry(n: HashExplanation, vertex_of_node: dict[NodeId, Hash128]) -> dict[str, Any]:
    return {
        "operatorId": to_hex(n.hash),
        "userDefinedId": None if n.user_defined is None else to_hex(n.user_defined),
        "vertex": to_hex(vertex_of_node[n.node]),
        "hashBasis": n.summary,
    }


def _edge_entry(e: EdgeExplanation) -> dict[str, Any]:
    return {
        "partitioner": e.partitioner.value,
        "partitionerChosen": e.partitioner_chosen,
        "chained": e.chained,
        "chainedSource": e.chained_source,
        "reasons": list(e.reasons),
    }


def _plan(
    compilation: Compilation,
    diagnostics: list[dict[str, Any]],
    nodes: dict[str, Any],
    edges: dict[str, Any],
) -> dict[str, Any]:
    """The plan around its `nodes` and `edges` sections: the vertices and the summary,
    always computed whole (there are few vertices where chains are long)."""
    job_graph, execution = compilation.job_graph, compilation.execution
    assert job_graph is not None
    effective = (
        {v.id: (v.parallelism, v.max_parallelism) for v in execution.vertices}
        if execution is not None
        else {}
    )
    vertices: dict[str, Any] = {}
    for vertex in job_graph.vertices:
        parallelism, max_parallelism = effective.get(
            vertex.id, (vertex.parallelism, vertex.max_parallelism)
        )
        vertices[to_hex(vertex.id)] = {
            "name": vertex.name,
            "head": vertex.head,
            "nodes": list(vertex.nodes),
            "chainedSources": list(vertex.chained_sources),
            "parallelism": parallelism,
            "maxParallelism": max_parallelism,
            "slotSharingGroup": vertex.slot_sharing_group,
            "slotSharingGroupName": vertex.slot_sharing_group_name,
            "inputs": [
                {
                    "producer": to_hex(e.producer),
                    "dataSet": to_hex(e.data_set),
                    "shipStrategy": e.ship_strategy.value,
                    "distributionPattern": e.distribution_pattern.value,
                    "resultPartitionType": e.result_partition_type.value,
                    "edge": e.stream_edge.index,
                }
                for e in vertex.inputs
            ],
        }
    return {
        "format": FORMAT,
        "ok": compilation.ok,
        "summary": {
            "jobType": job_graph.job_type.value,
            "vertexCount": len(job_graph.vertices),
            "vertexOrder": [to_hex(v.id) for v in job_graph.vertices],
            "slotsRequired": job_graph.slots_required,
            "totalSubtasks": execution.total_subtasks if execution is not None else None,
            "slotSharingGroups": [
                {"index": g.index, "name": g.name, "slots": g.slots}
                for g in job_graph.slot_sharing_groups
            ],
        },
        "diagnostics": diagnostics,
        "nodes": nodes,
        "vertices": vertices,
        "edges": edges,
    }


ID_FIELDS = frozenset({"operatorId", "userDefinedId", "vertex"})
"""Entry fields that hold a Flink id as 32 hex characters (or null)."""

RENAMED_BY = {"vertices": "head"}
"""Per keyed section, the field that names the same entry under a new key: a vertex whose
head's hash changed keeps its head node."""


def plan_delta(
    old: dict[str, Any], new: dict[str, Any], touched: Touched | None = None
) -> dict[str, Any]:
    """What turns `old` into `new`: per keyed section the new entries (`set`), the removed
    keys (`remove`), entries that stay under a new key (`rename`, old key -> new key,
    applied before the rest) and, for an entry that stays, only its fields that changed
    (`patch`), where a change of an id field shared by several entries goes as one `xor`
    of those entries' ids with the same 128-bit value. An edit that breaks a chain gives
    every operator downstream a new OperatorID and vertex, all differing from the old by
    the same value (Flink mixes an input's hash into its consumer's with XOR), and whole
    entries, or even their fields one by one, would make its delta hundreds of kilobytes.

    A client that knows none of `patch`, `rename` and `xor` must not apply a delta with one:
    such a section always lacks `set` or `remove`, which that client requires, so it asks
    for a snapshot. Clients that know `patch` but not `rename` and `xor` are never sent
    them (`compact_delta` says when a delta has them).

    With `touched` (what `live_plan_after` says of `new`, made after `old`), only those
    entries of its sections are compared, and the shifts it knows need no comparison: a
    broken chain then costs what it moved, not a walk over every node of the plan."""
    delta: dict[str, Any] = {}
    for key in ("format", "ok", "summary", "diagnostics"):
        if old.get(key) != new.get(key):
            delta[key] = new.get(key)
    for section in KEYED_SECTIONS:
        before, after = old.get(section, {}), new.get(section, {})
        if before is after:
            continue
        changed: dict[str, Any] = {}
        patched: dict[str, Any] = {}
        keys = None if touched is None else touched.keys.get(section)
        shifted = None if touched is None else touched.shifted.get(section)
        for k in after if keys is None else keys:
            entry, previous = after[k], before.get(k)
            if previous is entry or previous == entry:
                continue
            if isinstance(previous, dict) and previous.keys() == entry.keys():
                patched[k] = {f: v for f, v in entry.items() if previous[f] != v}
            else:
                changed[k] = entry
        removed = [k for k in before if k not in after] if keys is None else []
        renamed = _renamed(section, before, removed, changed, patched)
        if (patched or renamed) and changed and removed:
            changed.update((k, after[k]) for k in patched)
            changed.update((new_key, after[new_key]) for new_key in renamed.values())
            removed.extend(renamed)
            patched, renamed = {}, {}
        xor = _xor_groups(before, after, renamed, patched, shifted)
        if patched or renamed or xor:
            part: dict[str, Any] = {}
            for name, value in (
                ("rename", renamed),
                ("patch", patched),
                ("xor", xor),
                ("set", changed),
                ("remove", removed),
            ):
                if value:
                    part[name] = value
            delta[section] = part
        elif changed or removed:
            delta[section] = {"set": changed, "remove": removed}
    return delta


def compact_delta(delta: dict[str, Any]) -> bool:
    """Whether a plan delta has a `rename` or an `xor`, which older clients cannot apply."""
    return any(
        isinstance(part, dict) and ("rename" in part or "xor" in part)
        for section, part in delta.items()
        if section in KEYED_SECTIONS
    )


def _renamed(
    section: str,
    before: dict[str, Any],
    removed: list[str],
    changed: dict[str, Any],
    patched: dict[str, Any],
) -> dict[str, str]:
    """Entries of `section` removed under one key and set under another with the same
    `RENAMED_BY` field: moved out of `removed` and `changed`, their changed fields into
    `patched`. Old key -> new key."""
    field = RENAMED_BY.get(section)
    if field is None or not removed or not changed:
        return {}
    old_key_of = {
        before[k][field]: k for k in removed if isinstance(before[k], dict) and field in before[k]
    }
    renamed: dict[str, str] = {}
    for new_key, entry in list(changed.items()):
        if new_key in before or not isinstance(entry, dict):
            continue  # renames never overwrite an entry, so their order does not matter
        old_key = old_key_of.pop(entry.get(field), None)
        if old_key is None or before[old_key].keys() != entry.keys():
            continue
        renamed[old_key] = new_key
        del changed[new_key]
        removed.remove(old_key)
        fields = {f: v for f, v in entry.items() if before[old_key][f] != v}
        if fields:
            patched[new_key] = fields
    return renamed


def _xor_groups(
    before: dict[str, Any],
    after: dict[str, Any],
    renamed: dict[str, str],
    patched: dict[str, Any],
    shifted: Shifts | None,
) -> list[dict[str, Any]]:
    """The changes of `ID_FIELDS` that several entries share as one XOR, moved out of
    `patched` into groups: `field`, `by` (32 hex characters) and `keys` (a run of
    consecutive integer keys as `[first, last]`, any other key on its own). `shifted`:
    changes known without comparing (their entries are not in `patched`); one no other
    entry shares goes into `patched`, as if found there."""
    old_key = {new: old for old, new in renamed.items()}
    known = shifted or {}
    found: dict[tuple[str, int], list[str]] = {}
    for key, fields in patched.items():
        previous = before[old_key.get(key, key)]
        for field, value in fields.items():
            if field in ID_FIELDS and isinstance(value, str) and isinstance(previous[field], str):
                by = int(previous[field], 16) ^ int(value, 16)
                found.setdefault((field, by), []).append(key)
    groups = []
    for shift in sorted(known.keys() | found.keys()):  # in an order of their own
        field, by = shift
        numbers, keys = known.get(shift, ()), found.get(shift, [])
        if len(numbers) + len(keys) < 2:
            for name in [*map(str, numbers), *keys]:
                if field not in patched.get(name, ()):
                    patched.setdefault(name, {})[field] = after[name][field]
            continue
        for key in keys:
            fields = patched[key]
            del fields[field]
            if not fields:
                del patched[key]
        groups.append({"field": field, "by": to_hex(by), "keys": _key_runs(keys, numbers)})
    return groups


def _key_runs(keys: list[str], numbers: Collection[int] = ()) -> list[int | str | list[int]]:
    """Keys with each run of consecutive integers written `[first, last]`; `numbers`: more
    keys, given as the integers they are written as."""
    integers = list(numbers)
    runs: list[int | str | list[int]] = []
    for k in keys:
        if k.isascii() and k.isdigit() and (k[0] != "0" or k == "0"):  # as str(int) writes
            integers.append(int(k))
        else:
            runs.append(k)
    integers.sort()
    spans: list[list[int]] = []

    def add(low: int, high: int) -> None:
        """The runs of `integers[low:high]`, found by halving: a long run costs one
        comparison, not a step per key (a broken chain shifts thousands of ids)."""
        first, last = integers[low], integers[high - 1]
        if last - first == high - 1 - low:
            if spans and spans[-1][1] + 1 == first:
                spans[-1][1] = last
            else:
                spans.append([first, last])
        else:
            middle = (low + high) // 2
            add(low, middle)
            add(middle, high)

    if integers:
        add(0, len(integers))
    runs.extend(first if first == last else [first, last] for first, last in spans)
    return runs


def _run_keys(runs: list[Any]) -> list[str]:
    """The keys `_key_runs` wrote."""
    keys: list[str] = []
    for run in runs:
        if isinstance(run, list):
            keys.extend(str(k) for k in range(run[0], run[1] + 1))
        else:
            keys.append(str(run))
    return keys


def apply_plan_delta(plan: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """`new` from `old` and `plan_delta(old, new)`."""
    result = copy.deepcopy(plan)
    for key, value in delta.items():
        if key in KEYED_SECTIONS:
            section = result.setdefault(key, {})
            for old_key, new_key in value.get("rename", {}).items():
                section[new_key] = section.pop(old_key)
            for removed in value.get("remove", ()):
                section.pop(removed, None)
            section.update(copy.deepcopy(value.get("set", {})))
            for entry_key, fields in value.get("patch", {}).items():
                section[entry_key] = {**section[entry_key], **copy.deepcopy(fields)}
            for group in value.get("xor", ()):
                field, by = group["field"], int(group["by"], 16)
                for entry_key in _run_keys(group["keys"]):
                    entry = section[entry_key]
                    section[entry_key] = {**entry, field: to_hex(int(entry[field], 16) ^ by)}
        else:
            result[key] = copy.deepcopy(value)
    return result
