"""Writes to runs: start one, cancel one, and fail the runs whose worker was lost.

Starting checks everything that would stop the run before anything is queued: the role,
the version, the run's parameters, and the compiled plan with the runtime's catalog
(`runtime.runnability`); problems come back as diagnostics on the nodes. A run
changes only through its journal (`runs.journal`), under its row lock.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Role
from accounts.permissions import authenticated_user, require_role
from audit.services import audit_record
from compiler.diagnostics import Diagnostic, Severity
from compiler.pipeline import compile_document
from config.errors import ApplicationError, Conflict, InvalidRequest
from config.messages import UserRef
from pipelines.events import RunStarted, publish_after_commit
from pipelines.models import Pipeline, PipelineVersion
from reviews.selectors import version_run_refusal
from runs import control
from runs.clusters import cluster_get
from runs.events import RunRefusedRecord
from runs.journal import append, close, monitor_state, run_fields, set_status
from runs.models import ON_A_WORKER, Run, RunStatus
from runs.selectors import lost_worker_error, run_effective_status
from runs.tasks import execute_run, run_queue
from runtime.clusters import DEFAULT, limit_problems
from runtime.monitoring import RunMonitor, monitored_vertices
from runtime.parameters import ParameterError, check_parameters, document_for_run
from runtime.runnability import runnability

Actor = AbstractBaseUser | AnonymousUser
logger = logging.getLogger(__name__)


class RunRejected(ApplicationError):
    """The version cannot run; the diagnostics say where (node, edge, field)."""

    code = "not-runnable"

    def __init__(self, diagnostics: list[Diagnostic], *, version: int) -> None:
        first, count = diagnostics[0], len(diagnostics)
        super().__init__(
            f"Version {version} cannot run: {count} problem{'s' if count != 1 else ''}, "
            f"first {first.location.describe()}: {first.message}",
            diagnostics=diagnostics,
        )


def run_start(
    *,
    pipeline: Pipeline,
    actor: Actor,
    version: int,
    cluster: str | None = None,
    parameters: Mapping[str, Any] | None = None,
) -> Run:
    """Queue a run of a saved version (editors) on a cluster of the server's (`default`
    unless an owner chooses another); refused with diagnostics if it cannot run there."""
    user = authenticated_user(actor)
    require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.EDITOR)
    profile = cluster_get(cluster)
    if profile.name != DEFAULT:
        require_role(user=user, workspace=pipeline.workspace_id, minimum=Role.OWNER)
    try:
        checked = check_parameters(parameters, faults_allowed=settings.RUN_FAULT_INJECTION)
    except ParameterError as error:
        raise InvalidRequest(str(error), fields=error.fields) from error
    saved = PipelineVersion.objects.filter(pipeline=pipeline, number=version).first()
    if saved is None:
        raise InvalidRequest(
            f"The pipeline has no version {version}.",
            fields={"version": [f"The pipeline has no version {version}."]},
        )
    if (refusal := version_run_refusal(version=saved)) is not None:
        code = "version-not-approved"
        # Recorded before refusing: nothing else keeps that the gate held.
        refused = RunRefusedRecord(version=version, code=code, reason=refusal)
        audit_record(
            workspace_id=pipeline.workspace_id, pipeline_id=pipeline.pk, actor=user, record=refused
        )
        raise InvalidRequest(refusal, code=code, fields={"version": [refusal]})
    document, problems = document_for_run(saved.document, checked)
    compilation = compile_document(document)
    problems += [d for d in compilation.diagnostics if d.severity is Severity.ERROR]
    if compilation.graph is not None:
        problems += [d for d in runnability(document) if d.severity is Severity.ERROR]
    if compilation.execution is not None:
        problems += limit_problems(compilation.execution, profile)
    if problems or compilation.execution is None:
        raise RunRejected(problems, version=version)
    vertices = monitored_vertices(compilation.execution)
    with transaction.atomic():
        run = Run.objects.create(
            pipeline=pipeline,
            version=saved,
            started_by=user,
            cluster=profile.name,
            spark_master=profile.master,
            parameters=checked,
            key=uuid.uuid4().hex,
            vertices=[v.to_json() for v in vertices],
            state=monitor_state(RunMonitor(vertices)),
        )
        run_id = run.pk
        started = RunStarted(
            run=run_id, version=version, user=UserRef(id=user.pk, username=user.get_username())
        )
        queue = run_queue(profile.name)
        transaction.on_commit(lambda: _enqueue(run_id, queue))
        publish_after_commit(pipeline.pk, started)
    return run


def _enqueue(run_id: int, queue: str) -> None:
    """Hand the run to the workers; if the broker (Redis) is away, fail it at once, saying
    so, rather than leave it queued where no worker will ever find it."""
    try:
        execute_run.apply_async((run_id,), queue=queue)
    except Exception as error:
        logger.exception("run %s could not be queued", run_id)
        with transaction.atomic():
            run = Run.objects.select_for_update().get(pk=run_id)
            if run.run_status is RunStatus.QUEUED:
                message = f"the run could not be queued for a worker: {error}"
                close(run, RunStatus.FAILED, error=message)


def run_cancel(*, run: Run, actor: Actor) -> Run:
    """Cancel a run (editors): a queued run ends CANCELED now; a running one goes
    CANCELING, its worker stops the Spark jobs and ends it CANCELED. Either way the run
    records who canceled it."""
    user = authenticated_user(actor)
    require_role(user=user, workspace=run.pipeline.workspace_id, minimum=Role.EDITOR)
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        # A run whose worker was lost has ended for everyone who reads it, reaped or not.
        status = run_effective_status(locked)
        if status.is_terminal:
            raise Conflict(
                f"The run has already ended ({status.value}).",
                code="run-ended",
            )
        if status is RunStatus.CANCELING:
            return locked
        if status is RunStatus.QUEUED:
            close(locked, RunStatus.CANCELED, canceled_by=user)
        else:
            before = run_fields(locked)
            locked.canceled_by = user
            set_status(locked, RunStatus.CANCELING)
            append(locked, before=before)
            key = locked.key
            # Best effort: the worker also reads the run's status every second.
            transaction.on_commit(lambda: control.request_cancel(key), robust=True)
    return locked


def run_mark_lost(*, run_id: int | None = None) -> list[int]:
    """FAIL every run (or just `run_id`) whose worker stopped beating; their ids.

    Called periodically by the reaper (`runs.reaper`) of the web server and of every
    worker; reads show such a run as this leaves it (`runs.selectors.run_loss`).
    """
    cutoff = timezone.now() - timedelta(seconds=settings.RUN_HEARTBEAT_TIMEOUT)
    stale = Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True)
    candidates = Run.objects.filter(stale, status__in=ON_A_WORKER)
    if run_id is not None:
        candidates = candidates.filter(pk=run_id)
    lost = []
    for candidate in candidates.values_list("pk", flat=True):
        with transaction.atomic():
            run = Run.objects.filter(stale, pk=candidate, status__in=ON_A_WORKER)
            locked = run.select_for_update().first()
            if locked is None:
                continue  # it beat, ended or was reaped meanwhile
            close(locked, RunStatus.FAILED, error=lost_worker_error(locked), abandon=True)
            key = locked.key
            # If the worker is alive but stuck, it stops the Spark work when it can.
            transaction.on_commit(lambda key=key: control.request_cancel(key), robust=True)  # type: ignore[misc]
        lost.append(candidate)
    return lost
