"""The `executiongraph/v1` document: subtasks, partitions and how they are wired.

Sizes stay O(vertices + subtasks + partitions): an edge lists its partition
groups and, per consumer subtask, the ranges it reads, never one entry per
(producer, consumer) pair.
"""

from __future__ import annotations

from typing import Any

from compiler.execution import ExecutionEdge, ExecutionGraph, ExecutionJobVertex
from compiler.hashing import to_hex
from compiler.jobgraph import JobGraph

FORMAT = "executiongraph/v1"


def _span(values: range) -> list[int]:
    """Inclusive [first, last] of a non-empty range."""
    return [values[0], values[-1]]


def execution_to_json(job_graph: JobGraph, execution: ExecutionGraph) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "name": job_graph.name,
        "jobType": job_graph.job_type.value,
        "totalSubtasks": execution.total_subtasks,
        "slotsRequired": job_graph.slots_required,
        "vertices": [_vertex(v) for v in execution.vertices],
        "edges": [_edge(e) for e in execution.edges],
    }


def _vertex(vertex: ExecutionJobVertex) -> dict[str, Any]:
    job_vertex = vertex.job_vertex
    return {
        "id": to_hex(vertex.id),
        "name": job_vertex.name,
        "parallelism": vertex.parallelism,
        "maxParallelism": vertex.max_parallelism,
        "maxParallelismDerived": vertex.max_parallelism_derived,
        "jobGraphMaxParallelism": job_vertex.max_parallelism,
        "slotSharingGroup": job_vertex.slot_sharing_group,
        "subtasks": [
            {
                "index": i,
                "name": vertex.subtask_name(i),
                "executionVertexId": f"{to_hex(vertex.id)}_{i}",
                "keyGroupRange": list(vertex.key_group_range(i)),
            }
            for i in range(vertex.parallelism)
        ],
        "results": [
            {
                "id": to_hex(data_set.id),
                "resultPartitionType": data_set.result_partition_type.value,
                "partitions": vertex.parallelism,
                "partitionIdPattern": f"{to_hex(data_set.id)}#<subtask>",
            }
            for data_set in job_vertex.produced_data_sets
        ],
    }


def _edge(edge: ExecutionEdge) -> dict[str, Any]:
    job_edge = edge.job_edge
    return {
        "producer": to_hex(job_edge.producer),
        "consumer": to_hex(job_edge.target),
        "dataSet": to_hex(job_edge.data_set),
        "distributionPattern": job_edge.distribution_pattern.value,
        "shipStrategy": job_edge.ship_strategy.value,
        "producerParallelism": edge.producer_parallelism,
        "consumerParallelism": edge.consumer_parallelism,
        "maxEdgesToTarget": edge.max_edges_to_target,
        "groups": [
            {"partitions": _span(g.partitions), "consumers": _span(g.consumers)}
            for g in edge.groups
        ],
        "subpartitionsPerPartition": [
            edge.number_of_subpartitions(p) for p in range(edge.producer_parallelism)
        ],
        "consumers": [
            {
                "index": i,
                "partitions": _span(edge.group_of_consumer(i).partitions),
                "subpartitions": _span(edge.subpartitions_read_by(i)),
            }
            for i in range(edge.consumer_parallelism)
        ],
    }
