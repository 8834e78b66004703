"""Cases both implementations of a behaviour run: the server's (pytest) and the browser's
(vitest), from the same JSON files here, so the two cannot drift."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def contract_cases(name: str) -> Any:
    """The cases of `<name>.json`."""
    return json.loads((Path(__file__).parent / f"{name}.json").read_text())
