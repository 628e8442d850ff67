"""Small helpers for validating extension configurations (shared by this plugin's modules)."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from zarrforge.errors import MetadataError


def check_keys(
    name: str,
    configuration: dict[str, Any] | None,
    allowed: AbstractSet[str],
    required: AbstractSet[str] = frozenset(),
) -> dict[str, Any]:
    configuration = configuration or {}
    unknown = set(configuration) - allowed
    if unknown:
        raise MetadataError(
            f"{name}: unknown configuration key(s) {sorted(unknown)}; valid: {sorted(allowed)}",
            field="configuration",
            value=configuration,
        )
    missing = required - set(configuration)
    if missing:
        raise MetadataError(
            f"{name}: missing configuration key(s) {sorted(missing)}",
            field="configuration",
            value=configuration,
        )
    return configuration


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
