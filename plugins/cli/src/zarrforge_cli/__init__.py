"""zarrforge-cli: the ``zarrforge`` command.

Subcommands: every entry point of the ``zarrforge.cli`` group, the one way to
add a command: this distribution's own ``info``, ``tree``, ``check``, ``copy``,
``consolidate`` and ``plugins``, and those of other distributions (``zom`` comes
from zarrforge-zom that way). Exit codes: 0 success, 1 problems found
or the operation failed, 2 usage error. See ``docs/cli.md``.
"""

from .main import cli, main

__all__ = ["cli", "main"]
from zarrforge import __version__ as __version__  # released together, one version
