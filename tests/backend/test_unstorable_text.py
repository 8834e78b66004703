"""Text no database stores (an unpaired surrogate, on SQLite and PostgreSQL; NUL, on
PostgreSQL) is refused where JSON comes in, with a 400 naming its path, and nothing stored
changes. Whole characters outside the Basic Multilingual Plane (an emoji, sent as a
surrogate pair) are text like any other."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config.errors import MalformedJson
from config.json_input import read_json, storable
from pipelines.models import Pipeline, PipelineVersion
from reviews.models import CommentThread
from tests.backend.factories import Team, make_document, make_team

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

LONE = "\ud800"
NUL = "\x00"


def _body(value: Any) -> str:
    """`value` as JSON text, with any surrogate or NUL as an escape (as a browser sends it)."""
    return json.dumps(value)


def _document(name: str) -> dict[str, Any]:
    document = make_document()
    document["nodes"][1]["name"] = name
    return document


@pytest.mark.parametrize(
    ("bad", "what"),
    [(f"Parse{LONE}", "an unpaired surrogate (U+D800"), (f"Par{NUL}se", "NUL (U+0000)")],
)
@pytest.mark.parametrize(
    ("method", "path", "body", "where"),
    [
        (
            "POST",
            "/api/pipelines/",
            lambda t, bad: {"workspace": t.workspace.pk, "name": bad},
            "name",
        ),
        (
            "PATCH",
            "/api/pipelines/{p}/",
            lambda t, bad: {"document": _document(bad)},
            "document.nodes[1].name",
        ),
        (
            "POST",
            "/api/pipelines/import/",
            lambda t, bad: {"workspace": t.workspace.pk, "content": json.dumps(_document(bad))},
            "nodes[1].name",
        ),
        (
            "POST",
            "/api/pipelines/{p}/runs/",
            lambda t, bad: {"version": 1, "parameters": {"input": bad}},
            "parameters.input",
        ),
        (
            "POST",
            "/api/pipelines/{p}/comments/",
            lambda t, bad: {"version": 1, "target": {"kind": "pipeline"}, "body": bad},
            "body",
        ),
        ("PATCH", "/api/workspaces/{w}/", lambda t, bad: {"name": bad}, "name"),
    ],
)
def test_text_no_database_stores_is_a_400_naming_its_path(
    method: str, path: str, body: Any, where: str, bad: str, what: str
) -> None:
    team = make_team()
    before = (Pipeline.objects.count(), Pipeline.objects.get(pk=team.pipeline.pk).document)
    threads = CommentThread.objects.count()
    url = path.format(p=team.pipeline.pk, w=team.workspace.pk)

    response = team.client("owner").generic(
        method, url, _body(body(team, bad)), content_type="application/json"
    )

    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert what in error["message"]
    assert f"at {where}," in error["message"]
    assert (Pipeline.objects.count(), Pipeline.objects.get(pk=team.pipeline.pk).document) == before
    assert CommentThread.objects.count() == threads


def test_a_key_holding_nul_is_named_with_the_nul_escaped() -> None:
    team = make_team()
    document = make_document()
    document["nodes"][0]["params"] = {f"pa{NUL}th": "x"}

    response = team.client("editor").generic(
        "PATCH",
        f"/api/pipelines/{team.pipeline.pk}/",
        _body({"document": document}),
        content_type="application/json",
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert "in the key at document.nodes[0].params.pa\\u0000th," in error["message"]
    assert list(error["fields"]) == ["document.nodes[0].params.pa\\u0000th"]


def test_whole_characters_beyond_the_basic_plane_are_stored() -> None:
    team = make_team()

    response = team.client("editor").generic(
        "PATCH",
        f"/api/pipelines/{team.pipeline.pk}/",
        _body({"document": _document("Parse \U0001f600")}),
        content_type="application/json",
    )

    assert response.status_code == 200, response.content[:300]
    stored = Pipeline.objects.get(pk=team.pipeline.pk).document
    assert stored["nodes"][1]["name"] == "Parse \U0001f600"
    saved = team.client("editor").post(f"/api/pipelines/{team.pipeline.pk}/versions/", {})
    assert saved.status_code == 201
    version = PipelineVersion.objects.get(pipeline=team.pipeline, number=2)
    assert version.document["nodes"][1]["name"] == "Parse \U0001f600"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"a": "x\\ud800"}', "a"),
        ('{"a": ["ok", "\\udfff"]}', "a[1]"),
        ('{"a": {"b": "\\u0000"}}', "a.b"),
        ('"\\u0000"', "body"),
        ('{"\\ud800": 1}', "\\ud800"),
    ],
)
def test_the_reader_names_the_first_unstorable_string(text: str, field: str) -> None:
    with pytest.raises(MalformedJson) as refused:
        read_json(text)
    assert list(refused.value.fields) == [field]


@pytest.mark.parametrize(
    "text", ['"\\ud83d\\ude00"', '"\\\\u0000"', '"\\\\ud800"', '{"a": "\\u00e9"}', '"plain"']
)
def test_the_reader_keeps_what_can_be_stored(text: str) -> None:
    value = read_json(text)
    assert value == json.loads(text)
    assert storable(json.dumps(value, ensure_ascii=False))


# Fuzzing: the class of input above, anywhere in the bodies the API takes -------------------


@pytest.fixture
def team() -> Team:
    # One team for all the examples: a refused request changes nothing of it.
    return make_team()


BODIES: list[tuple[str, str, Any]] = [
    ("POST", "/api/pipelines/", lambda t: {"workspace": t.workspace.pk, "name": "n"}),
    ("PATCH", "/api/pipelines/{p}/", lambda t: {"document": make_document(), "name": "n"}),
    ("POST", "/api/pipelines/{p}/versions/", lambda t: {"message": "m"}),
    ("POST", "/api/pipelines/{p}/runs/", lambda t: {"version": 1, "parameters": {"a": "b"}}),
    (
        "POST",
        "/api/pipelines/{p}/comments/",
        lambda t: {"version": 1, "target": {"kind": "pipeline"}, "body": "b"},
    ),
    ("POST", "/api/pipelines/{p}/versions/1/reviews/", lambda t: {"reviewers": ["olivia"]}),
    ("PATCH", "/api/workspaces/{w}/", lambda t: {"name": "n"}),
    ("POST", "/api/workspaces/{w}/members/", lambda t: {"username": "oscar", "role": "viewer"}),
]


def _strings(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], bool]]:
    """Every string of `value`, as (path, whether it is a key)."""
    found: list[tuple[tuple[Any, ...], bool]] = []
    if isinstance(value, str):
        found.append((path, False))
    elif isinstance(value, dict):
        for key, inner in value.items():
            found.append(((*path, key), True))
            found += _strings(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _strings(inner, (*path, index))
    return found


def _spoiled(value: Any, path: tuple[Any, ...], key: bool, insert: str, at: int) -> Any:
    if not path:
        return value[:at] + insert + value[at:] if isinstance(value, str) else value
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        if key and not rest:
            return {(k[:at] + insert + k[at:] if k == head else k): v for k, v in value.items()}
        return {
            k: (_spoiled(v, rest, key, insert, at) if k == head else v) for k, v in value.items()
        }
    return [_spoiled(v, rest, key, insert, at) if i == head else v for i, v in enumerate(value)]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_body_with_such_text_anywhere_gets_a_5xx(team: Team, data: st.DataObject) -> None:
    method, path, make = data.draw(st.sampled_from(BODIES))
    body = make(team)
    where, key = data.draw(st.sampled_from(_strings(body)))
    insert = data.draw(st.sampled_from([LONE, NUL, "\udfff", "\ud83d"]))
    at = data.draw(st.integers(0, 3))
    url = path.format(p=team.pipeline.pk, w=team.workspace.pk)
    before = Pipeline.objects.get(pk=team.pipeline.pk).document

    response = team.client("owner").generic(
        method, url, _body(_spoiled(body, where, key, insert, at)), content_type="application/json"
    )

    assert response.status_code == 400, (method, url, response.content[:300])
    assert response.json()["error"]["code"] == "malformed-json"
    assert Pipeline.objects.get(pk=team.pipeline.pk).document == before
