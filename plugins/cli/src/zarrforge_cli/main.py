"""The ``zarrforge`` command group; its subcommands are the ``zarrforge.cli`` entry points,
zarrforge-cli's own included (:mod:`zarrforge_cli.registration`), loaded lazily."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import click

from . import hints, registration
from .errors import CommandFailed


class ZarrforgeCLI(click.Group):
    """Subcommands come from :mod:`zarrforge_cli.registration`, each imported only when
    it runs or is listed. Failures of zarrforge itself (a missing node,
    unreadable metadata, an existing destination) exit with 1 and a one-line
    message, its advice in flags (:mod:`zarrforge_cli.hints`); ``--traceback``
    shows the traceback instead. Warnings are one line each, ``warning: ...``, in the
    same words (``--traceback``: Python's own form)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return registration.names()

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return registration.command(name)

    def invoke(self, ctx: click.Context) -> Any:
        from zarrforge.errors import ZarrforgeError

        with warnings.catch_warnings():
            if not ctx.params.get("traceback"):
                warnings.showwarning = functools.partial(_show_warning, ctx)
            try:
                return super().invoke(ctx)
            except (ZarrforgeError, OSError) as exc:
                if ctx.params.get("traceback"):
                    raise
                raise CommandFailed(hints.for_command(_message(exc), ctx.invoked_subcommand)) from exc


def _show_warning(
    ctx: click.Context,
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """A warning as one line of the command's words, not Python's source-line form; a
    deprecation (for a plugin's authors) keeps its category's name."""
    text = hints.for_command(str(message), ctx.invoked_subcommand)
    label = category.__name__ if issubclass(category, DeprecationWarning) else "warning"
    click.echo(f"{label}: {text}", err=True)


def _message(exc: BaseException) -> str:
    from zarrforge.errors import ZarrforgeError

    text = str(exc) or type(exc).__name__
    if not isinstance(exc, ZarrforgeError) and not text.startswith(type(exc).__name__):
        text = f"{type(exc).__name__}: {text}"
    return text


@click.group(cls=ZarrforgeCLI, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="zarrforge-cli", prog_name="zarrforge")
@click.option("--traceback", is_flag=True, help="Show the traceback of a failure.")
def cli(traceback: bool) -> None:
    """zarrforge: inspect, check and copy Zarr hierarchies.

    URL is a directory path, a file:// or memory:// URL, or any scheme an
    installed store plugin handles. Exit codes: 0 success, 1 problems found or
    the operation failed, 2 usage error.
    """


def main(argv: list[str] | None = None) -> Any:
    return cli.main(args=argv, prog_name="zarrforge")
