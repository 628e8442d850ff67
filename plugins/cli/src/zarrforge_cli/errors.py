"""Exit codes and the exception that carries a failure to click."""

from __future__ import annotations

import click

EXIT_OK = 0
EXIT_PROBLEMS = 1  # problems found, or the operation failed
EXIT_USAGE = 2  # the command line was wrong (click's own code for usage errors)


class CommandFailed(click.ClickException):
    """The operation failed for a reason that is not a usage error: exit code 1."""

    exit_code = EXIT_PROBLEMS
