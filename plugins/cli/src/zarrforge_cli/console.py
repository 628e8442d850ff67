"""Output helpers: rich consoles sized to where the output goes.

On a terminal, output fits the terminal's width (rich asks the terminal). Written to
a file or a pipe, it fits :data:`PIPE_WIDTH` columns, or ``$COLUMNS`` when that is set
(the way to ask for wider or narrower piped output), and carries no colour.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from rich.console import Console

PIPE_WIDTH = 100  # rich would use 80 columns when not writing to a terminal


def output_width(stream: TextIO) -> int | None:
    """The columns output to ``stream`` must fit: ``None`` (the terminal's own width)
    on a terminal, else ``$COLUMNS`` or :data:`PIPE_WIDTH`."""
    if hasattr(stream, "isatty") and stream.isatty():
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PIPE_WIDTH


def make_console(stream: TextIO | None = None, *, stderr: bool = False) -> Console:
    stream = stream or (sys.stderr if stderr else sys.stdout)
    return Console(file=stream, width=output_width(stream), highlight=False)


def human_bytes(n: int | None) -> str:
    if n is None:
        return "n/a"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit} ({n} B)"
        value /= 1024
    return f"{n} B"


def compact_json(value: Any) -> str:
    import json

    return json.dumps(value, separators=(", ", ": "), allow_nan=True, default=str)
