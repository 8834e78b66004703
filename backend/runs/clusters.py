"""The cluster profiles of this server, from its settings (`runtime.clusters`), and the check
that tells an operator at start-up what is wrong with them."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register

from config.errors import InvalidRequest
from runtime.clusters import DEFAULT, ClusterConfigError, ClusterProfile, cluster_profiles
from runtime.events import EventsUrlError, check_events_url


def cluster_list() -> dict[str, ClusterProfile]:
    """The profiles by name, `default` first (read from the settings on every call, so a
    test's settings apply)."""
    return cluster_profiles(
        default_master=settings.SPARK_MASTER,
        clusters=settings.SPARK_CLUSTERS,
        max_parallelism=settings.RUN_MAX_PARALLELISM,
        max_subtasks=settings.RUN_MAX_SUBTASKS,
    )


def cluster_get(name: str | None) -> ClusterProfile:
    """The profile called `name` (`default` for None); `InvalidRequest` naming the others."""
    profiles = cluster_list()
    profile = profiles.get(name or DEFAULT)
    if profile is None:
        known = ", ".join(profiles)
        message = f"There is no cluster {name!r} on this server; the clusters are: {known}."
        raise InvalidRequest(message, fields={"cluster": [message]})
    return profile


@register()
def check_clusters(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    try:
        cluster_list()
    except ClusterConfigError as error:
        errors.append(Error(str(error), id="runs.E001", hint="See docs/RUNTIME.md, Settings."))
    try:
        check_events_url(settings.RUN_EVENTS_URL, where="RUN_EVENTS_URL")
    except EventsUrlError as error:
        errors.append(Error(str(error), id="runs.E002", hint="See docs/RUNTIME.md, Settings."))
    return errors
