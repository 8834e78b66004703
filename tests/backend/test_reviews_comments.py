"""Comment threads: anchored to an element of a version or the working copy, replies,
mentions, editing and deleting your own, resolving, and outdated threads with their causes."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import Role
from accounts.services import membership_change, membership_remove
from compiler.hashing import to_hex
from compiler.model import NodeId
from compiler.pipeline import compile_document
from reviews.models import Comment, CommentThread, Mention
from tests.backend.factories import Team, add_member, client_for, make_document, make_team

pytestmark = pytest.mark.django_db


def url(team: Team, tail: str = "") -> str:
    return f"/api/pipelines/{team.pipeline.pk}/comments/{tail}"


def open_thread(
    client: APIClient,
    team: Team,
    target: dict[str, Any],
    body: str = "Why is this keyed by order id?",
    version: int | None = None,
) -> dict[str, Any]:
    payload: dict[str, Any] = {"target": target, "body": body}
    if version is not None:
        payload["version"] = version
    response = client.post(url(team), payload)
    assert response.status_code == 201, response.content
    result: dict[str, Any] = response.json()
    return result


def change_working_copy(team: Team, document: dict[str, Any]) -> None:
    response = team.client("editor").patch(
        f"/api/pipelines/{team.pipeline.pk}/", {"document": document}
    )
    assert response.status_code == 200, response.content
    team.pipeline.refresh_from_db()


def operator_id(team: Team, node: int, version: int | None = None) -> str:
    """The node's OperatorID in the working copy or a version, as the compiler gives it."""
    team.pipeline.refresh_from_db()
    document = (
        team.pipeline.document
        if version is None
        else team.pipeline.versions.get(number=version).document
    )
    return to_hex(compile_document(document).hashes[NodeId(node)])


# Opening threads ----------------------------------------------------------------------------


def test_a_viewer_opens_a_thread_on_a_node_of_the_working_copy() -> None:
    team = make_team()

    thread = open_thread(team.client("viewer"), team, {"kind": "node", "node": 3})

    assert thread["version"] is None
    assert thread["revision"] == team.pipeline.revision
    assert thread["target"]["kind"] == "node"
    assert thread["target"]["node"] == 3
    assert thread["target"]["label"] == "Reduce"
    assert thread["target"]["operatorId"] == operator_id(team, 3)
    assert thread["status"] == "open"
    assert thread["outdated"] is False and thread["outdatedCauses"] == []
    assert thread["at"] == "working"
    (comment,) = thread["comments"]
    assert comment["body"] == "Why is this keyed by order id?"
    assert comment["author"] == {"id": team.viewer.pk, "username": "vera"}
    assert comment["deleted"] is False


def test_threads_on_a_version_an_edge_a_vertex_and_the_pipeline() -> None:
    team = make_team()
    client = team.client("editor")
    reduce_vertex = operator_id(team, 3, version=1)

    on_edge = open_thread(client, team, {"kind": "edge", "edge": [2, 3, 0, 0]}, version=1)
    on_vertex = open_thread(client, team, {"kind": "vertex", "vertex": reduce_vertex}, version=1)
    on_pipeline = open_thread(client, team, {"kind": "pipeline"})

    assert on_edge["version"] == 1 and on_edge["at"] == 1
    assert on_edge["target"]["edge"] == [2, 3, 0, 0]
    assert on_edge["target"]["label"] == "Map -> Reduce"
    assert on_edge["target"]["sourceOperatorId"] == operator_id(team, 2, version=1)
    assert on_edge["target"]["targetOperatorId"] == reduce_vertex
    assert on_vertex["target"]["vertex"] == reduce_vertex
    assert on_vertex["target"]["node"] == 3
    assert on_vertex["target"]["label"] == "Reduce -> Sink: Print"
    assert on_pipeline["target"]["label"] == "Orders"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"target": {"kind": "node", "node": 99}, "body": "x"}, "target.node"),
        ({"target": {"kind": "edge", "edge": [1, 3, 0, 0]}, "body": "x"}, "target.edge"),
        ({"target": {"kind": "vertex", "vertex": "0" * 32}, "body": "x"}, "target.vertex"),
        ({"target": {"kind": "node", "node": 3}, "body": "x", "version": 7}, "version"),
    ],
)
def test_a_target_that_is_not_in_the_version_is_a_400_naming_the_field(
    payload: dict[str, Any], field: str
) -> None:
    team = make_team()

    response = team.client("viewer").post(url(team), payload)

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not CommentThread.objects.exists()


@pytest.mark.parametrize(
    ("payload", "fields"),
    [
        ({}, {"target", "body"}),
        ({"target": {"kind": "node"}, "body": "x"}, {"target"}),
        ({"target": {"kind": "pipeline", "node": 3}, "body": "x"}, {"target"}),
        ({"target": {"kind": "node", "node": 3}, "body": "   "}, {"body"}),
        ({"target": {"kind": "node", "node": 3}, "body": "x", "color": "red"}, {"color"}),
    ],
)
def test_bad_bodies_are_400s_naming_the_fields(payload: dict[str, Any], fields: set[str]) -> None:
    team = make_team()

    response = team.client("viewer").post(url(team), payload)

    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == fields
    assert not CommentThread.objects.exists()


# Mentions -------------------------------------------------------------------------------------


def test_mentions_name_members_and_a_stranger_is_a_400_naming_the_mention() -> None:
    team = make_team()
    client = team.client("viewer")

    refused = client.post(
        url(team), {"target": {"kind": "pipeline"}, "body": "@eddie and @zed, look."}
    )
    thread = open_thread(client, team, {"kind": "pipeline"}, body="@Eddie, @olivia. And @vera.")

    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "unknown-mention"
    assert error["fields"] == {"body": ["@zed is not a member of this workspace."]}
    assert CommentThread.objects.count() == 1  # the refused one left nothing
    mentioned = thread["comments"][0]["mentions"]
    assert [m["username"] for m in mentioned] == ["eddie", "olivia"]  # not the author
    assert set(Mention.objects.values_list("user__username", flat=True)) == {"eddie", "olivia"}


def test_an_outsider_and_an_address_are_not_mentions() -> None:
    team = make_team()

    refused = team.client("owner").post(
        url(team), {"target": {"kind": "pipeline"}, "body": "cc @oscar"}
    )
    thread = open_thread(
        team.client("owner"), team, {"kind": "pipeline"}, body="mail ops@example.com"
    )

    assert refused.status_code == 400
    assert refused.json()["error"]["fields"]["body"] == [
        "@oscar is not a member of this workspace."
    ]
    assert thread["comments"][0]["mentions"] == []


# Replies, edits, deletions ---------------------------------------------------------------------


def test_replies_edits_and_deletions_of_your_own() -> None:
    team = make_team()
    thread = open_thread(team.client("viewer"), team, {"kind": "node", "node": 2})
    replies = url(team, f"{thread['id']}/replies/")

    reply = team.client("editor").post(replies, {"body": "Because @vera asked."})
    assert reply.status_code == 201
    comment_id = reply.json()["id"]
    edit = team.client("editor").patch(
        url(team, f"{thread['id']}/{comment_id}/"), {"body": "Because @olivia asked."}
    )
    others = team.client("viewer").patch(url(team, f"{thread['id']}/{comment_id}/"), {"body": "no"})
    deleted = team.client("editor").delete(url(team, f"{thread['id']}/{comment_id}/"))
    again = team.client("editor").patch(url(team, f"{thread['id']}/{comment_id}/"), {"body": "x"})

    assert edit.status_code == 200
    assert edit.json()["editedAt"] is not None
    assert [m["username"] for m in edit.json()["mentions"]] == ["olivia"]
    assert others.status_code == 403
    assert others.json()["error"]["code"] == "not-the-author"
    assert deleted.status_code == 204
    assert again.status_code == 409
    comments = team.client("owner").get(url(team, f"{thread['id']}/")).json()["comments"]
    assert [(c["body"], c["deleted"]) for c in comments] == [
        ("Why is this keyed by order id?", False),
        ("", True),
    ]
    assert not Mention.objects.filter(comment_id=comment_id).exists()


def test_an_edit_keeps_read_mentions_read() -> None:
    team = make_team()
    thread = open_thread(team.client("owner"), team, {"kind": "pipeline"}, body="@eddie @vera")
    comment_id = thread["comments"][0]["id"]
    Mention.objects.filter(user=team.editor).update(read_at="2030-01-01T00:00:00Z")

    team.client("owner").patch(url(team, f"{thread['id']}/{comment_id}/"), {"body": "@eddie"})

    (kept,) = Mention.objects.filter(comment_id=comment_id)
    assert kept.user == team.editor and kept.read_at is not None


def test_a_thread_whose_every_comment_is_deleted_is_gone() -> None:
    team = make_team()
    thread = open_thread(team.client("viewer"), team, {"kind": "pipeline"})
    first = thread["comments"][0]["id"]

    team.client("viewer").delete(url(team, f"{thread['id']}/{first}/"))

    assert team.client("viewer").get(url(team, f"{thread['id']}/")).status_code == 404
    assert team.client("viewer").get(url(team)).json()["items"] == []
    assert Comment.objects.get(pk=first).body == ""


# Resolving --------------------------------------------------------------------------------------


def test_editors_and_the_author_resolve_and_reopen_and_other_viewers_may_not() -> None:
    team = make_team()
    other_viewer = add_member(workspace=team.workspace, role=Role.VIEWER)
    thread = open_thread(team.client("viewer"), team, {"kind": "pipeline"})
    resolve, reopen = url(team, f"{thread['id']}/resolve/"), url(team, f"{thread['id']}/reopen/")

    by_author = team.client("viewer").post(resolve)
    by_editor = team.client("editor").post(reopen)
    by_other = client_for(other_viewer).post(resolve)

    assert by_author.status_code == 200
    assert by_author.json()["status"] == "resolved"
    assert by_author.json()["resolvedBy"]["username"] == "vera"
    assert by_editor.status_code == 200
    assert by_editor.json()["status"] == "open"
    assert by_editor.json()["resolvedBy"] is None
    assert by_other.status_code == 403


# Outdated threads -------------------------------------------------------------------------------


def test_a_thread_follows_its_node_and_is_outdated_once_its_operator_id_changes() -> None:
    team = make_team()
    thread = open_thread(team.client("viewer"), team, {"kind": "node", "node": 3}, version=1)
    # The sink goes wider: Reduce no longer chains to it, so its OperatorID changes.
    change_working_copy(team, make_document(sink_parallelism=4))

    at_working = team.client("viewer").get(url(team, f"{thread['id']}/")).json()
    at_one = team.client("viewer").get(url(team, f"{thread['id']}/?at=1")).json()

    assert at_one["outdated"] is False
    assert at_working["outdated"] is True
    (cause,) = at_working["outdatedCauses"]
    assert cause.startswith(
        "OperatorID changed: hash of Reduce changed because its chainable out-edges changed "
        "from 1 to 0"
    )


def test_a_thread_on_a_removed_node_is_outdated_never_dropped() -> None:
    team = make_team()
    thread = open_thread(team.client("viewer"), team, {"kind": "node", "node": 4}, version=1)
    document = make_document()
    document["nodes"] = document["nodes"][:3]
    document["edges"] = document["edges"][:2]
    change_working_copy(team, document)

    listed = team.client("viewer").get(url(team)).json()["items"]

    assert [t["id"] for t in listed] == [thread["id"]]
    assert listed[0]["outdatedCauses"] == ["node 4 (Sink: Print) was removed"]


def test_a_working_copy_thread_is_explained_from_a_version_saved_from_its_revision() -> None:
    team = make_team()
    thread = open_thread(team.client("viewer"), team, {"kind": "node", "node": 3})
    change_working_copy(team, make_document(sink_parallelism=4))

    before = team.client("viewer").get(url(team, f"{thread['id']}/")).json()["outdatedCauses"]
    # Version 1 was saved from the revision the thread was written on.
    assert team.pipeline.versions.get(number=1).revision == thread["revision"]
    assert before[0].startswith("OperatorID changed: hash of Reduce changed because")


def test_a_working_copy_thread_without_its_document_is_explained_by_ids() -> None:
    team = make_team()
    change_working_copy(team, make_document(parallelism=3))
    thread = open_thread(team.client("viewer"), team, {"kind": "node", "node": 3})
    change_working_copy(team, make_document(parallelism=3, sink_parallelism=4))

    (cause,) = team.client("viewer").get(url(team, f"{thread['id']}/")).json()["outdatedCauses"]

    assert cause == (
        f"OperatorID changed from {thread['target']['operatorId']} to "
        f"{operator_id(team, 3)} in the working copy"
    )


def test_an_older_version_says_the_node_is_not_there_yet() -> None:
    team = make_team()
    document = make_document()
    document["nodes"].append({"id": 5, "name": "Audit", "operator": "sink.print", "parallelism": 2})
    document["edges"].append({"source": 3, "target": 5, "partitioner": "FORWARD"})
    change_working_copy(team, document)
    thread = open_thread(team.client("viewer"), team, {"kind": "node", "node": 5})

    at_one = team.client("viewer").get(url(team, f"{thread['id']}/?at=1")).json()

    assert at_one["outdatedCauses"] == ["node 5 (Audit) is not in version 1"]


# Lists, filters, counts --------------------------------------------------------------------------


def make_threads(team: Team) -> dict[str, int]:
    client = team.client("editor")
    ids = {
        "reduce": open_thread(client, team, {"kind": "node", "node": 3}, version=1)["id"],
        "sink": open_thread(client, team, {"kind": "node", "node": 4}, version=1)["id"],
        "edge": open_thread(client, team, {"kind": "edge", "edge": [3, 4, 0, 0]}, version=1)["id"],
        "pipeline": open_thread(client, team, {"kind": "pipeline"})["id"],
    }
    client.post(url(team, f"{ids['sink']}/resolve/"))
    return ids


def test_lists_filter_by_status_outdatedness_kind_node_and_version() -> None:
    team = make_team()
    ids = make_threads(team)
    change_working_copy(team, make_document(sink_parallelism=4))  # Reduce's id changes
    client = team.client("viewer")

    def listed(query: str) -> list[int]:
        response = client.get(url(team, query))
        assert response.status_code == 200, response.content
        return [t["id"] for t in response.json()["items"]]

    assert listed("") == sorted(ids.values(), reverse=True)
    assert listed("?status=resolved") == [ids["sink"]]
    assert listed("?outdated=true") == [ids["edge"], ids["sink"], ids["reduce"]]
    assert listed("?outdated=false") == [ids["pipeline"]]
    assert listed("?outdated=true&at=1") == []
    assert listed("?kind=node") == [ids["sink"], ids["reduce"]]
    assert listed("?node=3") == [ids["reduce"]]
    assert listed("?writtenAt=working") == [ids["pipeline"]]
    assert listed("?writtenAt=1&status=open") == [ids["edge"], ids["reduce"]]


def test_lists_page_with_a_cursor() -> None:
    team = make_team()
    ids = sorted(make_threads(team).values(), reverse=True)
    client = team.client("viewer")

    first = client.get(url(team, "?limit=3")).json()
    second = client.get(url(team, f"?limit=3&cursor={first['next']}")).json()
    bad = client.get(url(team, "?cursor=not-a-cursor"))

    assert [t["id"] for t in first["items"]] == ids[:3]
    assert [t["id"] for t in second["items"]] == ids[3:]
    assert second["next"] is None
    assert bad.status_code == 400 and "cursor" in bad.json()["error"]["fields"]


def test_a_missing_version_to_read_at_is_a_404() -> None:
    team = make_team()

    assert team.client("viewer").get(url(team, "?at=9")).status_code == 404
    assert team.client("viewer").get(url(team, "summary/?at=9")).status_code == 404


def test_the_summary_counts_threads_per_element() -> None:
    team = make_team()
    ids = make_threads(team)
    reduce_vertex = operator_id(team, 3, version=1)
    open_thread(team.client("viewer"), team, {"kind": "vertex", "vertex": reduce_vertex}, version=1)
    change_working_copy(team, make_document(sink_parallelism=4))

    at_working = team.client("viewer").get(url(team, "summary/")).json()
    at_one = team.client("viewer").get(url(team, "summary/?at=1")).json()

    assert at_working["total"] == {"open": 1, "outdated": 3, "resolved": 1}
    assert at_working["pipeline"] == {"open": 1, "outdated": 0, "resolved": 0}
    assert at_working["nodes"] == [
        {"node": 3, "open": 0, "outdated": 1, "resolved": 0},
        {"node": 4, "open": 0, "outdated": 0, "resolved": 1},
    ]
    assert at_working["edges"] == [{"edge": [3, 4, 0, 0], "open": 0, "outdated": 1, "resolved": 0}]
    (vertex,) = at_working["vertices"]
    assert vertex["head"] == 3 and vertex["outdated"] == 1
    assert vertex["vertex"] == operator_id(team, 3)
    assert at_one["total"] == {"open": 4, "outdated": 0, "resolved": 1}
    assert sum(at_one["total"].values()) == len(ids) + 1


def test_a_demoted_editor_may_no_longer_resolve_others_threads() -> None:
    team = make_team()
    thread = open_thread(team.client("viewer"), team, {"kind": "pipeline"})
    membership_change(
        workspace=team.workspace, actor=team.owner, user_id=team.editor.pk, role=Role.VIEWER
    )

    response = team.client("editor").post(url(team, f"{thread['id']}/resolve/"))

    assert response.status_code == 403


def test_a_removed_member_sees_nothing_and_cannot_reply() -> None:
    team = make_team()
    thread = open_thread(team.client("viewer"), team, {"kind": "pipeline"})

    membership_remove(workspace=team.workspace, actor=team.owner, user_id=team.viewer.pk)

    assert team.client("viewer").get(url(team)).status_code == 404
    reply = team.client("viewer").post(url(team, f"{thread['id']}/replies/"), {"body": "hi"})
    assert reply.status_code == 404


def test_a_list_costs_the_same_queries_however_many_threads() -> None:
    team = make_team()
    client = team.client("viewer")

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url(team))
        assert response.status_code == 200
        return len(captured.captured_queries)

    open_thread(client, team, {"kind": "node", "node": 3}, body="@eddie one", version=1)
    with_one = queries()
    for number in range(12):
        open_thread(client, team, {"kind": "node", "node": 3}, body=f"@eddie {number}", version=1)

    assert queries() == with_one
