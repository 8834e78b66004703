"""Edit operations on a `streamgraph/v1` document, and how concurrent ones combine.

Co-editing sends these operations, each against the revision its author saw.
`apply_edit` returns a new document (the input is never modified) or raises
`EditRejected` with what is wrong and where. `find_conflict` tells whether an
edit made against an older revision still means the same thing after the edits
applied since: if it touches nothing they touched, it is rebased (applied as
is); otherwise it is rejected, never allowed to overwrite another edit silently.

Elements are named by stable keys: nodes by id, edges by
(source, target, typeNumber, k) where k counts the earlier edges with the same
three values, fields by dotted paths (`parallelism`, `params.fn`, `ui.x`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

EditKind = Literal[
    "add_node",
    "remove_node",
    "move_node",
    "move_nodes",
    "connect",
    "disconnect",
    "set_field",
    "set_operator",
]
EDIT_KINDS: tuple[str, ...] = (
    "add_node",
    "remove_node",
    "move_node",
    "move_nodes",
    "connect",
    "disconnect",
    "set_field",
    "set_operator",
)
ElementKind = Literal["node", "edge", "config", "document"]
_EDGE_DEFAULTS = {
    "partitioner": None,  # none chosen: Flink's default, FORWARD or REBALANCE by parallelism
    "exchangeMode": "UNDEFINED",
    "typeNumber": 0,
    "sideOutputTag": None,
}
_NODE_DEFAULTS: dict[str, Any] = {
    "operator": "map",
    "params": {},
    "parallelism": -1,
    "maxParallelism": -1,
    "chainingStrategy": "ALWAYS",
    "slotSharingGroup": None,
    "coLocationGroup": None,
    "uid": None,
    "uidHash": None,
    "factory": "OPERATOR",
    "ui": {},
}
_PROTECTED_FIELDS = {
    "node": {"id"},
    "edge": {"source", "target"},
    "document": {"format", "nodes", "edges"},
}


class EditRejected(ValueError):
    """An edit that cannot be applied; nothing was changed."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        node: int | None = None,
        edge: int | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.node = node
        self.edge = edge
        self.field = field


EdgeKey = tuple[int, int, int, int]
"""(source, target, typeNumber, k)."""
NodeMove = tuple[int, float | None, float | None]
"""(node id, x, y); x and y both None: the node's stored position is removed (it is
drawn on the canvas's grid again), which undoes a layout of nodes that had none."""


@dataclass(frozen=True, slots=True)
class Edit:
    kind: EditKind
    node: dict[str, Any] | None = None
    """`add_node`: the node (its id is assigned if missing or taken)."""
    node_id: int | None = None
    """`remove_node`, `move_node`, `set_field` on a node."""
    edge: dict[str, Any] | None = None
    """`connect`: the new edge. `add_node`: an edge into the new node, without `target`."""
    edge_key: EdgeKey | None = None
    """`disconnect`, `set_field` on an edge."""
    element: ElementKind | None = None
    """`set_field`: what the field belongs to."""
    field: str | None = None
    value: Any = None
    x: float | None = None
    y: float | None = None
    operator: str | None = None
    """`set_operator`: the node's new operator kind."""
    params: dict[str, Any] | None = None
    """`set_operator`: the node's new parameters, in place of all its old ones."""
    moves: tuple[NodeMove, ...] | None = None
    """`move_nodes`: where each node goes, one edit for all (an auto-layout, its undo)."""

    @property
    def affects_plan(self) -> bool:
        """False for edits to what compilation ignores (a node's `params`, `ui` and
        `operator`, the document's `meta` and `ui`; see streamgraph-format.md): the
        plan after such an edit is the plan before it."""
        if self.kind in ("move_node", "move_nodes", "set_operator"):
            return False
        if self.kind != "set_field" or self.field is None:
            return True
        if self.element == "node":
            return not (
                self.field.startswith(("params.", "ui."))
                or (self.field == "operator" and isinstance(self.value, str))
            )
        if self.element == "document":
            return not self.field.startswith(("meta.", "ui."))
        return True

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for name in ("node", "edge", "element", "field"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        if self.node_id is not None:
            data["nodeId"] = self.node_id
        if self.edge_key is not None:
            data["edgeKey"] = list(self.edge_key)
        if self.kind == "set_field":
            data["value"] = self.value
        if self.kind == "move_node":
            data["x"], data["y"] = self.x, self.y
        if self.operator is not None:
            data["operator"] = self.operator
        if self.params is not None:
            data["params"] = self.params
        if self.moves is not None:
            data["moves"] = [{"nodeId": n, "x": x, "y": y} for n, x, y in self.moves]
        return data

    @staticmethod
    def from_json(data: object) -> Edit:
        """Parse an edit; raises `EditRejected` on any malformed part."""
        if not isinstance(data, dict):
            raise EditRejected("edit.malformed", "an edit must be an object")
        kind = data.get("kind")
        if kind not in EDIT_KINDS:
            raise EditRejected(
                "edit.kind", f"'kind' must be one of {', '.join(EDIT_KINDS)}, got {kind!r}"
            )
        edge_key = data.get("edgeKey")
        if edge_key is not None:
            if (
                not isinstance(edge_key, list)
                or len(edge_key) != 4
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in edge_key)
            ):
                raise EditRejected(
                    "edit.edge-key", "'edgeKey' must be [source, target, typeNumber, k]"
                )
            edge_key = (edge_key[0], edge_key[1], edge_key[2], edge_key[3])
        node_id = data.get("nodeId")
        if node_id is not None and (isinstance(node_id, bool) or not isinstance(node_id, int)):
            raise EditRejected("edit.node-id", "'nodeId' must be an integer")
        for name in ("node", "edge"):
            if data.get(name) is not None and not isinstance(data[name], dict):
                raise EditRejected("edit.malformed", f"'{name}' must be an object")
        element = data.get("element")
        if element is not None and element not in ("node", "edge", "config", "document"):
            raise EditRejected("edit.element", "'element' must be node, edge, config or document")
        field = data.get("field")
        if field is not None and (not isinstance(field, str) or "" in field.split(".")):
            raise EditRejected("edit.field", "'field' must be a dotted path of non-empty names")
        for name in ("x", "y"):
            if not _is_number_or_none(data.get(name)):
                raise EditRejected("edit.position", f"'{name}' must be a number")
        operator = data.get("operator")
        if operator is not None and not isinstance(operator, str):
            raise EditRejected("edit.operator", "'operator' must be a string")
        params = data.get("params")
        if params is not None and not isinstance(params, dict):
            raise EditRejected("edit.malformed", "'params' must be an object")
        return Edit(
            kind=kind,
            node=data.get("node"),
            node_id=node_id,
            edge=data.get("edge"),
            edge_key=edge_key,
            element=element,
            field=field,
            value=data.get("value"),
            x=data.get("x"),
            y=data.get("y"),
            operator=operator,
            params=params,
            moves=_read_moves(data.get("moves")),
        )


def _is_number_or_none(value: object) -> bool:
    return value is None or (not isinstance(value, bool) and isinstance(value, int | float))


_MOVES_SHAPE = "'moves' must be a list of {nodeId, x, y}, each node once"


def _read_moves(raw: object) -> tuple[NodeMove, ...] | None:
    """`moves` of a `move_nodes` edit: [{"nodeId", "x", "y"}, ...], each node at most once;
    x and y are numbers, or both null to remove the node's position."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        raise EditRejected("edit.moves", _MOVES_SHAPE)
    moves: list[NodeMove] = []
    seen: set[int] = set()
    for move in raw:
        if not isinstance(move, dict):
            raise EditRejected("edit.moves", _MOVES_SHAPE)
        node_id, x, y = move.get("nodeId"), move.get("x"), move.get("y")
        if isinstance(node_id, bool) or not isinstance(node_id, int) or node_id in seen:
            raise EditRejected("edit.moves", _MOVES_SHAPE)
        unset = x is None and y is None and "x" in move and "y" in move
        if not unset and (
            x is None or y is None or not _is_number_or_none(x) or not _is_number_or_none(y)
        ):
            raise EditRejected(
                "edit.position", f"the move of node {node_id} needs numbers x, y, or null for both"
            )
        seen.add(node_id)
        moves.append((node_id, x, y))
    return tuple(moves)


def edge_keys(document: dict[str, Any]) -> list[EdgeKey]:
    """The key of every edge, in edge-list order."""
    seen: dict[tuple[int, int, int], int] = {}
    keys: list[EdgeKey] = []
    for edge in document.get("edges", []):
        base = (edge.get("source"), edge.get("target"), edge.get("typeNumber", 0))
        k = seen.get(base, 0)
        seen[base] = k + 1
        keys.append((*base, k))
    return keys


def _node_index(
    document: dict[str, Any], node_id: int, positions: Mapping[int, int] | None = None
) -> int:
    nodes = document.get("nodes", [])
    position = None if positions is None else positions.get(node_id)
    if position is not None and position < len(nodes) and nodes[position].get("id") == node_id:
        return position
    for position, node in enumerate(nodes):
        if node.get("id") == node_id:
            return position
    raise EditRejected("edit.unknown-node", f"there is no node {node_id}", node=node_id)


def _edge_index(document: dict[str, Any], key: EdgeKey) -> int:
    try:
        return edge_keys(document).index(key)
    except ValueError:
        raise EditRejected(
            "edit.unknown-edge",
            f"there is no edge {key[0]} -> {key[1]} (typeNumber {key[2]}, #{key[3]})",
        ) from None


def _set_path(
    target: dict[str, Any], path: str, value: Any, *, node: int | None, edge: int | None
) -> None:
    """Set `path` in `target` (a fresh copy), copying every nested object on the way."""
    parts = path.split(".")
    for part in parts[:-1]:
        child = target.get(part)
        if child is None:
            child = target[part] = {}
        elif isinstance(child, dict):
            child = target[part] = dict(child)
        if not isinstance(child, dict):
            raise EditRejected(
                "edit.field",
                f"'{part}' is not an object, cannot set '{path}'",
                node=node,
                edge=edge,
                field=path,
            )
        target = child
    if value is None and len(parts) > 1:
        target.pop(parts[-1], None)  # null removes a nested key (params, ui, meta)
    else:
        target[parts[-1]] = value


def apply_edit(
    document: dict[str, Any], edit: Edit, positions: Mapping[int, int] | None = None
) -> tuple[dict[str, Any], Edit]:
    """The document after `edit`, and the edit as applied (e.g. with its assigned node id).
    `positions`: where each node id is in the document's node list, when the caller knows
    (else the nodes are searched).

    Copy on write: the result shares every node, edge and nested object the edit does
    not change with `document`, and neither is ever modified in place.
    """
    result = dict(document)
    nodes: list[dict[str, Any]] = list(document.get("nodes", []))
    edges: list[dict[str, Any]] = list(document.get("edges", []))
    result["nodes"], result["edges"] = nodes, edges
    if edit.kind == "add_node":
        if edit.node is None:
            raise EditRejected("edit.malformed", "add_node needs 'node'")
        node = {**_NODE_DEFAULTS, **copy.deepcopy(edit.node)}
        taken = {n.get("id") for n in nodes}
        if not isinstance(node.get("id"), int) or node["id"] in taken or node["id"] <= 0:
            node["id"] = max((i for i in taken if isinstance(i, int)), default=0) + 1
        if not isinstance(node.get("name"), str) or not node["name"]:
            raise EditRejected(
                "edit.node-name", "a new node needs a non-empty 'name'", field="name"
            )
        inbound = None if edit.edge is None else _inbound_edge(result, edit.edge)
        nodes.append(node)
        if inbound is not None:
            edges.append({**inbound, "target": node["id"]})
        return result, Edit(kind="add_node", node=node, edge=inbound)
    if edit.kind == "remove_node":
        node_id = _required_node(edit)
        del nodes[_node_index(result, node_id, positions)]
        result["edges"] = [e for e in edges if node_id not in (e.get("source"), e.get("target"))]
        return result, edit
    if edit.kind == "move_node":
        node_id = _required_node(edit)
        if edit.x is None or edit.y is None:
            raise EditRejected("edit.position", "move_node needs 'x' and 'y'", node=node_id)
        _move(nodes, _node_index(result, node_id, positions), edit.x, edit.y)
        return result, edit
    if edit.kind == "move_nodes":
        if edit.moves is None:
            raise EditRejected("edit.malformed", "move_nodes needs 'moves'")
        # Every node is looked up before any moves: an unknown one refuses the whole edit.
        indexes = [_node_index(result, node_id, positions) for node_id, _, _ in edit.moves]
        for index, (_, x, y) in zip(indexes, edit.moves, strict=True):
            _move(nodes, index, x, y)
        return result, edit
    if edit.kind == "set_operator":
        node_id = _required_node(edit)
        if edit.operator is None or edit.params is None:
            raise EditRejected(
                "edit.malformed", "set_operator needs 'operator' and 'params'", node=node_id
            )
        index = _node_index(result, node_id, positions)
        # Only the kind and its parameters: id, name, uids, parallelism and edges stay.
        nodes[index] = {
            **nodes[index],
            "operator": edit.operator,
            "params": copy.deepcopy(edit.params),
        }
        return result, edit
    if edit.kind == "connect":
        if edit.edge is None:
            raise EditRejected("edit.malformed", "connect needs 'edge'")
        edge = {**_EDGE_DEFAULTS, **copy.deepcopy(edit.edge)}
        for end in ("source", "target"):
            if not isinstance(edge.get(end), int):
                raise EditRejected("edit.edge", f"the edge needs an integer '{end}'", field=end)
            _node_index(result, edge[end], positions)
        edges.append(edge)
        return result, Edit(kind="connect", edge=edge)
    if edit.kind == "disconnect":
        del edges[_edge_index(result, _required_edge(edit))]
        return result, edit
    # set_field
    element, field = edit.element, edit.field
    if element is None or field is None:
        raise EditRejected("edit.malformed", "set_field needs 'element' and 'field'")
    head = field.split(".")[0]
    if head in _PROTECTED_FIELDS.get(element, set()):
        raise EditRejected(
            "edit.field",
            f"'{field}' of a {element} cannot be set; use the dedicated edit",
            field=field,
        )
    value = copy.deepcopy(edit.value)
    if element == "node":
        node_id = _required_node(edit)
        index = _node_index(result, node_id, positions)
        nodes[index] = dict(nodes[index])
        _set_path(nodes[index], field, value, node=node_id, edge=None)
    elif element == "edge":
        index = _edge_index(result, _required_edge(edit))
        edges[index] = dict(edges[index])
        _set_path(edges[index], field, value, node=None, edge=index)
    elif element == "config":
        config = result.get("config")
        result["config"] = dict(config) if isinstance(config, dict) else {}
        _set_path(result["config"], field, value, node=None, edge=None)
    else:
        _set_path(result, field, value, node=None, edge=None)
    return result, edit


def _inbound_edge(document: dict[str, Any], edge: dict[str, Any]) -> dict[str, Any]:
    """The edge of an `add_node` into its new node, with the edge defaults: from a node
    already in `document`, and without a `target` (the id the new node gets)."""
    inbound = {**_EDGE_DEFAULTS, **copy.deepcopy(edge)}
    if "target" in inbound:
        raise EditRejected(
            "edit.edge",
            "the edge of add_node goes to the new node: leave out 'target'",
            field="target",
        )
    source = inbound.get("source")
    if isinstance(source, bool) or not isinstance(source, int):
        raise EditRejected("edit.edge", "the edge needs an integer 'source'", field="source")
    _node_index(document, source)
    return inbound


def _move(nodes: list[dict[str, Any]], index: int, x: float | None, y: float | None) -> None:
    """Put the node at `index` at (x, y): a copy of it with a copy of its `ui`. With x and
    y None, remove its `ui.x` and `ui.y`, as `set_field` of each to null does."""
    node = nodes[index] = dict(nodes[index])
    ui = node.get("ui")
    ui = ui if isinstance(ui, dict) else {}
    if x is None or y is None:
        node["ui"] = {k: v for k, v in ui.items() if k not in ("x", "y")}
    else:
        node["ui"] = {**ui, "x": x, "y": y}


def _required_node(edit: Edit) -> int:
    if edit.node_id is None:
        raise EditRejected("edit.malformed", f"{edit.kind} needs 'nodeId'")
    return edit.node_id


def _required_edge(edit: Edit) -> EdgeKey:
    if edit.edge_key is None:
        raise EditRejected("edit.malformed", f"{edit.kind} needs 'edgeKey'")
    return edit.edge_key


@dataclass(frozen=True, slots=True)
class _Touch:
    nodes_removed: frozenset[int]
    nodes_used: frozenset[int]
    fields: frozenset[tuple[str, str, str]]
    """(element, element key, dotted field path)."""


def _touch(edit: Edit) -> _Touch:
    removed: set[int] = set()
    used: set[int] = set()
    fields: set[tuple[str, str, str]] = set()
    if edit.kind == "remove_node" and edit.node_id is not None:
        removed.add(edit.node_id)
    elif edit.kind == "add_node" and edit.edge is not None:
        # No other edit can name the new node yet: only the edge's source is touched.
        source = edit.edge.get("source")
        if isinstance(source, int) and not isinstance(source, bool):
            used.add(source)
    elif edit.kind == "move_node" and edit.node_id is not None:
        used.add(edit.node_id)
        fields.update({("node", str(edit.node_id), "ui.x"), ("node", str(edit.node_id), "ui.y")})
    elif edit.kind == "move_nodes" and edit.moves is not None:
        for node_id, _, _ in edit.moves:
            used.add(node_id)
            fields.update({("node", str(node_id), "ui.x"), ("node", str(node_id), "ui.y")})
    elif edit.kind == "set_operator" and edit.node_id is not None:
        used.add(edit.node_id)
        fields.update(
            {("node", str(edit.node_id), "operator"), ("node", str(edit.node_id), "params")}
        )
    elif edit.kind == "connect" and edit.edge is not None:
        for end in ("source", "target"):
            if isinstance(edit.edge.get(end), int):
                used.add(edit.edge[end])
    elif edit.kind == "disconnect" and edit.edge_key is not None:
        used.update(edit.edge_key[:2])
    elif edit.kind == "set_field" and edit.field is not None and edit.element is not None:
        top = edit.field
        if edit.element == "node" and edit.node_id is not None:
            used.add(edit.node_id)
            fields.add(("node", str(edit.node_id), top))
        elif edit.element == "edge" and edit.edge_key is not None:
            used.update(edit.edge_key[:2])
            fields.add(("edge", str(list(edit.edge_key)), top))
        else:
            fields.add((edit.element, "", top))
    return _Touch(frozenset(removed), frozenset(used), frozenset(fields))


def _overlaps(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def find_conflict(edit: Edit, applied_since: list[tuple[int, Edit]]) -> str | None:
    """Why `edit` cannot be rebased over the edits applied since its base revision, or None.

    `applied_since` holds (revision, edit) pairs in order. Conflicts: touching a
    node another edit removed (or removing a node another edit touched); two
    edits on edges between the same two nodes where one removes an edge (edge
    keys may then name another edge) or both add one; the same field of the
    same element set twice.
    """
    mine = _touch(edit)
    mine_pairs = _edge_pairs(edit)
    for revision, other in applied_since:
        theirs = _touch(other)
        gone = theirs.nodes_removed & (mine.nodes_used | mine.nodes_removed)
        if gone:
            return f"node {min(gone)} was removed in revision {revision}"
        touched = mine.nodes_removed & theirs.nodes_used
        if touched:
            return (
                f"node {min(touched)} was changed in revision {revision}; "
                "look at that change before removing it"
            )
        if mine_pairs & _edge_pairs(other) and (
            "disconnect" in (edit.kind, other.kind) or edit.kind == other.kind == "connect"
        ):
            source, target = min(mine_pairs & _edge_pairs(other))
            return f"the edges {source} -> {target} were changed in revision {revision}"
        # Sorted: which of several overlapping fields is named must not depend on hashing.
        for element, key, field in sorted(mine.fields):
            for other_element, other_key, other_field in sorted(theirs.fields):
                if element == other_element and key == other_key and _overlaps(field, other_field):
                    where = f"{element} {key}".strip()
                    return f"'{field}' of {where} was changed in revision {revision}"
    return None


def _edge_pairs(edit: Edit) -> set[tuple[int, int]]:
    if edit.kind == "connect" and edit.edge is not None:
        source, target = edit.edge.get("source"), edit.edge.get("target")
        if isinstance(source, int) and isinstance(target, int):
            return {(source, target)}
    if edit.kind in ("disconnect", "set_field") and edit.edge_key is not None:
        return {(edit.edge_key[0], edit.edge_key[1])}
    return set()
