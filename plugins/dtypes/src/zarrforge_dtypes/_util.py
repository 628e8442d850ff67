"""Validation helpers shared by this package's data types and codecs.

* :func:`fill_error` builds the ``MetadataError`` every data type raises for a
  bad fill value: ``field="fill_value"``, the value found and what is valid.
* :func:`config_keys` checks a configuration object against the keys a data
  type or codec allows and requires (``field="configuration"``).
* :func:`is_int` is true for Python integers that are not booleans.
"""

from __future__ import annotations

from typing import Any

from zarrforge.errors import MetadataError


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def fill_error(type_name: Any, value: Any, valid: str) -> MetadataError:
    return MetadataError(f"invalid fill value {value!r} for data type {type_name!r}; "
                         f"expected {valid}", field="fill_value", value=value)


def config_keys(name: str, configuration: Any, allowed: frozenset[str] | set[str],
                required: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    """``configuration`` as a dict (``{}`` for ``None``) after checking its keys."""
    if configuration is None:
        configuration = {}
    if not isinstance(configuration, dict):
        raise MetadataError(f"{name}: the configuration must be an object, got {configuration!r}",
                            field="configuration", value=configuration)
    unknown = sorted(set(configuration) - set(allowed))
    if unknown:
        valid = sorted(allowed) if allowed else "none"
        raise MetadataError(f"{name}: unknown configuration key(s) {unknown}; valid: {valid}",
                            field="configuration", value=configuration)
    missing = sorted(set(required) - set(configuration))
    if missing:
        raise MetadataError(f"{name}: missing configuration key(s) {missing}",
                            field="configuration", value=configuration)
    return configuration
