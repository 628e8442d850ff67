"""Deprecated: the command line's hook specification, ``zarrforge_cli_commands``.

Declared through the ``zarrforge.hookspecs`` entry point (see this package's
pyproject.toml) so that plugins implementing it still load and are checked.
Kept for one release after issue #31 (see :mod:`zarrforge_cli.legacy_hook`);
new code declares an entry point in the ``zarrforge.cli`` group instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import click

hookspec = pluggy.HookspecMarker("zarrforge")


@hookspec
def zarrforge_cli_commands() -> list[click.Command]:
    """Deprecated (emits a ``DeprecationWarning``): declare each command as an entry
    point of the ``zarrforge.cli`` group instead. Return click commands to add to the
    ``zarrforge`` command line; each command's ``name`` is its subcommand name.
    zarrforge-cli's own names cannot be taken; a name provided twice refuses to run
    and is reported by ``zarrforge plugins``. Implementations must not do I/O.
    """
    raise NotImplementedError  # a specification: pluggy calls the implementations, never this
