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
from typing import Any

from compiler.explain import explain
from compiler.hashing import to_hex
from compiler.pipeline import Compilation

FORMAT = "liveplan/v1"
KEYED_SECTIONS = ("nodes", "vertices", "edges")


def live_plan(compilation: Compilation) -> dict[str, Any]:
    """The live plan of a compilation; without a JobGraph, only diagnostics."""
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
        }
    explanation = explain(
        graph, compilation.chainable, chains, compilation.hashes, compilation.user_hashes
    )
    execution = compilation.execution
    effective = (
        {v.id: (v.parallelism, v.max_parallelism) for v in execution.vertices}
        if execution is not None
        else {}
    )
    nodes = {
        str(n.node): {
            "operatorId": to_hex(n.hash),
            "userDefinedId": None if n.user_defined is None else to_hex(n.user_defined),
            "vertex": to_hex(job_graph.vertex_of_node[n.node]),
            "hashBasis": n.summary,
        }
        for n in explanation.nodes
    }
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
    edges = {
        str(e.edge): {
            "partitioner": e.partitioner.value,
            "partitionerChosen": e.partitioner_chosen,
            "chained": e.chained,
            "chainedSource": e.chained_source,
            "reasons": list(e.reasons),
        }
        for e in explanation.edges
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


def plan_delta(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What turns `old` into `new`: per keyed section the new entries (`set`), the removed
    keys (`remove`) and, for an entry that stays, only its fields that changed (`patch`:
    an edit that breaks a chain gives every operator downstream a new OperatorID, and
    whole entries would make its delta hundreds of kilobytes).

    A client that knows no `patch` must not apply a delta with one: such a section always
    lacks `set` or `remove`, which that client requires, so it asks for a snapshot."""
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
        for k, entry in after.items():
            previous = before.get(k)
            if previous is entry or previous == entry:
                continue
            if isinstance(previous, dict) and previous.keys() == entry.keys():
                patched[k] = {f: v for f, v in entry.items() if previous[f] != v}
            else:
                changed[k] = entry
        removed = [k for k in before if k not in after]
        if patched and changed and removed:
            changed.update((k, after[k]) for k in patched)
            patched = {}
        if patched:
            part: dict[str, Any] = {"patch": patched}
            if changed:
                part["set"] = changed
            if removed:
                part["remove"] = removed
            delta[section] = part
        elif changed or removed:
            delta[section] = {"set": changed, "remove": removed}
    return delta


def apply_plan_delta(plan: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """`new` from `old` and `plan_delta(old, new)`."""
    result = copy.deepcopy(plan)
    for key, value in delta.items():
        if key in KEYED_SECTIONS:
            section = result.setdefault(key, {})
            for removed in value.get("remove", ()):
                section.pop(removed, None)
            section.update(copy.deepcopy(value.get("set", {})))
            for entry_key, fields in value.get("patch", {}).items():
                section[entry_key] = {**section[entry_key], **copy.deepcopy(fields)}
        else:
            result[key] = copy.deepcopy(value)
    return result
