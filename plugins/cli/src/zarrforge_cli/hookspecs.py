"""The command line's own hook specification, added to zarrforge's plugin manager.

zarrforge's core declares only the hooks every installation may fire; this one
is hosted by the command line, so it lives here and is declared through the
``zarrforge.hookspecs`` entry point (see this package's pyproject.toml): the
plugin manager adds it before it registers any hook plugin, and checks every
plugin's implementations against it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import click

hookspec = pluggy.HookspecMarker("zarrforge")


@hookspec
def zarrforge_cli_commands() -> "list[click.Command]":
    """Return click commands (``click.Command`` or ``click.Group``) to add to the
    ``zarrforge`` command line; each command's ``name`` is its subcommand name. Called
    only when the command line lists its commands or runs a name that is not built in.
    Built-in names cannot be replaced; a name provided twice refuses to run and is
    reported by ``zarrforge plugins``. Implementations must not do I/O.
    """
