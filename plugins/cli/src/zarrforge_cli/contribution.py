"""One provider of one subcommand name, and the stand-in run when it cannot be used."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import click

from .errors import CommandFailed


@dataclasses.dataclass
class Contribution:
    """A subcommand as one distribution (or hook plugin) provides it.

    ``value`` is the entry point's ``module:attr`` (or ``"<plugin> (hook)"``);
    ``deprecated`` says how to replace a provider that uses a deprecated path.
    Nothing is imported until :meth:`load`."""

    name: str
    distribution: str | None
    version: str | None
    value: str
    source: str  # "entry point", "in-process" or "hook"
    _load: Callable[[], Any]
    deprecated: str | None = None
    _command: click.Command | None = None
    error: str | None = None

    def load(self) -> click.Command | None:
        """The command, or ``None`` with :attr:`error` set when it cannot be loaded.

        Never raises: a broken plugin must not break the command line."""
        if self._command is not None or self.error is not None:
            return self._command
        try:
            obj = self._load()
            if not isinstance(obj, click.Command) and callable(obj):
                obj = obj()
            if not isinstance(obj, click.Command):
                raise TypeError(
                    f"{self.value} is {type(obj).__name__}, not a click command or a function returning one"
                )
            self._command = obj
        except Exception as exc:  # noqa: BLE001
            self.error = f"{type(exc).__name__}: {exc}"
        return self._command

    @property
    def provider(self) -> str:
        return self.distribution or self.value


def stand_in(name: str, message: str) -> click.Command:
    """A command named ``name`` that accepts any arguments and fails with ``message``
    (exit code 1): what runs in place of a command that cannot."""

    @click.command(
        name=name,
        help=f"(unavailable) {message}",
        add_help_option=False,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )
    def run() -> None:
        raise CommandFailed(f"the command {name!r} cannot run: {message}")

    return run
