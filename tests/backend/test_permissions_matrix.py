"""Every REST endpoint x every role: anonymous 401, non-member 404, too low a role 403.

Each row names the least role the action needs (`auth`: any signed-in user,
`public`: anyone, signed in or not) and
the status it answers when allowed; the expected status for each role follows
from the rule the issue sets, and the test checks both the status and that
every refusal is in the one error shape.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import Role
from compiler.hashing import to_hex
from compiler.model import NodeId
from compiler.pipeline import compile_document
from reviews.models import Comment, CommentThread, VerdictKind
from reviews.services import (
    Target,
    review_request_create,
    review_verdict_create,
    thread_create,
)
from tests.backend.factories import (
    PASSWORD,
    ROLES,
    Team,
    add_member,
    make_document,
    make_savepoint,
    make_team,
    make_user,
    savepoint_bytes,
)
from tests.backend.runs_support import make_run, make_runnable_version

pytestmark = pytest.mark.django_db

RANK = {"viewer": 0, "editor": 1, "owner": 2}
_newcomers = itertools.count(1)


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    url: Callable[[Team], str]
    minimum: str
    success: int
    body: Callable[[Team], dict[str, Any]] | None = None
    format: str | None = None
    """The body's encoding when it is not the client's default (JSON): `multipart`."""


def _ws(team: Team) -> str:
    return f"/api/workspaces/{team.workspace.pk}/"


def _p(team: Team) -> str:
    return f"/api/pipelines/{team.pipeline.pk}/"


def _run(team: Team) -> str:
    return f"/api/runs/{make_run(version=make_runnable_version(pipeline=team.pipeline)).pk}/"


def _open_thread(team: Team, author: User | None = None) -> CommentThread:
    """A thread on Reduce, opened by `author` (the owner if not given)."""
    return thread_create(
        pipeline=team.pipeline,
        actor=author or team.owner,
        target=Target(kind="node", node=3),
        body="Why HASH?",
    )


def _thread(team: Team) -> str:
    return _p(team) + f"comments/{_open_thread(team).pk}/"


def _comment(team: Team, author: User | None) -> str:
    thread = _open_thread(team, author)
    return _p(team) + f"comments/{thread.pk}/{thread.comments.get().pk}/"


def _savepoint(team: Team) -> str:
    return _p(team) + f"savepoints/{make_savepoint(pipeline=team.pipeline).pk}/"


def _savepoint_upload(team: Team) -> dict[str, Any]:
    return {"file": SimpleUploadedFile("_metadata", savepoint_bytes()), "label": "production"}


def _leave(team: Team) -> str:
    """A second owner first, so the owner may leave too (the last one may not:
    test_workspaces.py)."""
    add_member(workspace=team.workspace, role=Role.OWNER)
    return _ws(team) + "leave/"


def _reduce_vertex() -> str:
    """The JobVertexID of Reduce in `make_document()`."""
    job_graph = compile_document(make_document()).job_graph
    assert job_graph is not None
    return to_hex(job_graph.vertex_of_node[NodeId(3)])


def _verdicts(team: Team) -> str:
    """Version 1 up for review by every member, so any member may answer."""
    request = review_request_create(
        version=team.pipeline.versions.get(number=1),
        actor=team.owner,
        reviewers=[team.owner.username, team.editor.username, team.viewer.username],
    )
    return _p(team) + f"versions/1/reviews/{request.pk}/verdicts/"


def _revoke(team: Team) -> str:
    """An approval of version 1 by a second owner, for an owner to revoke."""
    approver = add_member(workspace=team.workspace, role=Role.OWNER)
    version = team.pipeline.versions.get(number=1)
    request = review_request_create(
        version=version, actor=team.owner, reviewers=[approver.username]
    )
    given = review_verdict_create(request=request, actor=approver, verdict=VerdictKind.APPROVE)
    return _p(team) + f"versions/1/reviews/{request.pk}/verdicts/{given.pk}/revoke/"


ENDPOINTS = [
    Endpoint(
        "register",
        "post",
        lambda t: "/api/auth/register/",
        "public",
        201,
        lambda t: {"username": f"newcomer{next(_newcomers)}", "password": "quiet-harbour-lantern"},
    ),
    Endpoint(
        "sign in",
        "post",
        lambda t: "/api/auth/token/",
        "public",
        200,
        lambda t: {"username": t.owner.username, "password": PASSWORD},
    ),
    Endpoint("me", "get", lambda t: "/api/auth/me/", "auth", 200),
    Endpoint("sign out", "delete", lambda t: "/api/auth/token/", "auth", 204),
    Endpoint("workspaces list", "get", lambda t: "/api/workspaces/", "auth", 200),
    Endpoint(
        "workspaces create",
        "post",
        lambda t: "/api/workspaces/",
        "auth",
        201,
        lambda t: {"name": "New team"},
    ),
    Endpoint("workspace read", "get", _ws, "viewer", 200),
    Endpoint("workspace update", "patch", _ws, "owner", 200, lambda t: {"name": "Renamed"}),
    Endpoint("workspace delete", "delete", _ws, "owner", 204),
    Endpoint("workspace leave", "post", _leave, "viewer", 204),
    Endpoint("members list", "get", lambda t: _ws(t) + "members/", "viewer", 200),
    Endpoint(
        "members add",
        "post",
        lambda t: _ws(t) + "members/",
        "owner",
        201,
        lambda t: {"username": make_user().username, "role": "viewer"},
    ),
    Endpoint("member read", "get", lambda t: _ws(t) + f"members/{t.editor.pk}/", "viewer", 200),
    Endpoint(
        "member change",
        "patch",
        lambda t: _ws(t) + f"members/{t.editor.pk}/",
        "owner",
        200,
        lambda t: {"role": "viewer"},
    ),
    Endpoint("member remove", "delete", lambda t: _ws(t) + f"members/{t.editor.pk}/", "owner", 204),
    Endpoint("pipelines list", "get", lambda t: "/api/pipelines/", "auth", 200),
    Endpoint(
        "pipelines list of a workspace",
        "get",
        lambda t: f"/api/pipelines/?workspace={t.workspace.pk}",
        "viewer",
        200,
    ),
    Endpoint(
        "pipelines create",
        "post",
        lambda t: "/api/pipelines/",
        "editor",
        201,
        lambda t: {"workspace": t.workspace.pk, "name": "New pipeline"},
    ),
    Endpoint("pipeline read", "get", _p, "viewer", 200),
    Endpoint("pipeline summary", "get", lambda t: _p(t) + "summary/", "viewer", 200),
    Endpoint(
        "pipeline update",
        "patch",
        _p,
        "editor",
        200,
        lambda t: {"name": "Renamed", "document": make_document(parallelism=3)},
    ),
    Endpoint("pipeline delete", "delete", _p, "editor", 204),
    Endpoint("versions list", "get", lambda t: _p(t) + "versions/", "viewer", 200),
    Endpoint(
        "versions save",
        "post",
        lambda t: _p(t) + "versions/",
        "editor",
        201,
        lambda t: {"message": "checkpoint"},
    ),
    Endpoint("version read", "get", lambda t: _p(t) + "versions/1/", "viewer", 200),
    Endpoint("plan", "get", lambda t: _p(t) + "plan/", "viewer", 200),
    Endpoint("plan of a version", "get", lambda t: _p(t) + "plan/?version=1", "viewer", 200),
    Endpoint("diff", "get", lambda t: _p(t) + "diff/?from=1&to=working", "viewer", 200),
    Endpoint("rescale the job", "get", lambda t: _p(t) + "rescale/?parallelism=3", "viewer", 200),
    Endpoint(
        "rescale a version's vertex",
        "get",
        lambda t: _p(t) + f"rescale/?version=1&vertex={_reduce_vertex()}&parallelism=3",
        "viewer",
        200,
    ),
    Endpoint("export", "get", lambda t: _p(t) + "export/?format=streamgraph", "viewer", 200),
    Endpoint(
        "export flink plan", "get", lambda t: _p(t) + "export/?format=flink-plan", "viewer", 200
    ),
    Endpoint(
        "import",
        "post",
        lambda t: "/api/pipelines/import/",
        "editor",
        201,
        lambda t: {"workspace": t.workspace.pk, "name": "Imported", "content": make_document()},
    ),
    Endpoint("compile", "post", lambda t: "/api/compile/", "auth", 200, lambda t: make_document()),
    Endpoint("operator catalog", "get", lambda t: "/api/operators/", "auth", 200),
    Endpoint("runs list", "get", lambda t: _p(t) + "runs/", "viewer", 200),
    Endpoint(
        "run start",
        "post",
        lambda t: _p(t) + "runs/",
        "editor",
        201,
        lambda t: {"version": make_runnable_version(pipeline=t.pipeline).number},
    ),
    Endpoint("run read", "get", lambda t: _run(t), "viewer", 200),
    Endpoint("run cancel", "post", lambda t: _run(t) + "cancel/", "editor", 200),
    Endpoint("run journal", "get", lambda t: _run(t) + "journal/", "viewer", 200),
    Endpoint("clusters list", "get", lambda t: "/api/clusters/", "auth", 200),
    Endpoint("comments list", "get", lambda t: _p(t) + "comments/?at=1", "viewer", 200),
    Endpoint(
        "comments open a thread",
        "post",
        lambda t: _p(t) + "comments/",
        "viewer",
        201,
        lambda t: {"version": 1, "target": {"kind": "node", "node": 3}, "body": "@olivia why?"},
    ),
    Endpoint("comments summary", "get", lambda t: _p(t) + "comments/summary/", "viewer", 200),
    Endpoint("comment thread read", "get", _thread, "viewer", 200),
    Endpoint(
        "comment reply",
        "post",
        lambda t: _thread(t) + "replies/",
        "viewer",
        201,
        lambda t: {"body": "Because."},
    ),
    Endpoint("comment resolve", "post", lambda t: _thread(t) + "resolve/", "editor", 200),
    Endpoint("comment reopen", "post", lambda t: _thread(t) + "reopen/", "editor", 200),
    Endpoint("review states", "get", lambda t: _p(t) + "reviews/", "viewer", 200),
    Endpoint("review read", "get", lambda t: _p(t) + "versions/1/reviews/", "viewer", 200),
    Endpoint(
        "review request",
        "post",
        lambda t: _p(t) + "versions/1/reviews/",
        "editor",
        201,
        lambda t: {"reviewers": ["vera"], "message": "Please"},
    ),
    Endpoint("review verdict", "post", _verdicts, "viewer", 201, lambda t: {"verdict": "comment"}),
    Endpoint("approval revoke", "post", _revoke, "owner", 201, lambda t: {"reason": "Wrong plan"}),
    Endpoint("review policy read", "get", lambda t: _ws(t) + "review-policy/", "viewer", 200),
    Endpoint(
        "review policy change",
        "patch",
        lambda t: _ws(t) + "review-policy/",
        "owner",
        200,
        lambda t: {"requiredApprovals": 2},
    ),
    Endpoint("activity", "get", lambda t: _p(t) + "activity/", "viewer", 200),
    Endpoint("savepoints list", "get", lambda t: _p(t) + "savepoints/", "viewer", 200),
    Endpoint(
        "savepoint upload",
        "post",
        lambda t: _p(t) + "savepoints/",
        "editor",
        201,
        _savepoint_upload,
        format="multipart",
    ),
    Endpoint("savepoint read", "get", _savepoint, "viewer", 200),
    Endpoint("savepoint change", "patch", _savepoint, "editor", 200, lambda t: {"isCurrent": True}),
    Endpoint("savepoint delete", "delete", _savepoint, "editor", 204),
    Endpoint("savepoint check", "get", lambda t: _savepoint(t) + "check/", "viewer", 200),
    Endpoint("inbox", "get", lambda t: "/api/me/inbox/", "auth", 200),
    Endpoint("reviews waiting", "get", lambda t: "/api/me/reviews/", "auth", 200),
    Endpoint("mentions", "get", lambda t: "/api/me/mentions/", "auth", 200),
    Endpoint(
        "mentions read",
        "post",
        lambda t: "/api/me/mentions/read/",
        "auth",
        200,
        lambda t: {"all": True},
    ),
]


def expected_status(endpoint: Endpoint, role: str) -> int:
    if endpoint.minimum == "public":
        return endpoint.success
    if role == "anonymous":
        return 401
    if endpoint.minimum == "auth":
        return endpoint.success
    if role == "non-member":
        return 404
    return endpoint.success if RANK[role] >= RANK[endpoint.minimum] else 403


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=[e.name for e in ENDPOINTS])
def test_permission_matrix(endpoint: Endpoint, role: str) -> None:
    team = make_team()
    client = team.client(role)
    body = endpoint.body(team) if endpoint.body else None
    kwargs: dict[str, Any] = {} if body is None else {"data": body}
    if endpoint.format is not None:
        kwargs["format"] = endpoint.format

    response = getattr(client, endpoint.method)(endpoint.url(team), **kwargs)

    expected = expected_status(endpoint, role)
    assert response.status_code == expected, response.content[:300]
    if expected >= 400:
        error = response.json()["error"]
        assert set(error) == {"code", "message", "diagnostics", "fields"}
        assert (
            error["code"]
            == {
                401: "not-authenticated",
                403: "permission-denied",
                404: "not-found",
            }[expected]
        )


@pytest.mark.parametrize(
    ("role", "status"),
    [("anonymous", 401), ("non-member", 404), ("viewer", 403), ("editor", 403)],
)
def test_refused_writes_change_nothing(role: str, status: int) -> None:
    team = make_team()
    client = team.client(role)
    before = (team.pipeline.name, team.pipeline.document, team.pipeline.revision)

    responses = [
        client.patch(_ws(team), {"name": "Renamed"}),
        client.delete(_ws(team) + f"members/{team.viewer.pk}/"),
    ]
    if role in ("anonymous", "non-member"):
        responses.append(client.post(_ws(team) + "leave/"))
    if role != "editor":
        responses.append(client.patch(_p(team), {"document": make_document(parallelism=7)}))
        responses.append(client.post(_p(team) + "versions/", {"message": "nope"}))

    assert {r.status_code for r in responses} == {status}
    team.pipeline.refresh_from_db()
    team.workspace.refresh_from_db()
    assert (team.pipeline.name, team.pipeline.document, team.pipeline.revision) == before
    assert team.workspace.name == "Payments"
    assert team.workspace.memberships.count() == 3
    assert team.pipeline.versions.count() == 1


# Your own comments: any member edits and deletes theirs (others' are 403, see
# test_reviews_comments.py); outsiders find nothing, anonymous callers are not let in.
OWN = [("comment edit", "patch", 200, {"body": "Edited"}), ("comment delete", "delete", 204, None)]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("name", "method", "success", "body"), OWN, ids=[o[0] for o in OWN])
def test_permission_matrix_of_your_own_comments(
    name: str, method: str, success: int, body: dict[str, Any] | None, role: str
) -> None:
    team = make_team()
    member = role in RANK
    comment_url = _comment(team, team.user(role) if member else None)
    kwargs: dict[str, Any] = {} if body is None else {"data": body}

    response = getattr(team.client(role), method)(comment_url, **kwargs)

    expected = success if member else {"anonymous": 401, "non-member": 404}[role]
    assert response.status_code == expected, response.content[:300]
    if expected >= 400:
        assert set(response.json()["error"]) == {"code", "message", "diagnostics", "fields"}


@pytest.mark.parametrize(
    ("role", "status"),
    [("anonymous", 401), ("non-member", 404), ("viewer", 403), ("editor", 403)],
)
def test_refused_review_writes_change_nothing(role: str, status: int) -> None:
    team = make_team()
    client = team.client(role)
    thread_url = _thread(team)

    responses = [client.patch(_ws(team) + "review-policy/", {"requiredApprovals": 3})]
    if role != "editor":
        responses.append(client.post(_p(team) + "versions/1/reviews/", {"reviewers": ["olivia"]}))
        responses.append(client.post(thread_url + "resolve/"))
    if role in ("anonymous", "non-member"):
        responses.append(
            client.post(_p(team) + "comments/", {"target": {"kind": "pipeline"}, "body": "x"})
        )
        responses.append(client.post(thread_url + "replies/", {"body": "x"}))

    assert {r.status_code for r in responses} == {status}
    assert not team.workspace.__class__.objects.filter(review_policy__isnull=False).exists()
    assert not team.pipeline.versions.get().review_requests.exists()
    assert Comment.objects.count() == 1
    assert team.pipeline.comment_threads.get().status == "open"
