"""The plugin manager: created once, on first use, from ``zarrforge.plugins``.

``import zarrforge`` does not create it, so importing the package imports no
plugin. :func:`plugin_manager` loads the installed hook plugins the first time
something needs a hook; :func:`register` adds an in-process plugin object.

Each entry point is loaded on its own: one that fails to import, or whose hook
implementations do not match their specifications, is left out with a
:class:`~zarrforge.errors.PluginLoadWarning` naming its distribution and entry
point, and shown as an error row by ``zarrforge.plugins()`` (see
:func:`hook_plugins`); every other plugin, and every call that does not need
it, works as before.
"""

from __future__ import annotations

import dataclasses
import threading
import warnings
import weakref
from typing import Any

import importlib_metadata
import pluggy

from . import hookspecs
from .errors import PluginLoadError, PluginLoadWarning

ENTRY_POINT_GROUP = "zarrforge.plugins"

hookimpl = pluggy.HookimplMarker("zarrforge")

_manager: pluggy.PluginManager | None = None
_lock = threading.Lock()


@dataclasses.dataclass(frozen=True)
class HookPlugin:
    """One installed hook plugin: its entry point and, if it could not be loaded, why."""

    name: str
    distribution: str | None
    version: str | None
    value: str
    error: str | None = None


# What each manager loaded from the entry points (a manager made afresh reads them again).
_installed: "weakref.WeakKeyDictionary[pluggy.PluginManager, list[HookPlugin]]" = (
    weakref.WeakKeyDictionary())


def plugin_manager() -> pluggy.PluginManager:
    global _manager
    if _manager is None:
        with _lock:
            if _manager is None:
                manager = pluggy.PluginManager("zarrforge")
                manager.add_hookspecs(hookspecs)
                _installed[manager] = _load_entry_points(manager)
                _manager = manager
    return _manager


def _load_entry_points(manager: pluggy.PluginManager) -> list[HookPlugin]:
    found: list[HookPlugin] = []
    seen: set[tuple[str, str | None]] = set()
    for ep in importlib_metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = ep.dist
        dist_name, version = (dist.name, dist.version) if dist is not None else (None, None)
        if (ep.name, dist_name) in seen:  # one distribution seen twice on sys.path
            continue
        seen.add((ep.name, dist_name))
        if manager.get_plugin(ep.name) is not None or manager.is_blocked(ep.name):
            continue
        try:
            manager.register(ep.load(), name=ep.name)
        except Exception as exc:  # noqa: BLE001 - one broken plugin must not break the rest
            who = f"distribution {dist_name!r} {version}" if dist_name else "an unknown distribution"
            error = PluginLoadError(f"hook plugin {ep.name!r}: the entry point {ep.value!r} of {who} "
                                    f"(group {ENTRY_POINT_GROUP!r}) failed to load, and is left "
                                    f"out: {type(exc).__name__}: {exc}")
            warnings.warn(str(error), PluginLoadWarning, stacklevel=3)
            found.append(HookPlugin(ep.name, dist_name, version, ep.value, str(error)))
            continue
        found.append(HookPlugin(ep.name, dist_name, version, ep.value))
    return found


def hook_plugins() -> list[HookPlugin]:
    """The installed hook plugins (entry points of ``zarrforge.plugins``), loaded or not."""
    return list(_installed.get(plugin_manager(), ()))


def hook() -> Any:
    return plugin_manager().hook


def register(plugin: Any, name: str | None = None) -> None:
    plugin_manager().register(plugin, name=name)


def unregister(plugin: Any) -> None:
    plugin_manager().unregister(plugin)
