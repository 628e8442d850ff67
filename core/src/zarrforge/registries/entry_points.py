"""What the registries need to know of installed entry points, apart from resolving
names: the entry points of a group (:func:`installed`), who provides one (:func:`who`,
:func:`qualified_name`, for messages), which distribution a user's preference chooses
among several (:func:`configured_preference`: ``zarrforge.config`` ``prefer``, or the
environment variable :data:`PREFER_ENV`), and the row :func:`zarrforge.registry.registered`
reports for each name (:class:`RegistryEntry`).

:func:`installed` scans the installed distributions once for every zarrforge group
(``zarrforge.*``): each scan reads the metadata of every distribution on ``sys.path``,
tens of milliseconds in an environment of a few hundred packages, and the registries,
the hook manager and the command line each ask for their own group on the first open of a
process. :func:`forget_installed` (called by ``zarrforge.registry.refresh()``) makes the
next call scan again, after a plugin is installed.
"""

from __future__ import annotations

import dataclasses
import os
import threading
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


_scan_lock = threading.Lock()
_scan: dict[str, tuple[importlib_metadata.EntryPoint, ...]] | None = None


def installed(group: str) -> tuple[importlib_metadata.EntryPoint, ...]:
    """The installed entry points of ``group`` (a ``zarrforge.*`` group), from the one scan
    of the installed distributions (see the module docstring).

    Parameters
    ----------
    group : str
        The entry-point group, e.g. ``"zarrforge.codecs"``.

    Returns
    -------
    tuple[importlib_metadata.EntryPoint, ...]
        Its entry points, in the order ``importlib_metadata`` lists them.
    """
    global _scan
    with _scan_lock:
        if _scan is None:
            table: dict[str, list[importlib_metadata.EntryPoint]] = {}
            for ep in importlib_metadata.entry_points():
                if ep.group.startswith("zarrforge"):
                    table.setdefault(ep.group, []).append(ep)
            _scan = {name: tuple(eps) for name, eps in table.items()}
        return _scan.get(group, ())


def forget_installed() -> None:
    """Scan the installed distributions again at the next :func:`installed` (after a
    plugin was installed or removed)."""
    global _scan
    with _scan_lock:
        _scan = None
