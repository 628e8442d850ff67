"""How the ``zarrforge`` command line finds its subcommands: entry points, the one way.

Every subcommand, the built-in ones included, is an entry point in the
``zarrforge.cli`` group; zarrforge-cli declares ``info``, ``tree``, ... in its own
pyproject.toml exactly as a third-party distribution declares its commands::

    [project.entry-points."zarrforge.cli"]
    stats = "my_package.cli:stats"

The entry-point name is the subcommand's name; the object is a
:class:`click.Command` (a ``click.Group`` for a family of subcommands) or a
callable without arguments returning one.

Contract:

* Lazy: entry-point metadata is read on the first lookup; a command's module is
  imported only when that command runs, when ``--help`` lists it (click asks
  each listed command for its short help), or when ``zarrforge plugins`` checks it.
* A broken command fails alone: one that fails to import, or is not a command,
  runs as a stand-in that says why and exits with 1; ``zarrforge plugins``
  reports it with the reason. Entry points are read through core's
  :class:`~zarrforge.hierarchy_api.Registry`, so a failed import is a
  ``PluginLoadError`` naming the distribution and the entry point.
* Clashes are reported, never resolved silently: a name two distributions
  provide runs a stand-in naming both, and ``zarrforge plugins`` reports the
  conflict. zarrforge-cli's own names are the exception in one respect: they
  always run zarrforge-cli's command (a plugin can neither replace nor disable
  ``info``), and the other provider is reported as shadowed.

Commands from the deprecated ``zarrforge_cli_commands`` hook are still added for
one release (:mod:`zarrforge_cli.legacy_hook`), with a ``DeprecationWarning``.
"""

from __future__ import annotations

import functools

import click

from zarrforge.hierarchy_api import Registry

from .contribution import Contribution, stand_in

ENTRY_POINT_GROUP = "zarrforge.cli"
HOST = "zarrforge-cli"  # the distribution whose names no plugin may take

# Loaded the way every extension point's names are (no base class: a command is a
# click object or a function returning one).
commands_registry = Registry("command", ENTRY_POINT_GROUP)

_entry_points: dict[str, list[Contribution]] | None = None
_everything: dict[str, list[Contribution]] | None = None


def entry_point_commands() -> dict[str, list[Contribution]]:
    """Every name of the ``zarrforge.cli`` group and its providers (read once per process;
    nothing is imported)."""
    global _entry_points
    if _entry_points is None:
        table: dict[str, list[Contribution]] = {}
        for row in commands_registry.entries():
            table.setdefault(row.name, []).append(
                Contribution(
                    row.name,
                    row.distribution,
                    row.version,
                    row.value,
                    row.source,
                    functools.partial(commands_registry.get, row.name),
                )
            )
        for name, providers in table.items():
            if len(providers) > 1 and any(p.distribution == HOST for p in providers):
                # the registry would refuse the clash; the host's command runs and
                # `zarrforge plugins` reports the other as shadowed
                commands_registry.prefer(name, HOST)
        _entry_points = table
    return _entry_points


def contributions() -> dict[str, list[Contribution]]:
    """Every subcommand name and its providers: the entry points and, deprecated, the
    ``zarrforge_cli_commands`` hook (asked once per process)."""
    global _everything
    if _everything is None:
        from . import legacy_hook

        table = {name: list(providers) for name, providers in entry_point_commands().items()}
        for item in legacy_hook.contributions():
            table.setdefault(item.name, []).append(item)
        _everything = table
    return _everything


def names() -> list[str]:
    return sorted(contributions())


def _providers(name: str) -> list[Contribution]:
    own = [p for p in entry_point_commands().get(name, []) if p.distribution == HOST]
    # a built-in name needs neither the other providers nor the hook plugins
    return own or contributions().get(name, [])


def command(name: str) -> click.Command | None:
    """The command to run for ``name``: the loaded command, a stand-in that explains why
    it cannot run, or ``None`` when nothing provides ``name``."""
    providers = _providers(name)
    if not providers:
        return None
    if len(providers) > 1:
        which = ", ".join(p.provider for p in providers)
        return stand_in(name, f"several plugins provide it ({which}); uninstall all but one")
    only = providers[0]
    loaded = only.load()
    if loaded is None:
        return stand_in(name, f"{only.provider} failed to load it: {only.error}")
    return loaded


def status(item: Contribution) -> str:
    """``item``'s line in ``zarrforge plugins``: starts with ``ok`` when it runs."""
    providers = contributions().get(item.name, [])
    if len(providers) > 1 and item.distribution != HOST:
        if any(p.distribution == HOST for p in providers):
            return f"shadowed: {HOST}'s own command of this name runs instead"
        which = ", ".join(p.provider for p in providers)
        return f"conflict: several plugins provide this name ({which})"
    if item.load() is None:
        return f"error: {item.error}"
    return f"ok (deprecated: {item.deprecated})" if item.deprecated else "ok"
