"""Deprecated: subcommands returned by the ``zarrforge_cli_commands`` hook.

Before 0.2 hook plugins could add subcommands by implementing
``zarrforge_cli_commands()`` (specification: :mod:`zarrforge_cli.hookspecs`).
Entry points in the ``zarrforge.cli`` group are now the one way to add a
command (:mod:`zarrforge_cli.registration`). The hook still works for one
release: every implementation that returns commands triggers a
``DeprecationWarning`` naming the entry point to declare instead, and
``zarrforge plugins`` shows its commands as ``ok (deprecated: ...)``. Remove
this module, :mod:`zarrforge_cli.hookspecs` and the ``zarrforge.hookspecs``
entry point of pyproject.toml in 0.3.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from zarrforge.plugin_api.hooks import hook_plugins, plugin_manager

from . import hookspecs
from .contribution import Contribution

HOOK_NAME = "zarrforge_cli_commands"
DEPRECATED = f"the {HOOK_NAME} hook is deprecated; declare a zarrforge.cli entry point instead"


def replacement(name: str) -> str:
    """What to declare instead of returning the command ``name`` from the hook."""
    return (
        f"the {HOOK_NAME} hook is deprecated; declare the command as an entry point "
        f'instead: [project.entry-points."zarrforge.cli"] {name} = "<module>:<command>"'
    )


def _manager() -> Any:
    manager = plugin_manager()
    caller = manager.hook.__dict__.get(HOOK_NAME)
    if caller is None or caller.spec is None:
        manager.add_hookspecs(hookspecs)
    return manager


def contributions() -> list[Contribution]:
    """The commands every implementation of the hook returns, each with a
    ``DeprecationWarning`` attributed to the implementation. An implementation that raises
    (a warning turned into an error included) gives failing contributions instead."""
    caller = getattr(_manager().hook, HOOK_NAME)
    installed = {plugin.name: plugin for plugin in hook_plugins()}
    found = []
    for impl in caller.get_hookimpls():
        plugin = impl.plugin_name
        entry = installed.get(plugin)
        dist = entry.distribution if entry is not None else plugin
        version = entry.version if entry is not None else None

        def contribution(name: str, load: Callable[[], Any]) -> Contribution:
            return Contribution(name, dist, version, f"{plugin} (hook)", "hook", load, DEPRECATED)  # noqa: B023  # called before the loop moves on

        try:
            commands = impl.function() or []
        except Exception as exc:  # noqa: BLE001  # a broken plugin must not break the CLI
            found.append(contribution(plugin, _raising(exc)))
            continue
        for command in commands:
            name = getattr(command, "name", None) or plugin
            try:
                _warn(impl.function, f"{dist} adds the command {name!r}: {replacement(name)}")
            except DeprecationWarning as exc:  # warnings are errors here (-W error)
                found.append(contribution(name, _raising(exc)))
                continue
            found.append(contribution(name, _returning(command)))
    return found


def _warn(function: Callable[..., Any], message: str) -> None:
    # attributed to the implementation, so the plugin's author sees their own file
    code = function.__code__
    warnings.warn_explicit(
        message, DeprecationWarning, code.co_filename, code.co_firstlineno, module=function.__module__
    )


def _returning(command: Any) -> Callable[[], Any]:
    def load() -> Any:
        return command

    return load


def _raising(exc: Exception) -> Callable[[], Any]:
    def load() -> Any:
        raise exc

    return load
