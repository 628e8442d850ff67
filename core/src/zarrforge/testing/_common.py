"""What the conformance suites share: how a metadata entry is named in test ids and
failure messages, how a suite's declared cases become its tests (:func:`parametrize_cases`),
the check that an unknown configuration key is refused naming it
(:func:`expect_unknown_key_refused`) and that an invalid entry is refused naming its field
(:func:`expect_refused_naming`), that a plugin declared read-only refuses a write
(:func:`expect_write_refused`), how a value and a first difference are written in
failure messages (with the raw bits of floating-point values, so that two NaNs, or 0.0 and
-0.0, are told apart), and the hypothesis settings of their randomised checks."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import MetadataError, ZarrforgeError

UNKNOWN_KEY = "no_such_option"  # the configuration key no entry knows


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


def parametrize_cases(
    metafunc: Any, argument: str, cases: Sequence[Any], label: Callable[[Any], str], missing: str
) -> None:
    """Run the tests taking ``argument`` once per case, with ids ``"<i>:<label(case)>"``; a
    suite asked for them with no cases fails with ``missing`` (what to set)."""
    if argument not in metafunc.fixturenames:
        return
    assert cases, missing
    metafunc.parametrize(argument, cases, ids=[f"{i}:{label(c)}" for i, c in enumerate(cases)])


def with_unknown_key(entry: dict[str, Any], key: str = UNKNOWN_KEY) -> dict[str, Any]:
    """``entry`` (as ``to_json`` wrote it) with the unknown ``key`` added to its configuration."""
    return {**entry, "configuration": dict(entry.get("configuration") or {}, **{key: 1})}


def expect_unknown_key_refused(
    build: Callable[[], Any], where: str, key: str = UNKNOWN_KEY, advice: str = ""
) -> None:
    """``build()`` (from an entry with the unknown configuration ``key``) raises a
    ``MetadataError`` naming the key; else an ``AssertionError`` saying where (and
    ``advice``, what to do)."""
    try:
        build()
    except MetadataError as exc:
        assert key in str(exc), f"{where}: the error does not name the unknown key: {exc}"
    else:
        raise AssertionError(f"{where}: accepted an unknown configuration key{advice}")


def expect_refused_naming(build: Callable[[], Any], where: str, expected: str) -> None:
    """``build()`` (from an invalid entry) raises a ``MetadataError`` naming the field
    ``expected`` or one inside it; else an ``AssertionError`` saying where and what it did."""
    try:
        built = build()
    except MetadataError as exc:
        named = exc.field or ""
        assert named == expected or named.startswith((expected + ".", expected + "[")), (
            f"{where}: the MetadataError names field {named!r}, not {expected!r}: {exc} "
            "(a TypeError, ValueError or KeyError escaping from_json is reported against "
            "the whole entry; raise MetadataError(..., field=...) yourself)"
        )
    except Exception as exc:  # the finding
        raise AssertionError(
            f"{where}: refused with {type(exc).__name__}: {exc}; expected a MetadataError naming {expected!r}"
        ) from exc
    else:
        raise AssertionError(
            f"{where}: accepted (built {built!r}); expected a MetadataError naming {expected!r}"
        )


def expect_write_refused(write: Callable[[], Any], where: str, what: str) -> None:
    """For a plugin declared ``writable = False``: ``write()`` (``what``, for the message)
    raises a zarrforge error; accepting it, or any other exception, is an
    ``AssertionError`` saying where and what."""
    try:
        write()
    except ZarrforgeError:
        return
    except Exception as exc:  # the finding
        raise AssertionError(
            f"{where}: {what} raised {type(exc).__name__}: {exc}, not a zarrforge error"
        ) from exc
    raise AssertionError(f"{where}: writable = False, yet {what} was accepted")


def hypothesis_settings(max_examples: int, shrink: bool) -> Any:
    """Settings for a suite's hypothesis checks: ``max_examples`` examples, no deadline
    (a real array per example is slow on a loaded machine), no example database (a suite
    runs in the author's project), every health check off, and no shrinking phase when
    ``shrink`` is false (a failure reported at once, as found)."""
    from hypothesis import HealthCheck, Phase, settings

    phases = [phase for phase in Phase if shrink or phase is not Phase.shrink]
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=phases,
    )


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
        at = next(
            (i for i, (a, b) in enumerate(zip(found, expected)) if a != b), min(len(found), len(expected))
        )
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
