from django.core.management import call_command
from django.test import Client


def test_health_answers_ok(client: Client) -> None:
    response = client.get("/api/health/")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok"}


def test_health_rejects_post(client: Client) -> None:
    assert client.post("/api/health/").status_code == 405


def test_system_checks_pass() -> None:
    call_command("check", fail_level="WARNING")
