"""The base of every record's shape. Each app that writes records defines its kinds beside
its other shapes (`accounts.events`, `reviews.events`, ...) as subclasses with a literal
`kind`; the activity feed turns them into its items, so each shape has one source."""

from __future__ import annotations

from config.messages import WireMessage


class Recorded(WireMessage):
    """What one audit record says; subclasses fix `kind` to a literal."""

    kind: str
