"""`@username` mentions in comments: which names a text mentions, and who they are.

A mention is `@` and a username (letters, digits and `.+-_`, as Django's usernames are, but
not `@`, so an address such as `ann@example.com` mentions nobody), not preceded by a
character a username has. A trailing full stop ends the sentence, not the name. Names are
matched without regard to letter case, as usernames are unique that way.
"""

from __future__ import annotations

import re
from typing import Final

from django.contrib.auth.models import User
from django.db.models import Q

from accounts.models import Membership
from config.errors import InvalidRequest

MAX_MENTIONS: Final = 20
_MENTION = re.compile(r"(?<![\w.@+-])@([\w.+-]+)")


def mentioned_names(text: str) -> list[str]:
    """The names `text` mentions, first mention first, each once (compared case-blind)."""
    names: dict[str, str] = {}
    for match in _MENTION.finditer(text):
        name = match.group(1).rstrip(".")
        if name:
            names.setdefault(name.casefold(), name)
    return list(names.values())


def mentioned_members(*, workspace_id: int, text: str, field: str = "body") -> list[User]:
    """The workspace members `text` mentions; an unknown name is a 400 naming it."""
    names = mentioned_names(text)
    if len(names) > MAX_MENTIONS:
        raise InvalidRequest(
            f"A comment mentions at most {MAX_MENTIONS} people; this one mentions {len(names)}.",
            fields={field: [f"Mention at most {MAX_MENTIONS} people."]},
        )
    if not names:
        return []
    named = Q()
    for name in names:
        named |= Q(user__username__iexact=name)
    members = {
        m.user.get_username().casefold(): m.user
        for m in Membership.objects.filter(named, workspace_id=workspace_id).select_related("user")
    }
    unknown = [name for name in names if name.casefold() not in members]
    if unknown:
        problems = [f"@{name} is not a member of this workspace." for name in unknown]
        raise InvalidRequest(" ".join(problems), code="unknown-mention", fields={field: problems})
    return [members[name.casefold()] for name in names]
