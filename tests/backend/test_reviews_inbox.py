"""The signed-in user's inbox: reviews waiting for them and mentions, with counts."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.services import membership_remove
from reviews.models import Mention
from tests.backend.factories import Team, make_document, make_team, make_version

pytestmark = pytest.mark.django_db


def inbox(team: Team, role: str) -> dict[str, Any]:
    result: dict[str, Any] = team.client(role).get("/api/me/inbox/").json()
    return result


def mention(team: Team, body: str, by: str = "owner") -> dict[str, Any]:
    response = team.client(by).post(
        f"/api/pipelines/{team.pipeline.pk}/comments/",
        {"target": {"kind": "pipeline"}, "body": body},
    )
    assert response.status_code == 201, response.content
    result: dict[str, Any] = response.json()
    return result


def test_reviews_wait_for_their_reviewers_until_answered_or_superseded() -> None:
    team = make_team()
    base = f"/api/pipelines/{team.pipeline.pk}/versions/"
    review = team.client("editor").post(base + "1/reviews/", {"reviewers": ["vera", "olivia"]})
    request_id = review.json()["requests"][0]["id"]

    assert inbox(team, "viewer")["reviewsWaiting"] == 1
    waiting = team.client("viewer").get("/api/me/reviews/").json()
    (item,) = waiting["items"]
    assert (item["request"], item["version"], item["pipelineName"]) == (request_id, 1, "Orders")
    assert item["requestedBy"]["username"] == "eddie"
    assert waiting["next"] is None

    team.client("viewer").post(base + f"1/reviews/{request_id}/verdicts/", {"verdict": "comment"})
    assert inbox(team, "viewer")["reviewsWaiting"] == 0
    assert inbox(team, "owner")["reviewsWaiting"] == 1

    team.pipeline.document = make_document(parallelism=3)
    team.pipeline.save()
    make_version(pipeline=team.pipeline)
    assert inbox(team, "owner")["reviewsWaiting"] == 0


def test_a_removed_member_has_nothing_waiting_there() -> None:
    team = make_team()
    team.client("editor").post(
        f"/api/pipelines/{team.pipeline.pk}/versions/1/reviews/", {"reviewers": ["vera"]}
    )
    mention(team, "@vera, look")

    membership_remove(workspace=team.workspace, actor=team.owner, user_id=team.viewer.pk)

    assert inbox(team, "viewer") == {"reviewsWaiting": 0, "unreadMentions": 0}
    assert team.client("viewer").get("/api/me/mentions/").json()["items"] == []


def test_mentions_are_listed_and_marked_read() -> None:
    team = make_team()
    mention(team, "@vera first")
    mention(team, "@vera @eddie second")
    assert inbox(team, "viewer")["unreadMentions"] == 2

    listed = team.client("viewer").get("/api/me/mentions/").json()["items"]
    assert [(m["excerpt"], m["read"]) for m in listed] == [
        ("@vera @eddie second", False),
        ("@vera first", False),
    ]
    assert listed[0]["author"]["username"] == "olivia"

    marked = team.client("viewer").post("/api/me/mentions/read/", {"mentions": [listed[1]["id"]]})
    assert marked.status_code == 200
    assert marked.json() == {"reviewsWaiting": 0, "unreadMentions": 1}
    unread = team.client("viewer").get("/api/me/mentions/?unread=true").json()["items"]
    assert [m["excerpt"] for m in unread] == ["@vera @eddie second"]

    everything = team.client("viewer").post("/api/me/mentions/read/", {"all": True})
    assert everything.json()["unreadMentions"] == 0
    assert inbox(team, "editor")["unreadMentions"] == 1  # eddie's are his own


@pytest.mark.parametrize(
    "body",
    [{}, {"all": False}, {"all": "yes"}, {"mentions": []}, {"mentions": [1], "all": True}],
)
def test_marking_read_needs_mentions_or_all(body: dict[str, Any]) -> None:
    team = make_team()

    response = team.client("viewer").post("/api/me/mentions/read/", body)

    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) & {"mentions", "all"}


def test_someone_elses_mention_cannot_be_marked_read() -> None:
    team = make_team()
    mention(team, "@eddie look")
    other = Mention.objects.get().pk

    response = team.client("viewer").post("/api/me/mentions/read/", {"mentions": [other]})

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"mentions": [f"You have no mention {other}."]}
    assert Mention.objects.get().read_at is None


def test_the_lists_page_with_a_cursor() -> None:
    team = make_team()
    for number in range(5):
        mention(team, f"@vera {number}")

    first = team.client("viewer").get("/api/me/mentions/?limit=2").json()
    rest = team.client("viewer").get(f"/api/me/mentions/?limit=5&cursor={first['next']}").json()

    assert [m["excerpt"] for m in first["items"] + rest["items"]] == [
        f"@vera {n}" for n in (4, 3, 2, 1, 0)
    ]
    assert rest["next"] is None


def test_anonymous_users_have_no_inbox() -> None:
    team = make_team()

    for path in ("/api/me/inbox/", "/api/me/reviews/", "/api/me/mentions/"):
        assert team.client("anonymous").get(path).status_code == 401
