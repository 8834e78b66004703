"""The savepoint shapes that cross to the browser: REST bodies, generated into its types
(`make wire`) and documented in the OpenAPI schema from these models."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, RootModel

from audit.events import Recorded
from compiler.state.restore import MatchedBy, Outcome
from compiler.state.savepoint import OperatorState, Savepoint, StateKind
from config.messages import UserRef, WireMessage
from pipelines.events import RestoreFailure, RestoreWarning

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
        """From a savepoint read from a file, whose every size is known."""
        sizes = [(s.kind, s.bytes) for s in state.sizes if s.bytes is not None]
        if state.has_state is None or len(sizes) != len(state.sizes):
            raise ValueError("a predicted savepoint's operator is not a savepoint file's")
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
            stateBytes=sum(size for _, size in sizes),
            sizes=[StateSizeEntry(kind=_kind(kind), bytes=size) for kind, size in sizes],
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
    writtenBy: int | None
    """The version whose job took it, when the uploader said."""


class SavepointSummaries(RootModel[list[SavepointSummary]]):
    """`GET /api/pipelines/<id>/savepoints/`: newest first."""


class SavepointDetail(SavepointSummary):
    operators: list[SavepointOperator]


def operators_of(savepoint: Savepoint) -> list[SavepointOperator]:
    return [SavepointOperator.of(state) for state in savepoint.operators]


# The restore check ----------------------------------------------------------------------


class RestoreTarget(WireMessage):
    """The operator of the checked version that takes a savepoint operator's state."""

    node: int
    name: str
    operator: str
    """Its kind (`map`, `reduce`, ...)."""
    operatorId: HexId
    """The ID that matched."""
    matchedBy: MatchedBy
    vertexId: HexId
    vertexName: str
    parallelism: int
    maxParallelism: int
    """The vertex's max parallelism as the restore leaves it."""


class OperatorRestore(WireMessage):
    """What becomes of one operator state of the savepoint, in the file's order."""

    operatorId: HexId
    name: str | None
    uid: str | None
    parallelism: int
    maxParallelism: int
    state: list[StateSizeEntry]
    hasState: bool
    outcome: Outcome
    target: RestoreTarget | None
    reasons: list[str]
    """Why it went where it went, or nowhere: which hash input changed, what to set."""
    suggestedNode: int | None
    """For `lost` state: the node of the checked version that should take it over (the
    operator that wrote it, or one of the same name and kind) by a uidHash set to
    `operatorId`, when one restores no other state; null otherwise."""


class NewOperator(WireMessage):
    """An operator of the checked version that restores nothing: it starts empty."""

    node: int
    name: str
    operator: str
    operatorId: HexId
    vertexId: HexId
    stateful: bool


class RestoreRescale(WireMessage):
    """The rescale the version was checked with."""

    vertex: HexId | None
    """The JobVertex given `parallelism`; null: the job's default parallelism."""
    parallelism: int


class RestoreCheck(WireMessage):
    """`GET /api/pipelines/<id>/savepoints/<sid>/check/`: what Flink 2.3 does when the
    version (or the working copy) is started from the savepoint."""

    savepoint: SavepointSummary
    checked: int | Literal["working"]
    """The version checked, or the working copy."""
    revision: int | None
    """The working copy's revision checked; null for a version."""
    comparedWith: int | None
    """The version that wrote the savepoint, when its uploader said: lost state is then
    explained by what changed since."""
    rescale: RestoreRescale | None
    """The version was checked rescaled so (null: as it is)."""
    restores: bool
    verdict: str
    """The answer in one sentence: "Restores", "Fails: state of Sum (90bea66d...) has no
    operator in this version"."""
    allowNonRestoredState: bool
    failure: RestoreFailure | None
    restoresAllowingNonRestoredState: bool
    operators: list[OperatorRestore]
    newOperators: list[NewOperator]
    warnings: list[RestoreWarning]

    @classmethod
    def of(cls, check: dict[str, Any], **context: Any) -> RestoreCheck:
        """From `compiler.state.restore.RestoreCheck.to_json()`, which must fit this shape."""
        return cls.model_validate({**check, **context})


# The audit record ---------------------------------------------------------------------------


class _SavepointRecord(Recorded):
    savepoint: int
    label: str
    """Its label then."""


class SavepointUploadedRecord(_SavepointRecord):
    kind: Literal["savepoint_uploaded"] = "savepoint_uploaded"
    current: bool
    """Whether it was made the pipeline's current savepoint as it was uploaded."""


class SavepointMarkedCurrentRecord(_SavepointRecord):
    kind: Literal["savepoint_marked_current"] = "savepoint_marked_current"


class SavepointCurrentClearedRecord(_SavepointRecord):
    """It stopped being the current savepoint, and none took its place."""

    kind: Literal["savepoint_current_cleared"] = "savepoint_current_cleared"


class SavepointDeletedRecord(_SavepointRecord):
    kind: Literal["savepoint_deleted"] = "savepoint_deleted"
    current: bool
    """Whether it was the current savepoint until then."""
