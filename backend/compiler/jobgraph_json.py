"""The `jobgraph/v1` document: hashes and the JobGraph, as the fixtures describe them."""

from __future__ import annotations

from typing import Any

from compiler.hashing import to_hex
from compiler.jobgraph import JobEdge, JobGraph, JobVertex
from compiler.model import Hash128, NodeId

FORMAT = "jobgraph/v1"
FLINK_VERSION = "2.3.0"


def job_graph_to_json(job_graph: JobGraph, hashes: dict[NodeId, Hash128]) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "name": job_graph.name,
        "flinkVersion": FLINK_VERSION,
        "jobType": job_graph.job_type.value,
        "dynamic": False,
        "maximumParallelism": job_graph.maximum_parallelism,
        "slotsRequired": job_graph.slots_required,
        "slotSharingGroups": [
            {"index": g.index, "name": g.name, "slots": g.slots}
            for g in job_graph.slot_sharing_groups
        ],
        "hashes": {str(nid): to_hex(hashes[nid]) for nid in sorted(hashes)},
        "vertices": [_vertex(v) for v in job_graph.vertices],
    }


def _vertex(vertex: JobVertex) -> dict[str, Any]:
    return {
        "id": to_hex(vertex.id),
        "name": vertex.name,
        "parallelism": vertex.parallelism,
        "maxParallelism": vertex.max_parallelism,
        "headNode": vertex.head,
        "nodes": list(vertex.nodes),
        "operatorIds": [
            {"generated": to_hex(generated), "userDefined": _hex_or_none(user)}
            for generated, user in vertex.operator_ids
        ],
        "slotSharingGroup": vertex.slot_sharing_group,
        "slotSharingGroupName": vertex.slot_sharing_group_name,
        "coLocationGroup": vertex.co_location_group,
        "isInputVertex": vertex.is_input_vertex,
        "isOutputVertex": vertex.is_output_vertex,
        "inputs": [_input(edge) for edge in vertex.inputs],
        "outputs": [
            {
                "id": to_hex(data_set.id),
                "resultPartitionType": data_set.result_partition_type.value,
                "consumers": [to_hex(edge.target) for edge in data_set.consumers],
            }
            for data_set in vertex.produced_data_sets
        ],
    }


def _input(edge: JobEdge) -> dict[str, Any]:
    return {
        "producer": to_hex(edge.producer),
        "dataSet": to_hex(edge.data_set),
        "distributionPattern": edge.distribution_pattern.value,
        "resultPartitionType": edge.result_partition_type.value,
        "shipStrategy": edge.ship_strategy.value,
        "typeNumber": edge.type_number,
        "isBroadcast": edge.is_broadcast,
        "isForward": edge.is_forward,
    }


def _hex_or_none(value: int | None) -> str | None:
    return None if value is None else to_hex(value)
