"""Checks for the ``configuration`` objects of the codecs in this package.

Contract: each helper returns the checked (and normalised) value or raises
:class:`zarrforge.errors.MetadataError` whose ``field`` is the dotted path of
the offending member (``"configuration.level"``), whose ``value`` is what was
found, and whose message names the codec and says what would be valid.
JSON ``true``/``false`` are never accepted where an integer is expected.
An :class:`enum.Enum` member where a string is expected (zarr-python's ``BloscShuffle``,
``zarrforge.codecs.BloscCname``, ...) stands for its value.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from enum import Enum
from typing import Any

from zarrforge.errors import MetadataError


def _field(key: str) -> str:
    return f"configuration.{key}"


def configuration_object(
    codec: str, configuration: Any, *, allowed: Iterable[str], required: Iterable[str] = ()
) -> dict[str, Any]:
    """``configuration`` as a dict, after checking its keys against ``allowed``/``required``."""
    allowed = list(allowed)
    if not isinstance(configuration, dict):
        raise MetadataError(
            f"the configuration of codec {codec!r} must be a JSON object with keys "
            f"{allowed}, got {type(configuration).__name__} {configuration!r}",
            field="configuration",
            value=configuration,
        )
    for key in configuration:
        if key not in allowed:
            raise MetadataError(
                f"codec {codec!r} has no configuration key {key!r}; valid keys: "
                f"{', '.join(allowed) if allowed else 'none'}",
                field=_field(str(key)),
                value=configuration[key],
            )
    for key in required:
        if key not in configuration:
            raise MetadataError(
                f"the configuration of codec {codec!r} lacks the required key {key!r}",
                field=_field(key),
                value=None,
            )
    return dict(configuration)


def integer(
    codec: str, key: str, value: Any, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """An integer within ``[minimum, maximum]`` (either bound may be open)."""
    ok = isinstance(value, int) and not isinstance(value, bool)
    if ok:
        value = int(value)
        ok = (minimum is None or value >= minimum) and (maximum is None or value <= maximum)
    if not ok:
        if minimum is not None and maximum is not None:
            valid = f"an integer from {minimum} to {maximum}"
        elif minimum is not None:
            valid = f"an integer >= {minimum}"
        elif maximum is not None:
            valid = f"an integer <= {maximum}"
        else:
            valid = "an integer"
        raise MetadataError(
            f"codec {codec!r}: {key} must be {valid}, got {value!r}", field=_field(key), value=value
        )
    result: int = value
    return result


def boolean(codec: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise MetadataError(
            f"codec {codec!r}: {key} must be true or false, got {value!r}", field=_field(key), value=value
        )
    return value


def choice(codec: str, key: str, value: Any, options: Collection[str]) -> str:
    """One of the strings in ``options`` (an enum member: its value), as a plain ``str``."""
    if isinstance(value, Enum):
        value = value.value
    if not isinstance(value, str) or value not in options:
        raise MetadataError(
            f"codec {codec!r}: {key} must be one of {', '.join(repr(o) for o in options)}, got {value!r}",
            field=_field(key),
            value=value,
        )
    return str(value)
