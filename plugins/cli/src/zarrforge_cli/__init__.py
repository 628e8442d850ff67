"""zarrforge-cli: the ``zarrforge`` command.

Subcommands: ``info``, ``tree``, ``check``, ``copy``, ``plugins``, and every
command contributed through the ``zarrforge.cli`` entry-point group (``zom``
comes from zarrforge-zom that way). Exit codes: 0 success, 1 problems found
or the operation failed, 2 usage error. See ``docs/cli.md``.
"""

from .main import cli, main

__all__ = ["cli", "main"]
from zarrforge import __version__  # noqa: E402  (released together, one version)
