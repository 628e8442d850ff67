"""Progress display for long operations, driven by ``callback(path, done, total)``.

Modes (``--progress``):

* ``rich``: a rich progress bar per array on standard error;
* ``plain``: lines such as ``copy /temperature: 40/200``, at most
  :data:`PLAIN_STEPS` per array plus the last one, for logs and pipes;
* ``none``: nothing;
* ``auto`` (default): ``rich`` when standard error is a terminal, else ``plain``.

A reporter is a context manager and a callable with zarrforge.copy's
``progress`` signature.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

MODES = ("auto", "rich", "plain", "none")
PLAIN_STEPS = 20


class NoProgress:
    def __enter__(self) -> "NoProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, path: str, done: int, total: int) -> None:
        return None


class PlainProgress(NoProgress):
    """One line per step: ``<verb> /<path>: <done>/<total>``, counts only increase."""

    def __init__(self, verb: str, stream: TextIO) -> None:
        self.verb = verb
        self.stream = stream
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
        self.stream.write(f"{self.verb} /{path}: {done}/{total}\n")
        self.stream.flush()


class RichProgress(NoProgress):
    """A rich progress bar per path."""

    def __init__(self, verb: str, stream: TextIO) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.verb = verb
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(),
                                  TimeRemainingColumn(), console=Console(file=stream))
        self._tasks: dict[str, Any] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> "RichProgress":
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def __call__(self, path: str, done: int, total: int) -> None:
        with self._lock:
            task = self._tasks.get(path)
            if task is None:
                task = self._progress.add_task(f"{self.verb} /{path}", total=total)
                self._tasks[path] = task
        self._progress.update(task, completed=done, total=total)


def reporter(mode: str, verb: str, stream: TextIO | None = None) -> NoProgress:
    stream = stream or sys.stderr
    if mode == "auto":
        mode = "rich" if hasattr(stream, "isatty") and stream.isatty() else "plain"
    if mode == "rich":
        return RichProgress(verb, stream)
    if mode == "plain":
        return PlainProgress(verb, stream)
    return NoProgress()
