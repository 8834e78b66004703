"""The rescale simulator over REST: `GET /api/pipelines/<id>/rescale/`."""

from __future__ import annotations

from typing import Any

import pytest

from compiler.edits import Edit, apply_edit
from compiler.hashing import to_hex
from compiler.model import NodeId
from compiler.pipeline import compile_document
from pipelines.events import RescaleSimulation
from tests.backend.factories import Team, make_document, make_team

pytestmark = pytest.mark.django_db


def _reduce_vertex(document: dict[str, Any] | None = None) -> str:
    """The JobVertexID of `Reduce -> Sink: Print` in `make_document()`."""
    job_graph = compile_document(document or make_document()).job_graph
    assert job_graph is not None
    return to_hex(job_graph.vertex_of_node[NodeId(3)])


def _url(team: Team, query: str) -> str:
    return f"/api/pipelines/{team.pipeline.pk}/rescale/?{query}"


def _store(team: Team, document: dict[str, Any]) -> None:
    team.pipeline.document = document
    team.pipeline.revision += 1
    team.pipeline.save()


def test_a_viewer_rescales_a_vertex_of_the_working_copy() -> None:
    team = make_team()
    vertex = _reduce_vertex()

    response = team.client("viewer").get(_url(team, f"vertex={vertex}&parallelism=3"))

    assert response.status_code == 200, response.content[:300]
    body = response.json()
    assert set(body) == set(RescaleSimulation.model_fields)
    assert (body["pipeline"], body["version"], body["revision"]) == (
        team.pipeline.pk,
        None,
        team.pipeline.revision,
    )
    assert (body["scope"], body["vertex"], body["parallelism"]) == ("vertex", vertex, 3)
    (rescaled,) = body["vertices"]
    assert rescaled["name"] == "Reduce -> Sink: Print"
    assert rescaled["parallelism"] == {"before": 2, "after": 3}
    assert rescaled["before"] == [[0, 63], [64, 127]]
    assert [s["keyGroups"] for s in rescaled["after"]] == [[0, 42], [43, 85], [86, 127]]
    assert rescaled["after"][1]["reads"] == [
        {"subtask": 0, "keyGroups": [43, 63]},
        {"subtask": 1, "keyGroups": [64, 85]},
    ]
    assert [s["kept"] for s in rescaled["after"]] == [43, 22, 0]
    assert body["slots"] == {"before": 2, "after": 3}
    assert [p["code"] for p in body["problems"]] == ["derived-max-parallelism"]
    assert "never set a max parallelism" in body["problems"][0]["message"]
    assert [c["name"] for c in body["choices"]] == ["Source: Orders -> Map", rescaled["name"]]
    assert body["pin"]["edits"] == [
        {
            "kind": "set_field",
            "element": "node",
            "nodeId": n,
            "field": "maxParallelism",
            "value": 128,
        }
        for n in (3, 4)
    ]


def test_a_vertex_id_may_be_written_in_capitals() -> None:
    team = make_team()

    response = team.client("viewer").get(
        _url(team, f"vertex={_reduce_vertex().upper()}&parallelism=2")
    )

    assert response.status_code == 200
    assert response.json()["vertex"] == _reduce_vertex()


def test_a_saved_version_is_rescaled_as_it_was_saved() -> None:
    team = make_team()
    _store(team, make_document(parallelism=5))  # the working copy moves on

    response = team.client("viewer").get(
        _url(team, f"version=1&vertex={_reduce_vertex()}&parallelism=4")
    )

    body = response.json()
    assert (body["version"], body["revision"]) == (1, None)
    assert body["vertices"][0]["parallelism"] == {"before": 2, "after": 4}


def test_the_whole_job_changes_only_what_follows_the_default() -> None:
    team = make_team()
    document = make_document()
    for node in document["nodes"][2:]:
        node["parallelism"] = -1  # Reduce and the sink follow the job's default
    _store(team, document)

    body = team.client("viewer").get(_url(team, "parallelism=4")).json()

    assert (body["scope"], body["vertex"]) == ("job", None)
    assert body["defaultParallelism"] == {"before": 2, "after": 4}
    source, reduce = body["vertices"]
    assert (source["followsDefault"], source["changed"]) == (False, False)
    assert (reduce["followsDefault"], reduce["parallelism"]) == (True, {"before": 2, "after": 4})
    assert body["pin"]["edits"] == [
        {"kind": "set_field", "element": "config", "field": "maxParallelism", "value": 128}
    ]


def test_beyond_the_saved_key_groups_it_does_not_restore() -> None:
    team = make_team()

    body = (
        team.client("viewer").get(_url(team, f"vertex={_reduce_vertex()}&parallelism=129")).json()
    )

    assert body["restores"] is False
    vertex = body["vertices"][0]
    assert (vertex["restores"], vertex["after"], vertex["movedKeyGroups"]) == (False, [], None)
    assert body["problems"][0]["code"] == "above-max-parallelism"
    assert body["problems"][0]["severity"] == "error"


def test_the_pin_edits_apply_to_the_working_copy() -> None:
    team = make_team()
    body = team.client("viewer").get(_url(team, f"vertex={_reduce_vertex()}&parallelism=2")).json()

    document = team.pipeline.document
    for edit in body["pin"]["edits"]:
        document, _ = apply_edit(document, Edit.from_json(edit))
    _store(team, document)
    again = team.client("viewer").get(_url(team, f"vertex={_reduce_vertex()}&parallelism=2"))

    assert again.json()["problems"] == []
    assert again.json()["pin"] is None
    assert again.json()["vertices"][0]["maxParallelism"]["explicit"] is True


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("", "parallelism", "required"),
        ("parallelism=", "parallelism", "Give a value"),
        ("parallelism=0", "parallelism", "greater than or equal to 1"),
        ("parallelism=32769", "parallelism", "less than or equal to 32768"),
        ("parallelism=two", "parallelism", "valid integer"),
        ("parallelism=2&vertex=nope", "vertex", "32 hexadecimal digits"),
        ("parallelism=2&vertex=", "vertex", "Give a value"),
        ("parallelism=2&vertex=" + "0" * 32, "vertex", "has no JobVertex " + "0" * 32),
        ("parallelism=2&version=0", "version", "greater than or equal to 1"),
    ],
)
def test_bad_query_parameters_are_named(query: str, field: str, words: str) -> None:
    team = make_team()

    response = team.client("viewer").get(_url(team, query))

    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["code"] == "invalid-request"
    assert list(error["fields"]) == [field]
    assert words in error["fields"][field][0]
    assert error["message"].startswith(f"{field}: ")


def test_an_unknown_version_is_not_found() -> None:
    team = make_team()

    response = team.client("viewer").get(_url(team, "version=9&parallelism=2"))

    assert response.status_code == 404
    assert response.json()["error"]["message"] == "The pipeline has no version 9."


def test_a_working_copy_that_does_not_compile_has_nothing_to_rescale() -> None:
    team = make_team()
    document = make_document()
    document["nodes"][0]["parallelism"] = 0
    _store(team, document)

    response = team.client("viewer").get(_url(team, "parallelism=2"))

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "not-compiled"
    assert error["message"].startswith("The working copy does not compile (node 1")
    assert error["diagnostics"][0]["code"] == "node.parallelism-bounds"


@pytest.mark.parametrize(("role", "status"), [("anonymous", 401), ("non-member", 404)])
def test_only_members_may_look(role: str, status: int) -> None:
    team = make_team()

    response = team.client(role).get(_url(team, "parallelism=2"))

    assert response.status_code == status


def _wide_job(vertices: int) -> dict[str, Any]:
    """`vertices` keyed JobVertices in a row (every edge a keyBy), max parallelism 32768."""
    nodes = [
        {"id": i, "name": f"Step {i}", "operator": "source" if i == 1 else "map", "params": {}}
        for i in range(1, vertices + 1)
    ]
    nodes[0]["factory"] = "SOURCE"
    return {
        "format": "streamgraph/v1",
        "name": "wide",
        "config": {"defaultParallelism": 1, "maxParallelism": 32768},
        "nodes": nodes,
        "edges": [
            {"source": i, "target": i + 1, "partitioner": "HASH", "key": {"fn": "x"}}
            for i in range(1, vertices)
        ],
    }


def test_a_job_at_the_widest_parallelism_answers_in_a_small_body() -> None:
    team = make_team()
    _store(team, _wide_job(50))

    response = team.client("viewer").get(_url(team, "parallelism=32768&limit=100"))

    assert response.status_code == 200, response.content[:300]
    assert len(response.content) < 2 * 1024 * 1024
    body = response.json()
    assert body["page"] == {"offset": 0, "limit": 100, "total": 50}
    assert len(body["vertices"]) == 50
    for vertex in body["vertices"]:
        assert vertex["parallelism"] == {"before": 1, "after": 32768}
        assert (len(vertex["before"]), len(vertex["after"])) == (1, vertex["subtasksShown"])
        # Only new subtask 0 keeps its key group: every other one moves.
        assert vertex["movedKeyGroups"] == 32767
        assert vertex["keptFraction"] == {"least": 0.0, "most": 1.0}


@pytest.mark.both_databases
def test_rescale_simulations_are_limited_per_user(settings: Any) -> None:
    settings.RESCALES_PER_MINUTE = 2
    team = make_team()
    vertex = _reduce_vertex()
    viewer = team.client("viewer")
    for _ in range(2):
        assert viewer.get(_url(team, f"vertex={vertex}&parallelism=4")).status_code == 200

    refused = viewer.get(_url(team, f"vertex={vertex}&parallelism=4"))

    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    error = refused.json()["error"]
    assert error["code"] == "throttled"
    assert "At most 2 rescale simulations a minute" in error["message"]
    # Another user has their own count.
    assert (
        team.client("editor").get(_url(team, f"vertex={vertex}&parallelism=4")).status_code == 200
    )


@pytest.mark.both_databases
def test_a_large_job_is_described_a_page_at_a_time_and_judged_whole() -> None:
    team = make_team()
    document = _wide_job(45)
    del document["config"]["maxParallelism"]  # every vertex derives 128 key groups
    _store(team, document)
    viewer = team.client("viewer")

    pages = [
        viewer.get(_url(team, f"parallelism=200&offset={offset}")).json()
        for offset in (0, 20, 40, 45)
    ]

    assert [page["page"] for page in pages] == [
        {"offset": offset, "limit": 20, "total": 45} for offset in (0, 20, 40, 45)
    ]
    assert [len(page["vertices"]) for page in pages] == [20, 20, 5, 0]
    described = [vertex["id"] for page in pages for vertex in page["vertices"]]
    assert described == [choice["id"] for choice in pages[0]["choices"]]
    # Every page gives the whole job's verdict and counts, and names every vertex whose
    # state cannot be restored, on the page or not.
    for page in pages:
        assert (page["ok"], page["restores"]) == (True, False)
        assert page["problemCounts"] == {"error": 45, "warning": 45, "info": 0}
        errors = [p for p in page["problems"] if p["severity"] == "error"]
        assert {p["vertex"] for p in errors} == set(described)
        on_page = {vertex["id"] for vertex in page["vertices"]}
        warned = {p["vertex"] for p in page["problems"] if p["severity"] == "warning"}
        assert warned == on_page
    # The pin sets every derived vertex, not only those of a page.
    assert pages[3]["pin"]["edits"] == [
        {"kind": "set_field", "element": "config", "field": "maxParallelism", "value": 128}
    ]


@pytest.mark.parametrize(
    ("query", "field"),
    [("limit=101", "limit"), ("limit=0", "limit"), ("offset=-1", "offset")],
)
def test_a_page_out_of_bounds_is_refused(query: str, field: str) -> None:
    team = make_team()

    response = team.client("viewer").get(_url(team, f"parallelism=2&{query}"))

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
