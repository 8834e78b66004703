"""Secrets kept out of log lines: the values of credential-like query parameters (`ticket`,
`token`, `key`, `password`, `secret`) in any message, such as the request line uvicorn logs
when it accepts a websocket. Tickets are single-use already; this keeps a client that puts
something lasting in a URL from leaking it into the logs."""

from __future__ import annotations

import logging
import re
from typing import Final

_SECRET_PARAMETER: Final = re.compile(
    r"([?&](?:ticket|token|key|password|secret)=)[^&\s\"'#]*", re.IGNORECASE
)
REDACTED: Final = "[redacted]"


def redact(text: str) -> str:
    return _SECRET_PARAMETER.sub(lambda found: found.group(1) + REDACTED, text)


class RedactSecrets(logging.Filter):
    """Rewrites a record's message and string arguments with `redact`."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def redact_server_logs() -> None:
    """Install the filter on the loggers of the ASGI server and of Django's requests."""
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "django.request", "django.server"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
