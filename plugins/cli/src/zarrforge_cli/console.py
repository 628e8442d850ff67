"""Output helpers: rich consoles that do not wrap or colour what goes to files and pipes."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from rich.console import Console

PIPE_WIDTH = 200  # rich would wrap at 80 columns when not writing to a terminal


def make_console(stream: TextIO | None = None, *, stderr: bool = False) -> Console:
    stream = stream or (sys.stderr if stderr else sys.stdout)
    interactive = hasattr(stream, "isatty") and stream.isatty()
    width = None if interactive else int(os.environ.get("COLUMNS", PIPE_WIDTH))
    return Console(file=stream, width=width, soft_wrap=not interactive, highlight=False)


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
