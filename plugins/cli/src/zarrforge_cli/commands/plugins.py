"""``zarrforge plugins``: everything installed, where it comes from, and whether it loads."""

from __future__ import annotations

import dataclasses
import json

import click

from .. import registration
from ..console import make_console
from ._common import json_option


def _rows() -> list[dict[str, str | None]]:
    import zarrforge

    rows = [dataclasses.asdict(row) for row in zarrforge.plugins()]
    for name, providers in sorted(registration.contributions().items()):
        for item in providers:
            rows.append(
                {
                    "point": "cli",
                    "name": name,
                    "distribution": item.distribution,
                    "version": item.version,
                    "value": item.value,
                    "status": registration.status(item),
                }
            )
    return rows


def _failed(status: str) -> bool:
    return not status.startswith("ok")


@click.command()
@json_option
def plugins(as_json: bool) -> None:
    """List every installed extension (zarrforge.plugins()), hook plugin and command
    (built-in ones included), with its distribution and load status. Exit code 1 if any
    fails to load or conflicts with another."""
    rows = _rows()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        from rich.markup import escape
        from rich.table import Table

        table = Table(box=None, pad_edge=False, header_style="bold")
        for header in ("extension point", "name", "distribution", "version", "entry point", "status"):
            # a narrow terminal or a pipe folds long cells onto more lines, never cuts them
            table.add_column(header, overflow="fold")
        for row in rows:
            status = row["status"] or ""
            style = "red" if _failed(status) else None
            cells = (
                row["point"] or "",
                row["name"] or "",
                row["distribution"] or "(in-process)",
                row["version"] or "",
                row["value"] or "",
                status,
            )
            # plugin names and error messages are text, not rich markup ("[...]")
            table.add_row(*(escape(cell) for cell in cells), style=style)
        make_console().print(table)
    if any(_failed(row["status"] or "") for row in rows):
        click.get_current_context().exit(1)
