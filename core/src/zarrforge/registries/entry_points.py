"""What the registries need to know of installed entry points, apart from resolving
names: who provides one (:func:`who`, :func:`qualified_name`, for messages), which
distribution a user's preference chooses among several
(:func:`configured_preference`: ``zarrforge.config`` ``prefer``, or the environment
variable :data:`PREFER_ENV`), and the row :func:`zarrforge.registry.registered` reports
for each name (:class:`RegistryEntry`).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import importlib_metadata

from .. import config


@dataclasses.dataclass(frozen=True)
class RegistryEntry:
    """One name of one extension point, as :func:`zarrforge.registered` reports it."""

    point: str
    name: str
    distribution: str | None  # None for in-process registrations
    version: str | None
    value: str  # the entry point's "module:attr", or the object's qualified name
    source: str  # "entry point" or "in-process"


def qualified_name(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', repr(obj))}"


def who(ep: importlib_metadata.EntryPoint) -> str:
    dist = ep.dist
    return f"distribution {dist.name!r} {dist.version}" if dist else "an unknown distribution"


PREFER_ENV = "ZARRFORGE_PREFER"


def configured_preference(key: str) -> tuple[str | None, str]:
    """The distribution chosen for ``"<point>:<name>"`` by config or by the environment,
    and where the choice was made (for error messages)."""
    chosen = config.get().prefer.get(key)
    if chosen is not None:
        return chosen, f"zarrforge.config prefer[{key!r}]"
    for item in os.environ.get(PREFER_ENV, "").split(","):
        left, sep, right = item.partition("=")
        if sep and left.strip() == key and right.strip():
            return right.strip(), f"the environment variable {PREFER_ENV}"
    return None, ""
