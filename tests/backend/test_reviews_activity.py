"""A pipeline's activity feed: derived from versions, review requests, verdicts, comments
and runs, newest first, paged by key."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from reviews.models import Comment
from runs.models import RunStatus
from tests.backend.factories import Team, make_savepoint, make_team
from tests.backend.runs_support import make_run, make_runnable_version

pytestmark = pytest.mark.django_db


def feed(team: Team, query: str = "", role: str = "viewer") -> dict[str, Any]:
    response = team.client(role).get(f"/api/pipelines/{team.pipeline.pk}/activity/{query}")
    assert response.status_code == 200, response.content
    result: dict[str, Any] = response.json()
    return result


def story(team: Team) -> None:
    """Version 1 exists; a runnable version 2, a review of it, a thread with a reply, a
    verdict, and a run that finished."""
    editor, owner = team.client("editor"), team.client("owner")
    base = f"/api/pipelines/{team.pipeline.pk}/"
    number = make_runnable_version(pipeline=team.pipeline, author=team.editor).number
    review = editor.post(base + f"versions/{number}/reviews/", {"reviewers": ["olivia"]})
    request_id = review.json()["requests"][0]["id"]
    thread = editor.post(
        base + "comments/",
        {"version": number, "target": {"kind": "node", "node": 3}, "body": "Sum?"},
    ).json()
    owner.post(base + f"comments/{thread['id']}/replies/", {"body": "Yes, per key."})
    owner.post(
        base + f"versions/{number}/reviews/{request_id}/verdicts/",
        {"verdict": "approve", "summary": "Ship it"},
    )
    run = make_run(
        version=team.pipeline.versions.get(number=number),
        started_by=team.editor,
        status=RunStatus.FINISHED,
    )
    run.finished_at = timezone.now()
    run.save(update_fields=["finished_at"])


def test_the_feed_tells_the_story_newest_first() -> None:
    team = make_team()
    story(team)

    items = feed(team)["items"]

    kinds = [item["kind"] for item in items]
    assert sorted(kinds) == sorted(
        [
            "version_saved",
            "version_saved",
            "review_requested",
            "comment",
            "comment",
            "review_verdict",
            "run_started",
            "run_finished",
        ]
    )
    times = [item["at"] for item in items]
    assert times == sorted(times, reverse=True)
    by_kind = {item["kind"]: item for item in items}
    assert by_kind["review_requested"]["reviewers"] == [{"id": team.owner.pk, "username": "olivia"}]
    assert by_kind["review_verdict"]["verdict"] == "approve"
    assert by_kind["review_verdict"]["summary"] == "Ship it"
    assert by_kind["review_verdict"]["user"]["username"] == "olivia"
    comments = [item for item in items if item["kind"] == "comment"]
    assert [(c["reply"], c["excerpt"], c["target"]) for c in comments] == [
        (True, "Yes, per key.", "Sum"),
        (False, "Sum?", "Sum"),
    ]
    assert by_kind["run_finished"]["status"] == "FINISHED"
    assert by_kind["run_started"]["user"]["username"] == "eddie"


def test_the_feed_records_each_verdicts_weight_revocations_and_savepoints() -> None:
    team = make_team()
    story(team)
    base = f"/api/pipelines/{team.pipeline.pk}/"
    number = team.pipeline.versions.order_by("-number").first().number  # type: ignore[union-attr]
    review = team.client("viewer").get(base + f"versions/{number}/reviews/").json()
    request = review["requests"][0]
    verdict_id = request["reviewers"][0]["latest"]["id"]
    revoked = team.client("owner").post(
        base + f"versions/{number}/reviews/{request['id']}/verdicts/{verdict_id}/revoke/",
        {"reason": "Approved the wrong plan"},
    )
    assert revoked.status_code == 201, revoked.content
    make_savepoint(pipeline=team.pipeline, label="production 2026-11-20")

    by_kind = {item["kind"]: item for item in feed(team)["items"]}

    verdict = by_kind["review_verdict"]
    assert (verdict["role"], verdict["counts"], verdict["acknowledged"]) == ("owner", True, [])
    revocation = by_kind["approval_revoked"]
    assert revocation["user"]["username"] == "olivia"
    assert revocation["reviewer"]["username"] == "olivia"
    assert (revocation["version"], revocation["reason"]) == (number, "Approved the wrong plan")
    assert by_kind["savepoint_uploaded"]["label"] == "production 2026-11-20"


def test_the_feed_pages_by_key_without_gaps_or_repeats() -> None:
    team = make_team()
    story(team)
    everything = feed(team, "?limit=200")["items"]

    seen: list[dict[str, Any]] = []
    cursor = None
    for _ in range(10):
        page = feed(team, "?limit=3" + (f"&cursor={cursor}" if cursor else ""))
        seen += page["items"]
        cursor = page["next"]
        if cursor is None:
            break

    assert seen == everything
    assert len(seen) == 8


def test_a_page_may_end_between_items_of_the_same_time() -> None:
    team = make_team()
    story(team)
    Comment.objects.update(created_at=timezone.now() - timedelta(days=1))  # the two oldest

    first = feed(team, "?limit=7")
    second = feed(team, f"?limit=7&cursor={first['next']}")

    assert [(i["kind"], i["reply"]) for i in first["items"][-1:] + second["items"]] == [
        ("comment", True),  # the same time: the higher id first
        ("comment", False),
    ]
    assert second["next"] is None


def test_a_deleted_comment_leaves_the_feed() -> None:
    team = make_team()
    story(team)
    Comment.objects.filter(body="Sum?").update(deleted_at=timezone.now(), body="")

    comments = [item for item in feed(team)["items"] if item["kind"] == "comment"]

    assert [c["excerpt"] for c in comments] == ["Yes, per key."]


@pytest.mark.parametrize("cursor", ["nonsense", "bm9uc2Vuc2U", "MjAyMC0wMS0wMXxub3BlfDE"])
def test_a_cursor_the_feed_did_not_give_is_a_400(cursor: str) -> None:
    team = make_team()

    response = team.client("viewer").get(
        f"/api/pipelines/{team.pipeline.pk}/activity/?cursor={cursor}"
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid-cursor"
