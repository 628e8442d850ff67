"""What the conformance suites share: how a metadata entry is named in test ids and
failure messages, and the hypothesis settings of their randomised checks."""

from __future__ import annotations

import json
from typing import Any


def document_id(document: Any) -> str:
    """``name`` or ``name{"configuration":...}`` (compact, keys sorted) for an entry given
    as a string or as ``{"name": ..., "configuration": {...}}``."""
    if isinstance(document, str):
        return document
    text = json.dumps(document.get("configuration", {}), sort_keys=True, separators=(",", ":"))
    return f"{document.get('name')}{text if text != '{}' else ''}"


def entry_name(document: Any) -> str:
    """The ``name`` of an entry given as a string or a mapping."""
    return document if isinstance(document, str) else document["name"]


def hypothesis_settings(max_examples: int, shrink: bool) -> Any:
    """Settings for a suite's hypothesis checks: ``max_examples`` examples, no deadline
    (a real array per example is slow on a loaded machine), no example database (a suite
    runs in the author's project), every health check off, and no shrinking phase when
    ``shrink`` is false (a failure reported at once, as found)."""
    from hypothesis import HealthCheck, Phase, settings
    phases = [phase for phase in Phase if shrink or phase is not Phase.shrink]
    return settings(max_examples=max_examples, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), phases=phases)
