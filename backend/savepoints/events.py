"""The savepoint shapes that cross to the browser: REST bodies, generated into its types
(`make wire`) and documented in the OpenAPI schema from these models."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, RootModel

from compiler.savepoint import OperatorState, Savepoint, StateKind
from config.messages import UserRef, WireMessage

HexId = Annotated[str, Field(pattern="^[0-9a-f]{32}$")]
StateKindName = Literal[
    "keyed",
    "keyed-raw",
    "operator-list",
    "operator-union",
    "operator-broadcast",
    "operator-raw",
    "coordinator",
    "input-channel",
    "output-channel",
]


class StateSizeEntry(WireMessage):
    kind: StateKindName
    bytes: int
    """What Flink's state handles report, over all subtasks."""


class SavepointOperator(WireMessage):
    """One operator's state in a savepoint, in the file's order."""

    operatorId: HexId
    name: str | None
    """Written by Flink 1.17 and later (format 5 on); null before."""
    uid: str | None
    parallelism: int
    maxParallelism: int
    subtasks: int
    finishedSubtasks: int
    fullyFinished: bool
    hasState: bool
    """False when the operator holds no state: Flink lets such an entry go unrestored."""
    stateBytes: int
    sizes: list[StateSizeEntry]

    @classmethod
    def of(cls, state: OperatorState) -> SavepointOperator:
        return cls(
            operatorId=state.hex_id,
            name=state.name,
            uid=state.uid,
            parallelism=state.parallelism,
            maxParallelism=state.max_parallelism,
            subtasks=state.subtasks,
            finishedSubtasks=state.finished_subtasks,
            fullyFinished=state.fully_finished,
            hasState=state.has_state,
            stateBytes=state.state_bytes,
            sizes=[StateSizeEntry(kind=_kind(s.kind), bytes=s.bytes) for s in state.sizes],
        )


def _kind(kind: StateKind) -> StateKindName:
    # The Literal lists StateKind's values (a test holds them equal).
    return kind.value


class SavepointSummary(WireMessage):
    """An uploaded savepoint, without its operators."""

    id: int
    label: str
    size: int
    """Bytes of the `_metadata` file."""
    sha256: str
    formatVersion: int
    """The metadata format Flink wrote (3 to 7: Flink 1.15 to 2.3)."""
    checkpointId: int
    operatorCount: int
    isCurrent: bool
    """The savepoint production restores from: the plan review's state-loss gate uses it."""
    uploadedBy: UserRef | None
    uploadedAt: datetime


class SavepointSummaries(RootModel[list[SavepointSummary]]):
    """`GET /api/pipelines/<id>/savepoints/`: newest first."""


class SavepointDetail(SavepointSummary):
    operators: list[SavepointOperator]


def operators_of(savepoint: Savepoint) -> list[SavepointOperator]:
    return [SavepointOperator.of(state) for state in savepoint.operators]
