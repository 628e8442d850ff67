"""What the conformance suites share: how a metadata entry is named in test ids and
failure messages, how a value and a first difference are written in failure messages
(with the raw bits of floating-point values, so that two NaNs, or 0.0 and -0.0, are told
apart), and the hypothesis settings of their randomised checks."""

from __future__ import annotations

import json
from typing import Any

import numpy as np


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


def value_text(value: Any) -> str:
    """``value`` as in a failure message: its Python form, and for a floating-point or
    complex element also its raw bits in hex (``nan (bits 0x7ff8000000000000)``)."""
    element = np.asarray(value)
    text = repr(element.tolist())
    if element.dtype.kind in "fc" and element.ndim == 0:
        bits = element.astype(element.dtype.newbyteorder(">")).tobytes().hex()  # most significant first
        return f"{text} (bits 0x{bits})"
    return text


def first_difference(found: Any, expected: Any, *, expected_is: str = "where expected has") -> str:
    """Where two arrays first differ, bit for bit: their shapes or data types, or the
    first element whose bytes differ, with both values (see :func:`value_text`)."""
    found, expected = np.asarray(found), np.asarray(expected)
    if found.shape != expected.shape:
        return f"shape {found.shape} {expected_is} {expected.shape}"
    for index in np.ndindex(expected.shape):
        a, b = expected[index], found[index]
        if np.asarray(a).tobytes() != np.asarray(b).tobytes():
            return f"element {index} is {value_text(b)} {expected_is} {value_text(a)}"
    return "no difference"


def shown(value: Any) -> str:
    """``value`` for a failure message: ``repr``, with long byte strings cut to their
    length and first bytes."""
    if isinstance(value, (bytes, bytearray, memoryview)) and len(value) > 40:
        return f"{len(value)} bytes {bytes(value[:16])!r}..."
    return repr(value)


def expect_equal(found: Any, expected: Any, what: str) -> None:
    """Raise ``AssertionError`` "<what> is <found>; expected <expected>" unless the two are
    equal (for byte strings, also where they first differ). An explicit message, so that
    the suites say what failed with or without pytest's assertion rewriting."""
    if found == expected:
        return
    detail = ""
    if isinstance(found, (bytes, bytearray)) and isinstance(expected, (bytes, bytearray)):
        at = next((i for i, (a, b) in enumerate(zip(found, expected)) if a != b),
                  min(len(found), len(expected)))
        detail = f" (first difference at byte {at}; {len(found)} bytes, expected {len(expected)})"
    raise AssertionError(f"{what} is {shown(found)}; expected {shown(expected)}{detail}")


def expect_refused(attempts: Any, error: type[BaseException], where: str) -> None:
    """Each ``(name, call)`` of ``attempts`` must raise ``error``; the first that does
    not fails, naming the call and ``where`` it was made."""
    for name, attempt in attempts:
        try:
            attempt()
        except error:
            continue
        raise AssertionError(f"{name} {where} was not refused; expected a {error.__name__}")
