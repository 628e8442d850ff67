"""The plugin manager: created once, on first use, from ``zarrforge.plugins``.

``import zarrforge`` does not create it, so importing the package imports no
plugin. :func:`plugin_manager` loads the installed hook plugins the first time
something needs a hook; :func:`register` adds an in-process plugin object.
"""

from __future__ import annotations

import threading
from typing import Any

import pluggy

from . import hookspecs

ENTRY_POINT_GROUP = "zarrforge.plugins"

hookimpl = pluggy.HookimplMarker("zarrforge")

_manager: pluggy.PluginManager | None = None
_lock = threading.Lock()


def plugin_manager() -> pluggy.PluginManager:
    global _manager
    if _manager is None:
        with _lock:
            if _manager is None:
                manager = pluggy.PluginManager("zarrforge")
                manager.add_hookspecs(hookspecs)
                manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
                _manager = manager
    return _manager


def hook() -> Any:
    return plugin_manager().hook


def register(plugin: Any, name: str | None = None) -> None:
    plugin_manager().register(plugin, name=name)


def unregister(plugin: Any) -> None:
    plugin_manager().unregister(plugin)
