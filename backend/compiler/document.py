"""Read and validate `streamgraph/v1` documents into a `StreamGraph`.

Reading never raises on bad input: every problem becomes a `Diagnostic` with
the node id, edge index and field it concerns, and a graph is returned only
when there are no errors. The document itself is never modified, so writing it
back (`dump_document`) keeps every key, known or not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import fields, replace
from enum import Enum
from typing import Any, TypeVar

from compiler.diagnostics import Diagnostic, Location, has_errors
from compiler.model import (
    DEFAULT_SLOT_SHARING_GROUP,
    PARALLELISM_DEFAULT,
    UPPER_BOUND_MAX_PARALLELISM,
    ChainingStrategy,
    EdgeIndex,
    ExchangeMode,
    JobConfig,
    NodeId,
    OperatorFactory,
    Partitioner,
    RuntimeMode,
    StreamEdge,
    StreamGraph,
    StreamNode,
)

FORMAT = "streamgraph/v1"
MAX_NODE_ID = 2**31 - 1
"""StreamNode ids are Java ints in Flink (and stay exact as JavaScript numbers)."""
_UID_HASH = re.compile(r"^[0-9A-Fa-f]{32}$")
_E = TypeVar("_E", bound=Enum)


def encode_java_utf8(text: str) -> bytes:
    """`String.getBytes(UTF_8)`: Java replaces an unpaired surrogate by `?`."""
    return text.encode("utf-8", "replace")


def dump_document(document: Mapping[str, Any]) -> str:
    """Serialise a document unchanged (unknown keys included)."""
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


class _Reader:
    """Collects diagnostics while reading one document."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    def error(
        self,
        code: str,
        message: str,
        *,
        node: int | None = None,
        edge: int | None = None,
        field: str | None = None,
    ) -> None:
        self.diagnostics.append(Diagnostic(code, message, Location(node, edge, field)))

    def read_int(
        self, obj: Mapping[str, Any], key: str, default: int, where: dict[str, Any]
    ) -> int:
        value = obj.get(key, default)
        if type(value) is int:  # not isinstance: a bool is not an integer here
            return value
        self.error("field.type", f"'{key}' must be an integer, got {value!r}", **_at(where, key))
        return default

    def read_bool(
        self, obj: Mapping[str, Any], key: str, default: bool, where: dict[str, Any]
    ) -> bool:
        value = obj.get(key, default)
        if not isinstance(value, bool):
            self.error(
                "field.type", f"'{key}' must be true or false, got {value!r}", **_at(where, key)
            )
            return default
        return value

    def read_optional_str(
        self, obj: Mapping[str, Any], key: str, where: dict[str, Any]
    ) -> str | None:
        value = obj.get(key)
        if value is None or isinstance(value, str):
            return value
        self.error(
            "field.type", f"'{key}' must be a string or null, got {value!r}", **_at(where, key)
        )
        return None

    def read_enum(
        self, obj: Mapping[str, Any], key: str, enum: type[_E], default: _E, where: dict[str, Any]
    ) -> _E:
        value = obj.get(key, default._value_)
        member = _members(enum).get(value) if type(value) is str else None
        if member is not None:
            return member
        allowed = ", ".join(m.value for m in enum)
        self.error(
            "field.enum", f"'{key}' must be one of {allowed}, got {value!r}", **_at(where, key)
        )
        return default


_MEMBERS: dict[type[Enum], dict[str, Enum]] = {}


def _members(enum: type[_E]) -> dict[str, _E]:
    """Members by value; `Enum(value)` is a slow call on the per-node path."""
    members = _MEMBERS.get(enum)
    if members is None:
        members = _MEMBERS[enum] = {m.value: m for m in enum}
    return members  # type: ignore[return-value]


def _at(where: dict[str, Any], key: str) -> dict[str, Any]:
    """The location of `key` inside `where`: its field path gets `key` appended."""
    prefix = where.get("field")
    return {**where, "field": f"{prefix}.{key}" if prefix else key}


def _bounded(value: int, *, allow_default: bool) -> bool:
    return (allow_default and value == PARALLELISM_DEFAULT) or (
        1 <= value <= UPPER_BOUND_MAX_PARALLELISM
    )


def read_document(raw: object) -> tuple[StreamGraph | None, list[Diagnostic]]:
    """Validate a parsed `streamgraph/v1` document and build its `StreamGraph`."""
    reader = _Reader()
    graph = _read(raw, reader)
    if has_errors(reader.diagnostics):
        return None, reader.diagnostics
    return graph, reader.diagnostics


_NODE_FIELDS = tuple(f.name for f in fields(StreamNode))


def reread_node(
    graph: StreamGraph, before: Mapping[str, Any], after: Mapping[str, Any]
) -> StreamGraph | None:
    """`graph` (read without any diagnostic) with one node read again after an edit of its
    document entry from `before` to `after`, when nothing else of the graph depends on
    what changed; None when the node no longer reads cleanly or the change reaches past it
    (its id, uid or slot sharing group, or a parallelism that changes the default
    partitioner of an edge or breaks a FORWARD edge): the document is read whole then.
    `graph` itself when the node reads as it was (a field set to its default, say)."""
    for key in ("id", "uid", "slotSharingGroup"):
        if before.get(key) != after.get(key):
            return None
    reader = _Reader()
    read = _read_nodes([after], graph.config, reader, {})
    node_id = after.get("id")
    if reader.diagnostics or type(node_id) is not int or NodeId(node_id) not in read:
        return None
    old = graph.nodes[NodeId(node_id)]
    new = replace(read[NodeId(node_id)], slot_sharing_group=old.slot_sharing_group)
    if all(getattr(new, f) == getattr(old, f) for f in _NODE_FIELDS):
        return graph
    if new.parallelism != old.parallelism:
        for edge in (*graph.in_edges[old.id], *graph.out_edges[old.id]):
            if not edge.partitioner_chosen or edge.partitioner is Partitioner.FORWARD:
                return None
    nodes = dict(graph.nodes)
    nodes[old.id] = new
    return replace(graph, nodes=nodes)


def _read(raw: object, r: _Reader) -> StreamGraph | None:
    if not isinstance(raw, dict):
        r.error("document.type", "a streamgraph/v1 document must be a JSON object")
        return None
    if raw.get("format") != FORMAT:
        r.error(
            "document.format",
            f"'format' must be '{FORMAT}', got {raw.get('format')!r}",
            field="format",
        )
    name = raw.get("name", "")
    if not isinstance(name, str):
        r.error("field.type", "'name' must be a string", field="name")
        name = ""
    config = _read_config(raw.get("config", {}), r)
    raw_nodes = raw.get("nodes")
    raw_edges = raw.get("edges", [])
    if not isinstance(raw_nodes, list):
        r.error("field.type", "'nodes' must be a list of nodes", field="nodes")
        return None
    if not isinstance(raw_edges, list):
        r.error("field.type", "'edges' must be a list of edges", field="edges")
        return None
    if config is None:
        return None

    explicit_groups: dict[NodeId, str | None] = {}
    partial_nodes = _read_nodes(raw_nodes, config, r, explicit_groups)
    edges = _read_edges(raw_edges, partial_nodes, r)
    if has_errors(r.diagnostics):
        return None

    out_lists: dict[NodeId, list[StreamEdge]] = {nid: [] for nid in partial_nodes}
    in_lists: dict[NodeId, list[StreamEdge]] = {nid: [] for nid in partial_nodes}
    for edge in edges:
        out_lists[edge.source].append(edge)
        in_lists[edge.target].append(edge)
    order = _topological_order(partial_nodes, out_lists, in_lists, r)
    if order is None:
        return None
    nodes = _resolve_slot_sharing_groups(partial_nodes, order, in_lists, explicit_groups)
    _check_graph(nodes, edges, in_lists, r)
    if has_errors(r.diagnostics):
        return None
    return StreamGraph(
        name=name,
        config=config,
        nodes=nodes,
        edges=tuple(edges),
        out_edges={nid: tuple(v) for nid, v in out_lists.items()},
        in_edges={nid: tuple(v) for nid, v in in_lists.items()},
        source_ids=tuple(sorted(nid for nid in nodes if not in_lists[nid])),
        topological_order=tuple(order),
        input_ids={nid: tuple(e.source for e in v) for nid, v in in_lists.items()},
        output_ids={nid: tuple(e.target for e in v) for nid, v in out_lists.items()},
        uids={nid: node.uid for nid, node in nodes.items() if node.uid is not None},
    )


def _read_config(raw: object, r: _Reader) -> JobConfig | None:
    if not isinstance(raw, dict):
        r.error("field.type", "'config' must be an object", field="config")
        return None
    where: dict[str, Any] = {"field": "config"}
    default_parallelism = r.read_int(raw, "defaultParallelism", 1, where)
    max_parallelism = r.read_int(raw, "maxParallelism", PARALLELISM_DEFAULT, where)
    if not _bounded(default_parallelism, allow_default=False):
        r.error(
            "config.parallelism-bounds",
            f"default parallelism must be between 1 and 32768, found: {default_parallelism}",
            field="config.defaultParallelism",
        )
    if not _bounded(max_parallelism, allow_default=True):
        r.error(
            "config.max-parallelism-bounds",
            f"max parallelism must be -1 or between 1 and 32768, found: {max_parallelism}",
            field="config.maxParallelism",
        )
    return JobConfig(
        chaining_enabled=r.read_bool(raw, "chainingEnabled", True, where),
        default_parallelism=default_parallelism,
        max_parallelism=max_parallelism,
        runtime_mode=r.read_enum(raw, "runtimeMode", RuntimeMode, RuntimeMode.STREAMING, where),
        chain_operators_with_different_max_parallelism=r.read_bool(
            raw, "chainOperatorsWithDifferentMaxParallelism", True, where
        ),
    )


def _read_nodes(
    raw_nodes: list[Any],
    config: JobConfig,
    r: _Reader,
    explicit_groups: dict[NodeId, str | None],
) -> dict[NodeId, StreamNode]:
    nodes: dict[NodeId, StreamNode] = {}
    for position, raw in enumerate(raw_nodes):
        if not isinstance(raw, dict):
            r.error("node.type", f"nodes[{position}] must be an object", field=f"nodes[{position}]")
            continue
        raw_id = raw.get("id")
        if isinstance(raw_id, bool) or not isinstance(raw_id, int) or raw_id <= 0:
            r.error(
                "node.id",
                f"nodes[{position}] needs an integer 'id' > 0, got {raw_id!r}",
                field=f"nodes[{position}].id",
            )
            continue
        if raw_id > MAX_NODE_ID:
            r.error(
                "node.id",
                f"nodes[{position}] has id {raw_id}, beyond the largest StreamNode id "
                f"({MAX_NODE_ID}, a Java int)",
                field=f"nodes[{position}].id",
            )
            continue
        node_id = NodeId(raw_id)
        if node_id in nodes:
            r.error("node.duplicate-id", f"node id {node_id} is used twice", node=node_id)
            continue
        where: dict[str, Any] = {"node": node_id}
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            r.error("node.name", "a node needs a non-empty 'name'", node=node_id, field="name")
            name = str(name)
        operator = raw.get("operator", "")
        if not isinstance(operator, str):
            r.error("field.type", "'operator' must be a string", node=node_id, field="operator")
            operator = ""
        for key in ("params", "ui"):
            if key in raw and not isinstance(raw[key], dict):
                r.error("field.type", f"'{key}' must be an object", node=node_id, field=key)

        parallelism = r.read_int(raw, "parallelism", PARALLELISM_DEFAULT, where)
        if not _bounded(parallelism, allow_default=True):
            r.error(
                "node.parallelism-bounds",
                f"parallelism must be -1 or between 1 and 32768, found: {parallelism}",
                node=node_id,
                field="parallelism",
            )
        max_parallelism = r.read_int(raw, "maxParallelism", PARALLELISM_DEFAULT, where)
        if not _bounded(max_parallelism, allow_default=True):
            r.error(
                "node.max-parallelism-bounds",
                f"max parallelism must be -1 or between 1 and 32768, found: {max_parallelism}",
                node=node_id,
                field="maxParallelism",
            )
        # What StreamGraphGenerator and the translators resolve from the environment.
        if parallelism == PARALLELISM_DEFAULT:
            parallelism = config.default_parallelism
        if max_parallelism <= 0 and config.max_parallelism > 0:
            max_parallelism = config.max_parallelism
        if 0 < max_parallelism < parallelism:
            r.error(
                "node.parallelism-above-max",
                f"parallelism ({parallelism}) is higher than the max parallelism "
                f"({max_parallelism}); lower the parallelism or increase the max parallelism",
                node=node_id,
                field="parallelism",
            )

        uid = r.read_optional_str(raw, "uid", where)
        if uid == "":
            r.error("node.uid", "'uid' must not be empty (use null for none)", **where, field="uid")
        uid_hash = r.read_optional_str(raw, "uidHash", where)
        if uid_hash is not None and not _UID_HASH.match(uid_hash):
            r.error(
                "node.uid-hash",
                f"'uidHash' must be 32 hexadecimal characters, got {uid_hash!r}",
                node=node_id,
                field="uidHash",
            )
        explicit_groups[node_id] = r.read_optional_str(raw, "slotSharingGroup", where)
        nodes[node_id] = StreamNode(
            id=node_id,
            name=name,
            operator=operator,
            parallelism=parallelism,
            max_parallelism=max_parallelism,
            chaining_strategy=r.read_enum(
                raw, "chainingStrategy", ChainingStrategy, ChainingStrategy.ALWAYS, where
            ),
            slot_sharing_group=DEFAULT_SLOT_SHARING_GROUP,  # resolved after the edges
            co_location_group=r.read_optional_str(raw, "coLocationGroup", where),
            uid=uid,
            uid_hash=uid_hash.lower() if uid_hash is not None else None,
            factory=r.read_enum(raw, "factory", OperatorFactory, OperatorFactory.OPERATOR, where),
        )
    return nodes


def _read_edges(
    raw_edges: list[Any], nodes: Mapping[NodeId, StreamNode], r: _Reader
) -> list[StreamEdge]:
    edges: list[StreamEdge] = []
    pair_counts: dict[tuple[int, int], int] = {}
    for index, raw in enumerate(raw_edges):
        if not isinstance(raw, dict):
            r.error("edge.type", "an edge must be an object", edge=index)
            continue
        where: dict[str, Any] = {"edge": index}
        ends: list[NodeId] = []
        for key in ("source", "target"):
            value = raw.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value not in nodes:
                r.error(
                    "edge.unknown-node",
                    f"'{key}' {value!r} is not the id of a node in this document",
                    edge=index,
                    field=key,
                )
            else:
                ends.append(NodeId(value))
        chosen = raw.get("partitioner") is not None
        partitioner = (
            r.read_enum(raw, "partitioner", Partitioner, Partitioner.FORWARD, where)
            if chosen
            else None
        )
        exchange_mode = r.read_enum(
            raw, "exchangeMode", ExchangeMode, ExchangeMode.UNDEFINED, where
        )
        type_number = r.read_int(raw, "typeNumber", 0, where)
        if type_number < 0:
            r.error(
                "edge.type-number",
                f"'typeNumber' must be 0 (one input) or 1, 2, ... (inputs of a multi-input "
                f"operator), got {type_number}",
                edge=index,
                field="typeNumber",
            )
        side_output_tag = r.read_optional_str(raw, "sideOutputTag", where)
        if len(ends) != 2:
            continue
        source, target = ends
        pair = (source, target)
        unique_id = pair_counts.get(pair, 0)
        pair_counts[pair] = unique_id + 1
        if partitioner is None:
            partitioner = default_partitioner(nodes[source].parallelism, nodes[target].parallelism)
        edges.append(
            StreamEdge(
                index=EdgeIndex(index),
                source=source,
                target=target,
                partitioner=partitioner,
                partitioner_chosen=chosen,
                exchange_mode=exchange_mode,
                type_number=type_number,
                side_output_tag=side_output_tag,
                key=_freeze(raw.get("key")),
                unique_id=unique_id,
            )
        )
    return edges


def default_partitioner(source_parallelism: int, target_parallelism: int) -> Partitioner:
    """The partitioner of an edge whose program chose none, as `StreamGraph.createActualEdge`
    picks it in a static graph: FORWARD between equal parallelism, REBALANCE otherwise."""
    if source_parallelism == target_parallelism:
        return Partitioner.FORWARD
    return Partitioner.REBALANCE


def _freeze(value: object) -> object:
    """A hashable, comparable form of a JSON value (for partitioner equality)."""
    return json.dumps(value, sort_keys=True) if value is not None else None


def _topological_order(
    nodes: Mapping[NodeId, StreamNode],
    out_lists: Mapping[NodeId, list[StreamEdge]],
    in_lists: Mapping[NodeId, list[StreamEdge]],
    r: _Reader,
) -> list[NodeId] | None:
    remaining = {nid: len(in_lists[nid]) for nid in nodes}
    ready = [nid for nid, count in remaining.items() if count == 0]
    order: list[NodeId] = []
    while ready:
        nid = ready.pop()
        order.append(nid)
        for edge in out_lists[nid]:
            remaining[edge.target] -= 1
            if remaining[edge.target] == 0:
                ready.append(edge.target)
    if len(order) == len(nodes):
        return order
    # The nodes left over are on a cycle or downstream of one: report only the cycles.
    left = sorted(nid for nid, count in remaining.items() if count > 0)
    for cycle_nodes in _cycles(left, out_lists):
        members = set(cycle_nodes)
        cycle_edges = [
            edge for nid in cycle_nodes for edge in out_lists[nid] if edge.target in members
        ]
        cycle_edges.sort(key=lambda edge: edge.index)
        listed = ", ".join(f"{e.source} -> {e.target}" for e in cycle_edges)
        where = (
            f"node {cycle_nodes[0]} is its own input"
            if len(cycle_nodes) == 1
            else "the graph has a cycle through nodes " + ", ".join(map(str, cycle_nodes))
        )
        r.diagnostics.append(
            Diagnostic(
                "graph.cycle",
                f"{where} (edge{'s' if len(cycle_edges) > 1 else ''} {listed}); Flink 2 has "
                "no iterations, a StreamGraph must be acyclic",
                Location(node=cycle_nodes[0]),
                nodes=tuple(cycle_nodes),
                edges=tuple(e.index for e in cycle_edges),
            )
        )
    return None


def _cycles(
    candidates: list[NodeId], out_lists: Mapping[NodeId, list[StreamEdge]]
) -> list[list[NodeId]]:
    """The cycles among `candidates`: their strongly connected components that hold a cycle
    (two nodes or more, or one with an edge to itself), each in ascending node id, ordered
    by their first node. Every node and every edge inside such a component is on a cycle.

    Tarjan's algorithm without recursion (a chain of thousands of nodes would overflow
    Python's stack), from the candidates in ascending id, out-edges in creation order.
    """
    allowed = set(candidates)
    index: dict[NodeId, int] = {}
    low: dict[NodeId, int] = {}
    stack: list[NodeId] = []
    on_stack: set[NodeId] = set()
    found: list[list[NodeId]] = []
    for start in candidates:
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work: list[tuple[NodeId, int]] = [(start, 0)]
        while work:
            nid, position = work[-1]
            edges = out_lists[nid]
            if position < len(edges):
                work[-1] = (nid, position + 1)
                target = edges[position].target
                if target not in allowed:
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, 0))
                elif target in on_stack:
                    low[nid] = min(low[nid], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[nid])
            if low[nid] != index[nid]:
                continue
            component: list[NodeId] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == nid:
                    break
            if len(component) > 1 or any(e.target == nid for e in out_lists[nid]):
                found.append(sorted(component))
    found.sort(key=lambda component: component[0])
    return found


def _resolve_slot_sharing_groups(
    nodes: Mapping[NodeId, StreamNode],
    order: list[NodeId],
    in_lists: Mapping[NodeId, list[StreamEdge]],
    explicit: Mapping[NodeId, str | None],
) -> dict[NodeId, StreamNode]:
    """`StreamGraphGenerator.determineSlotSharingGroup` for nodes whose group is null."""
    resolved: dict[NodeId, str] = {}
    for nid in order:
        group = explicit.get(nid)
        if group is None:
            inputs = {resolved[e.source] for e in in_lists[nid]}
            group = inputs.pop() if len(inputs) == 1 else DEFAULT_SLOT_SHARING_GROUP
        resolved[nid] = group
    result: dict[NodeId, StreamNode] = {}
    for nid, node in nodes.items():
        group = resolved[nid]
        if group != node.slot_sharing_group:
            node = replace(node, slot_sharing_group=group)
        result[nid] = node
    return result


def _check_graph(
    nodes: Mapping[NodeId, StreamNode],
    edges: list[StreamEdge],
    in_lists: Mapping[NodeId, list[StreamEdge]],
    r: _Reader,
) -> None:
    for edge in edges:
        src, tgt = nodes[edge.source], nodes[edge.target]
        if edge.partitioner is Partitioner.FORWARD and src.parallelism != tgt.parallelism:
            r.error(
                "edge.forward-parallelism",
                "Forward partitioning does not allow change of parallelism. Upstream operation: "
                f"{src.name}-{src.id} parallelism: {src.parallelism}, downstream operation: "
                f"{tgt.name}-{tgt.id} parallelism: {tgt.parallelism} You must use another "
                "partitioning strategy, such as broadcast, rebalance, shuffle or global.",
                edge=edge.index,
                field="partitioner",
            )
    for nid, inputs in in_lists.items():
        numbers = sorted({e.type_number for e in inputs})
        if not numbers or numbers == [0]:
            continue
        if 0 in numbers or numbers != list(range(1, len(numbers) + 1)) or len(numbers) < 2:
            r.error(
                "node.type-numbers",
                "input typeNumbers must be all 0 (one-input operator or union) or 1..n with "
                f"n >= 2 (a multi-input operator), found {numbers}",
                node=nid,
                field="typeNumber",
            )
    _check_uids(nodes, r)


def _check_uids(nodes: Mapping[NodeId, StreamNode], r: _Reader) -> None:
    """Two equal user ids give equal hashes: Flink's hash collision error."""
    first_with: dict[bytes, NodeId] = {}
    for nid in sorted(nodes):
        uid = nodes[nid].uid
        if uid is None:
            continue
        encoded = encode_java_utf8(uid)
        if encoded in first_with:
            r.error(
                "node.uid-collision",
                f'Hash collision on user-specified ID "{uid}". Most likely cause is a non-unique '
                "ID. Please check that all IDs specified via `uid(String)` are unique "
                f"(also used by node {first_with[encoded]}).",
                node=nid,
                field="uid",
            )
        else:
            first_with[encoded] = nid
