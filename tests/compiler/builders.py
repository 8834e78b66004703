"""A small builder of `streamgraph/v1` documents for tests.

    doc = (
        GraphBuilder("job")
        .config(default_parallelism=4)
        .node(1, "Source: src", strategy="HEAD")
        .node(2, "Map")
        .edge(1, 2)
        .build()
    )

Nodes default to parallelism 1, strategy ALWAYS, no max parallelism, an unset
(inherited) slot sharing group and the OPERATOR factory; edges to FORWARD,
UNDEFINED exchange mode and typeNumber 0. `build()` returns a fresh deep copy,
so a test may mutate it freely.
"""

from __future__ import annotations

import copy
from typing import Any

_CONFIG_KEYS = {
    "chaining_enabled": "chainingEnabled",
    "default_parallelism": "defaultParallelism",
    "max_parallelism": "maxParallelism",
    "runtime_mode": "runtimeMode",
    "chain_operators_with_different_max_parallelism": "chainOperatorsWithDifferentMaxParallelism",
}


class GraphBuilder:
    def __init__(self, name: str = "test-job") -> None:
        self._name = name
        self._config: dict[str, Any] = {
            "chainingEnabled": True,
            "defaultParallelism": 1,
            "maxParallelism": -1,
            "runtimeMode": "STREAMING",
            "chainOperatorsWithDifferentMaxParallelism": True,
        }
        self._nodes: list[dict[str, Any]] = []
        self._edges: list[dict[str, Any]] = []
        self._extra: dict[str, Any] = {}

    def config(self, **settings: Any) -> GraphBuilder:
        """Set config values by snake_case name (`chaining_enabled=False`, ...)."""
        for key, value in settings.items():
            self._config[_CONFIG_KEYS[key]] = value
        return self

    def node(
        self,
        node_id: int,
        name: str,
        *,
        parallelism: int = 1,
        max_parallelism: int = -1,
        strategy: str = "ALWAYS",
        slot_sharing_group: str | None = None,
        co_location_group: str | None = None,
        uid: str | None = None,
        uid_hash: str | None = None,
        factory: str = "OPERATOR",
        operator: str = "map",
        **extra: Any,
    ) -> GraphBuilder:
        """Add a node; `extra` keys (e.g. `params`, `ui`) are copied into it as given."""
        node: dict[str, Any] = {
            "id": node_id,
            "name": name,
            "operator": operator,
            "params": {},
            "parallelism": parallelism,
            "maxParallelism": max_parallelism,
            "chainingStrategy": strategy,
            "slotSharingGroup": slot_sharing_group,
            "coLocationGroup": co_location_group,
            "uid": uid,
            "uidHash": uid_hash,
            "factory": factory,
        }
        node.update(extra)
        self._nodes.append(node)
        return self

    def edge(
        self,
        source: int,
        target: int,
        *,
        partitioner: str = "FORWARD",
        exchange_mode: str = "UNDEFINED",
        type_number: int = 0,
        side_output_tag: str | None = None,
        **extra: Any,
    ) -> GraphBuilder:
        edge: dict[str, Any] = {
            "source": source,
            "target": target,
            "partitioner": partitioner,
            "exchangeMode": exchange_mode,
            "typeNumber": type_number,
            "sideOutputTag": side_output_tag,
        }
        edge.update(extra)
        self._edges.append(edge)
        return self

    def extra(self, **keys: Any) -> GraphBuilder:
        """Top-level keys beyond the standard ones (e.g. `meta`)."""
        self._extra.update(keys)
        return self

    def build(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "format": "streamgraph/v1",
            "name": self._name,
            "config": self._config,
            "nodes": self._nodes,
            "edges": self._edges,
        }
        document.update(self._extra)
        return copy.deepcopy(document)


def chain(
    *names: str,
    parallelism: int = 1,
    partitioner: str = "FORWARD",
    first_strategy: str = "HEAD",
) -> GraphBuilder:
    """A straight pipeline of nodes 1..n with the given names and equal parallelism."""
    builder = GraphBuilder()
    for position, name in enumerate(names, start=1):
        builder.node(
            position,
            name,
            parallelism=parallelism,
            strategy=first_strategy if position == 1 else "ALWAYS",
        )
        if position > 1:
            builder.edge(position - 1, position, partitioner=partitioner)
    return builder
