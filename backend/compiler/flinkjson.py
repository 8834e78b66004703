"""Flink's own JSON plans: `env.getExecutionPlan()` and REST `/jobs/:id/plan`.

`execution_plan` writes the StreamGraph plan text of Flink's `JSONGenerator`
byte for byte (Jackson's pretty printer included); `streamgraph_from_execution_plan`
reads such a text back into a `streamgraph/v1` document, with Flink's defaults
for everything the plan does not say; `job_plan` writes the compact JobGraph plan
of `JsonPlanGenerator` that Flink's REST API serves.
"""

from __future__ import annotations

import json
from html.entities import codepoint2name
from typing import Any

from compiler.chaining import ChainPlan
from compiler.document import FORMAT, default_partitioner
from compiler.hashing import to_hex
from compiler.jobgraph import JobGraph, JobVertex
from compiler.model import NodeId, Partitioner, StreamGraph

# Jackson escapes control characters as a \u escape with four upper-case hex digits,
# except these, which get their short forms.
_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}
_NON_SINK_SINK_KINDS = frozenset({"sink.writer", "sink.committer"})


def jackson_string(text: str) -> str:
    """A JSON string literal exactly as Jackson writes it (non-ASCII left raw)."""
    out = ['"']
    for char in text:
        escaped = _SHORT_ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif char < " ":
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def is_data_sink(graph: StreamGraph, node_id: NodeId) -> bool:
    """Whether Flink lists the node in `StreamGraph.sinks` (a legacy `addSink` sink).

    The document has no such flag; the operator kind says it: `sink` and
    `sink.*`, except the Writer and Committer nodes Flink expands a Sink V2 into,
    which Flink does not register as sinks.
    """
    operator = graph.nodes[node_id].operator
    return (operator == "sink" or operator.startswith("sink.")) and (
        operator not in _NON_SINK_SINK_KINDS
    )


def execution_plan(graph: StreamGraph) -> str:
    """`StreamGraph.getStreamingPlanAsJSON()` (`JSONGenerator`), byte for byte."""
    sinks = {nid for nid in graph.nodes if is_data_sink(graph, nid)}
    sources = set(graph.source_ids)
    ordered = sorted(graph.nodes, key=lambda nid: (nid in sinks, nid))
    objects: list[str] = []
    for nid in ordered:
        node = graph.nodes[nid]
        pact = "Data Source" if nid in sources else "Data Sink" if nid in sinks else "Operator"
        fields = [
            f'    "id" : {nid}',
            f'    "type" : {jackson_string(node.name)}',
            f'    "pact" : {jackson_string(pact)}',
            f'    "contents" : {jackson_string(node.name)}',
            f'    "parallelism" : {node.parallelism}',
        ]
        if nid not in sources:
            predecessors = [
                "{\n"
                f'      "id" : {edge.source},\n'
                f'      "ship_strategy" : {jackson_string(edge.partitioner.value)},\n'
                '      "side" : "second"\n'
                "    }"
                for edge in graph.in_edges[nid]
            ]
            fields.append(
                '    "predecessors" : '
                + ("[ " + ", ".join(predecessors) + " ]" if predecessors else "[ ]")
            )
        objects.append("{\n" + ",\n".join(fields) + "\n  }")
    body = "[ " + ", ".join(objects) + " ]" if objects else "[ ]"
    return '{\n  "nodes" : ' + body + "\n}"


_KNOWN_KINDS = {
    "Map": "map",
    "Filter": "filter",
    "FlatMap": "flat_map",
    "Reduce": "reduce",
    "Keyed Reduce": "reduce",
    "_stream_key_by_map_operator": "key_by",
    "Sink: Print to Std. Out": "sink.print",
}


def streamgraph_from_execution_plan(plan_text: str, *, name: str = "imported") -> dict[str, Any]:
    """A `streamgraph/v1` document from the text of `env.getExecutionPlan()`.

    The plan lacks chaining strategies, max parallelism, slot sharing groups,
    uids, exchange modes and input positions; they get Flink's defaults
    (ALWAYS, not set, "default", none, UNDEFINED, 0). Sources become FLIP-27
    sources, as Flink 2's own sources are. A FORWARD edge between equal
    parallelism and a REBALANCE edge between different parallelism are what
    Flink picks when a program chooses no partitioner, and the plan cannot say
    whether it did: they are read as not chosen (null), so they keep following
    the parallelism as the editor changes it. Raises `ValueError` with the
    offending node when the text is not such a plan.
    """
    try:
        plan = json.loads(plan_text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON: {error}") from error
    if not isinstance(plan, dict) or not isinstance(plan.get("nodes"), list):
        raise ValueError("a Flink execution plan is an object with a 'nodes' list")
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for position, raw in enumerate(plan["nodes"]):
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), int):
            raise ValueError(f"nodes[{position}] needs an integer 'id'")
        node_id = raw["id"]
        node_name = raw.get("type")
        pact = raw.get("pact")
        parallelism = raw.get("parallelism")
        if not isinstance(node_name, str) or not isinstance(parallelism, int):
            raise ValueError(f"node {node_id} needs a string 'type' and an integer 'parallelism'")
        is_source = pact == "Data Source"
        # Not a catalog kind unless the name says which: the user chooses what it runs.
        kind = _KNOWN_KINDS.get(node_name) or (
            "source" if is_source else "sink" if pact == "Data Sink" else ""
        )
        nodes.append(
            {
                "id": node_id,
                "name": node_name,
                "operator": kind,
                "params": {},
                "parallelism": parallelism,
                "maxParallelism": -1,
                "chainingStrategy": "ALWAYS",
                "slotSharingGroup": "default",
                "coLocationGroup": None,
                "uid": None,
                "uidHash": None,
                "factory": "SOURCE" if is_source else "OPERATOR",
            }
        )
        for predecessor in raw.get("predecessors", []):
            strategy = predecessor.get("ship_strategy") if isinstance(predecessor, dict) else None
            if strategy not in Partitioner.__members__:
                raise ValueError(f"node {node_id}: unknown ship_strategy {strategy!r}")
            edges.append(
                {
                    "source": predecessor.get("id"),
                    "target": node_id,
                    "partitioner": strategy,
                    "exchangeMode": "UNDEFINED",
                    "typeNumber": 0,
                    "sideOutputTag": None,
                }
            )
    parallelism_of = {node["id"]: node["parallelism"] for node in nodes}
    for edge in edges:
        if parallelism_of.get(edge["source"]) is None:
            continue  # not a node of the plan: the document's reader reports it
        default = default_partitioner(
            parallelism_of[edge["source"]], parallelism_of[edge["target"]]
        )
        if edge["partitioner"] == default.value:
            edge["partitioner"] = None
    parallelisms = [n["parallelism"] for n in nodes] or [1]
    return {
        "format": FORMAT,
        "name": name,
        "config": {
            "chainingEnabled": True,
            "defaultParallelism": max(1, max(parallelisms)),
            "maxParallelism": -1,
            "runtimeMode": "STREAMING",
            "chainOperatorsWithDifferentMaxParallelism": True,
        },
        "nodes": nodes,
        "edges": edges,
        "meta": {"importedFrom": "flink-execution-plan"},
    }


def vertex_pretty_name(graph: StreamGraph, plan: ChainPlan, vertex: JobVertex) -> str:
    """`operatorPrettyName` in Flink's default TREE description mode.

    The head's line, then each chained child depth first in out-edge order,
    prefixed `:- ` (more siblings follow) or `+- ` (last sibling).
    """
    head = graph.nodes[vertex.head]
    out = [head.name]
    if vertex.chained_sources:
        chained = set(vertex.chained_sources)
        sources = [
            graph.nodes[e.source].name for e in graph.in_edges[head.id] if e.source in chained
        ]
        out.append(" [" + ", ".join(sources) + "]")
    out.append("\n")
    work: list[tuple[NodeId, str, bool]] = []  # (node, prefix, is last sibling)

    def push_children(nid: NodeId, prefix: str) -> None:
        children = [
            e.target
            for e in graph.out_edges[nid]
            if plan.head_of.get(e.target) == vertex.head
            and e.target != vertex.head
            and e.target not in vertex.chained_sources
        ]
        for position in range(len(children) - 1, -1, -1):
            work.append((children[position], prefix, position == len(children) - 1))

    push_children(vertex.head, "")
    while work:
        nid, prefix, last = work.pop()
        out.append(prefix + ("+- " if last else ":- ") + graph.nodes[nid].name + "\n")
        push_children(nid, prefix + ("   " if last else ":  "))
    return "".join(out)


def _html_escape(text: str) -> str:
    """commons-lang3 `escapeHtml4`: the HTML 4.01 named entities."""
    return "".join(f"&{codepoint2name[ord(c)]};" if ord(c) in codepoint2name else c for c in text)


def job_plan(
    graph: StreamGraph, plan: ChainPlan, job_graph: JobGraph, *, job_id: str = "0" * 32
) -> str:
    """`JsonPlanGenerator.generatePlan(jobGraph)`: what REST `/jobs/:id/plan` returns.

    Flink's job id is random; pass the real one to reproduce a given job's text.
    """
    parts: list[str] = []
    for vertex in job_graph.vertices_in_creation_order:
        description = _html_escape(vertex_pretty_name(graph, plan, vertex))
        description = description.replace("\\", "&#92;").replace("\n", "<br/>")
        node = (
            f'{{"id":{jackson_string(to_hex(vertex.id))},"parallelism":{vertex.parallelism},'
            f'"operator":"","operator_strategy":"","description":{jackson_string(description)}'
        )
        if vertex.inputs:
            inputs = [
                f'{{"num":{number},"id":{jackson_string(to_hex(edge.producer))},'
                f'"ship_strategy":{jackson_string(edge.ship_strategy.value)},'
                f'"exchange":{jackson_string(edge.result_partition_type.value.lower())}}}'
                for number, edge in enumerate(vertex.inputs)
            ]
            node += ',"inputs":[' + ",".join(inputs) + "]"
        parts.append(node + ',"optimizer_properties":{}}')
    return (
        f'{{"jid":{jackson_string(job_id)},"name":{jackson_string(job_graph.name)},'
        f'"type":{jackson_string(job_graph.job_type.value)},"nodes":[' + ",".join(parts) + "]}"
    )
