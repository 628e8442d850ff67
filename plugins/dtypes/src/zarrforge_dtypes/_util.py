"""Validation helpers shared by this package's data types and codecs.

* :func:`fill_error` builds the ``MetadataError`` every data type raises for a
  bad fill value: ``field="fill_value"``, the value found and what is valid.
* :func:`config_keys` checks a configuration object against the keys a data
  type or codec allows and requires (``field="configuration"``).
* :func:`is_int` is true for Python integers that are not booleans.
* :func:`length_bytes` reads the ``{"length_bytes": N}`` configuration of the
  fixed-length byte types; :func:`base64_bytes` decodes a base64 fill value.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from zarrforge.errors import MetadataError

#: the largest element a fixed-length type may declare: a header cannot ask for more
MAX_LENGTH_BYTES = 2**31


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def fill_error(type_name: Any, value: Any, valid: str) -> MetadataError:
    return MetadataError(
        f"invalid fill value {value!r} for data type {type_name!r}; expected {valid}",
        field="fill_value",
        value=value,
    )


def config_keys(
    name: str,
    configuration: Any,
    allowed: frozenset[str] | set[str],
    required: frozenset[str] | set[str] = frozenset(),
) -> dict[str, Any]:
    """``configuration`` as a dict (``{}`` for ``None``) after checking its keys."""
    if configuration is None:
        configuration = {}
    if not isinstance(configuration, dict):
        raise MetadataError(
            f"{name}: the configuration must be an object, got {configuration!r}",
            field="configuration",
            value=configuration,
        )
    unknown = sorted(set(configuration) - set(allowed))
    if unknown:
        valid = sorted(allowed) if allowed else "none"
        raise MetadataError(
            f"{name}: unknown configuration key(s) {unknown}; valid: {valid}",
            field="configuration",
            value=configuration,
        )
    missing = sorted(set(required) - set(configuration))
    if missing:
        raise MetadataError(
            f"{name}: missing configuration key(s) {missing}", field="configuration", value=configuration
        )
    return configuration


def length_bytes(name: str, configuration: Any) -> int:
    """The ``length_bytes`` of a fixed-length byte type's configuration (its only key)."""
    config = config_keys(name, configuration, {"length_bytes"}, {"length_bytes"})
    length: int = config["length_bytes"]  # JSON; checked here
    if not is_int(length) or not 0 < length <= MAX_LENGTH_BYTES:
        raise MetadataError(
            f"{name}: length_bytes must be an integer in [1, {MAX_LENGTH_BYTES}], got {length!r}",
            field="configuration.length_bytes",
            value=length,
        )
    return length


def base64_bytes(type_name: str, value: Any, valid: str) -> bytes:
    """The bytes of the base64 fill value ``value``, or the fill-value error."""
    if not isinstance(value, str):
        raise fill_error(type_name, value, valid)
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise fill_error(type_name, value, valid) from None
