"""Worker for the multi-process statistics test (imported by spawned processes by name)."""

from __future__ import annotations

import numpy as np


def write_rows(path: str, rows: list[int], start_event) -> None:
    """Write one chunk row at a time, each row holding values derived from its index."""
    import zarrforge as zf

    a = zf.open_array(path, mode="r+")
    start_event.wait(30)
    for row in rows:
        a[row] = row_values(row, a.shape[1])


def row_values(row: int, width: int) -> np.ndarray:
    return (np.arange(width, dtype="int64") - width // 2) * (row + 1)
