"""Subcommands contributed by other distributions.

A distribution adds a subcommand by declaring an entry point in the
``zarrforge.cli`` group::

    [project.entry-points."zarrforge.cli"]
    stats = "my_package.cli:stats"

The object is a :class:`click.Command` (a ``click.Group`` for a family of
subcommands) or a callable without arguments returning one. The entry-point
name is the subcommand's name.

Entry points are read only when the command line needs them: to list the
commands (``--help``, ``plugins``) or to run a name that is not built in.
Only the entry point that is run is imported. A command that fails to import,
or a name two distributions provide, does not break the CLI: the name runs a
stand-in that explains the problem and exits with 1. Built-in names cannot be
replaced; a plugin providing one is reported as shadowed by ``zarrforge plugins``.

Entry points are read through zarrforge's own registry mechanism
(:class:`zarrforge.plugin_api.Registry`, the same lazy, conflict-reporting loading
every extension point uses). Hook plugins may also contribute through the
``zarrforge_cli_commands()`` hook (:mod:`zarrforge_cli.hookspecs`), returning a
list of click commands; the command line adds that specification to
zarrforge's plugin manager before asking.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import click
from zarrforge.plugin_api import Registry, hook_plugins, plugin_manager

from . import hookspecs
from .errors import CommandFailed

ENTRY_POINT_GROUP = "zarrforge.cli"
HOOK_NAME = "zarrforge_cli_commands"


@dataclasses.dataclass
class Contribution:
    name: str
    distribution: str | None
    version: str | None
    value: str
    source: str  # "entry point" or "hook"
    _load: Callable[[], Any]
    _command: click.Command | None = None
    error: str | None = None

    def load(self) -> click.Command | None:
        """The command, or ``None`` with :attr:`error` set when it cannot be loaded."""
        if self._command is not None or self.error is not None:
            return self._command
        try:
            obj = self._load()
            if not isinstance(obj, click.Command) and callable(obj):
                obj = obj()
            if not isinstance(obj, click.Command):
                raise TypeError(f"{self.value} is {type(obj).__name__}, not a click command "
                                "or a function returning one")
            self._command = obj
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the CLI
            self.error = f"{type(exc).__name__}: {exc}"
        return self._command


# Subcommands contributed through entry points, loaded the way every extension point's
# names are (no base class: a command is a click object or a function returning one).
commands_registry = Registry("command", ENTRY_POINT_GROUP)


def _entry_point_contributions() -> list[Contribution]:
    found: list[Contribution] = []
    for row in commands_registry.entries():
        found.append(Contribution(row.name, row.distribution, row.version, row.value,
                                  "entry point", lambda name=row.name: commands_registry.get(name)))
    return found


def _with_cli_hookspecs() -> Any:
    manager = plugin_manager()
    if not manager.hook.__dict__.get(HOOK_NAME) or manager.hook.__dict__[HOOK_NAME].spec is None:
        manager.add_hookspecs(hookspecs)
    return manager


def _hook_contributions() -> list[Contribution]:
    manager = _with_cli_hookspecs()
    caller = getattr(manager.hook, HOOK_NAME)
    found = []
    installed = {plugin.name: plugin for plugin in hook_plugins()}
    for impl in caller.get_hookimpls():
        plugin_name = impl.plugin_name
        entry = installed.get(plugin_name)
        dist_name = entry.distribution if entry is not None else plugin_name
        version = entry.version if entry is not None else None
        try:
            commands = impl.function() or []
        except Exception as exc:  # noqa: BLE001
            found.append(Contribution(plugin_name, dist_name, version, f"{plugin_name} (hook)",
                                      "hook", _raising(exc)))
            continue
        for command in commands:
            name = getattr(command, "name", None) or plugin_name
            found.append(Contribution(name, dist_name, version, f"{plugin_name} (hook)", "hook",
                                      lambda command=command: command))
    return found


def _raising(exc: Exception) -> Callable[[], Any]:
    def load() -> Any:
        raise exc
    return load


_cache: dict[str, list[Contribution]] | None = None


def contributions() -> dict[str, list[Contribution]]:
    """Every contributed name and its providers (read once per process)."""
    global _cache
    if _cache is None:
        table: dict[str, list[Contribution]] = {}
        for item in _entry_point_contributions() + _hook_contributions():
            table.setdefault(item.name, []).append(item)
        _cache = table
    return _cache


def _stand_in(name: str, message: str) -> click.Command:
    @click.command(name=name, help=f"(unavailable) {message}", add_help_option=False,
                   context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    def stand_in() -> None:
        raise CommandFailed(f"the command {name!r} cannot run: {message}")

    return stand_in


def command(name: str) -> click.Command | None:
    providers = contributions().get(name)
    if not providers:
        return None
    if len(providers) > 1:
        names = ", ".join(p.distribution or p.value for p in providers)
        return _stand_in(name, f"several plugins provide it ({names}); uninstall all but one")
    loaded = providers[0].load()
    if loaded is None:
        return _stand_in(name, f"{providers[0].distribution or providers[0].value} failed to "
                               f"load it: {providers[0].error}")
    return loaded


def status(item: Contribution, builtin: set[str]) -> str:
    if item.name in builtin:
        return "shadowed: a built-in command has this name"
    if len(contributions().get(item.name, [])) > 1:
        return "conflict: several plugins provide this name"
    return "ok" if item.load() is not None else f"error: {item.error}"
