"""Progress display for long operations, driven by ``callback(path, done, total)``.

Modes (``--progress``):

* ``rich``: a rich progress bar per array on standard error;
* ``plain``: lines such as ``copy /temperature: 40/200 chunks, 1.2 MiB of 6.0 MiB,
  3.5 MiB/s``, at most :data:`PLAIN_STEPS` per array plus the last one, for logs and
  pipes;
* ``none``: nothing;
* ``auto`` (default): ``rich`` when standard error is a terminal, else ``plain``.

A reporter is a context manager and a callable with zarrforge.copy's
``progress`` signature. Given ``sizer(path)``, which answers the decoded bytes of the
array at ``path`` (``None`` when it has no fixed size) and the name of the units
counted (``"chunks"`` or ``"shards"``), it also shows the bytes done, the array's
total and the throughput: the bytes done are the units done's share of the array's
bytes (exact at the end; units at the edges of an array are smaller), the throughput
those bytes over the time since the array's copy began (when the previous array's
last step ended).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Self, TextIO

MODES = ("auto", "rich", "plain", "none")
PLAIN_STEPS = 20
Sizer = Callable[[str], "tuple[int | None, str]"]


def short_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{int(n)} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # not reached


class Volume:
    """Bytes and throughput per path, from ``(path, done, total)`` steps."""

    def __init__(self, sizer: Sizer | None) -> None:
        self.sizer = sizer
        self._sizes: dict[str, tuple[int | None, str]] = {}
        self._began: dict[str, float] = {}
        self._last = time.perf_counter()
        self._lock = threading.Lock()

    def describe(self, path: str, done: int, total: int) -> str:
        """``<done>/<total> <units>[, <bytes> of <bytes>, <rate>/s]``."""
        now = time.perf_counter()
        with self._lock:
            if path not in self._began:
                self._began[path] = self._last
                self._sizes[path] = self.sizer(path) if self.sizer is not None else (None, "units")
            self._last = now
            began, (size, unit) = self._began[path], self._sizes[path]
        text = f"{done}/{total} {unit}"
        if size is None or not total:
            return text
        moved = size * done // total
        rate = moved / max(now - began, 1e-6)
        return f"{text}, {short_bytes(moved)} of {short_bytes(size)}, {short_bytes(rate)}/s"


class NoProgress:
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, path: str, done: int, total: int) -> None:
        return None


class PlainProgress(NoProgress):
    """One line per step: ``<verb> /<path>: <done>/<total> <unit>[, bytes, rate]``,
    counts only increase."""

    def __init__(self, verb: str, stream: TextIO, volume: Volume) -> None:
        self.verb = verb
        self.stream = stream
        self.volume = volume
        self._last: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, path: str, done: int, total: int) -> None:
        step = max(1, total // PLAIN_STEPS)
        with self._lock:
            last = self._last.get(path, 0)
            if done < total and done - last < step:
                return
            if done <= last and path in self._last:
                return
            self._last[path] = done
        self.stream.write(f"{self.verb} /{path}: {self.volume.describe(path, done, total)}\n")
        self.stream.flush()


class RichProgress(NoProgress):
    """A rich progress bar per path, with the counts, bytes and throughput beside it."""

    def __init__(self, verb: str, stream: TextIO, volume: Volume) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.verb = verb
        self.volume = volume
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[volume]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(file=stream),
        )
        self._tasks: dict[str, Any] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> Self:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def __call__(self, path: str, done: int, total: int) -> None:
        with self._lock:
            task = self._tasks.get(path)
            if task is None:
                task = self._progress.add_task(f"{self.verb} /{path}", total=total, volume="")
                self._tasks[path] = task
        self._progress.update(
            task, completed=done, total=total, volume=self.volume.describe(path, done, total)
        )


def reporter(mode: str, verb: str, stream: TextIO | None = None, *, sizer: Sizer | None = None) -> NoProgress:
    stream = stream or sys.stderr
    if mode == "auto":
        mode = "rich" if hasattr(stream, "isatty") and stream.isatty() else "plain"
    if mode == "rich":
        return RichProgress(verb, stream, Volume(sizer))
    if mode == "plain":
        return PlainProgress(verb, stream, Volume(sizer))
    return NoProgress()
