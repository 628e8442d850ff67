"""Killing a writer process midway, for tests of what a killed write leaves behind.

An operation runs in a forked child (POSIX only), which is killed with ``SIGKILL``:

* :func:`writes_made` runs the operation to its end and returns how many store
  writes it made on stores of one class: the points a kill can fall between. A write
  is a call of one of ``methods`` of that class: by default the public writing methods
  of :class:`~zarrforge.abc.store.Store` (a batch counts once, and once more for each
  member it passes on through another of them); name the store's own innermost
  methods for exact points (the local store's ``_replace`` and ``_unlink``);
* :func:`killed_before_write` kills the child just before its ``k``-th such write,
  from inside (exactly at that point, every time);
* :func:`killed_after` kills it from outside after a delay, at whatever point it
  has reached (a timed kill lands inside a write as readily as between two).

Each returns whether the child was killed (``False``: it finished first). A child
that fails any other way is an ``AssertionError`` carrying its traceback. The
operation must leave its effects in the store (a local directory, say), since the
child's memory goes with it; :func:`every_node_opens_and_reads` checks what it left. Forking copies the parent's state: registries and
plugins already loaded cost the child nothing; zarrforge's thread pools start
afresh in the child. Other libraries' pools may not (dask's threaded scheduler waits
for ever on threads the child does not have): run such work synchronously in the
operation. A child that runs :data:`HANG_SECONDS` without being killed on purpose is
killed and reported as hung.
"""

from __future__ import annotations

import os
import signal
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import zarrforge

from ..abc.store import Store
from ..errors import UnfinishedWriteWarning

WRITE_METHODS = (
    "set",
    "set_parts",
    "set_many",
    "set_if",
    "delete",
    "delete_many",
    "delete_if",
    "erase_prefix",
)
_FAILED = 3
#: a child not killed on purpose that runs this long is taken as hung
HANG_SECONDS = 120.0


def _counting_writes(
    store_class: type[Store], methods: Sequence[str], on_write: Callable[[int], None]
) -> list[int]:
    """In this (child) process, call ``on_write(n)`` before the n-th call of one of
    ``methods`` of ``store_class``; the returned list holds the count so far."""
    count = [0]

    def counted(name: str) -> None:
        original = getattr(store_class, name)

        def write(self: Store, *args: object, **kwargs: object) -> object:
            count[0] += 1
            on_write(count[0])
            return original(self, *args, **kwargs)

        setattr(store_class, name, write)

    for name in methods:
        counted(name)
    return count


def _child(operation: Callable[[], object], pipe: int, before: Callable[[], object]) -> None:
    status = 0
    try:
        before()
        result = operation()
        if result is not None:
            os.write(pipe, str(result).encode())
    except BaseException:  # noqa: BLE001  # reported to the parent, whatever it was
        os.write(pipe, traceback.format_exc().encode()[-8000:])
        status = _FAILED
    finally:
        os.close(pipe)
        os._exit(status)


def _wait(pid: int, kill_after: float | None) -> int:
    """The child's exit status; with ``kill_after``, killed then if still running."""
    deadline = time.monotonic() + (HANG_SECONDS if kill_after is None else kill_after)
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        left = deadline - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(left, 0.001))
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    status = os.waitpid(pid, 0)[1]
    if kill_after is None:
        raise AssertionError(
            f"the writer process did not finish in {HANG_SECONDS} s and was "
            "killed: it hung (a lock another thread held when it forked, or a "
            "thread pool of the parent's it waited on?)"
        )
    return status


def _run(
    operation: Callable[[], object], before: Callable[[], object], kill_after: float | None = None
) -> tuple[bool, bytes]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _child(operation, write_end, before)
    os.close(write_end)
    status = _wait(pid, kill_after)
    with os.fdopen(read_end, "rb") as reader:
        said = reader.read()
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return True, said
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return False, said
    raise AssertionError(f"the writer process failed (status {status}):\n{said.decode(errors='replace')}")


def writes_made(
    operation: Callable[[], None], store_class: type[Store], *, methods: Sequence[str] = WRITE_METHODS
) -> int:
    """How many writes to ``store_class`` stores ``operation`` makes, run whole in a child."""
    count: list[list[int]] = []

    def counted_operation() -> int:
        operation()
        return count[0][0]

    _, said = _run(
        counted_operation, lambda: count.append(_counting_writes(store_class, methods, lambda n: None))
    )
    return int(said)


def killed_before_write(
    operation: Callable[[], None], store_class: type[Store], k: int, *, methods: Sequence[str] = WRITE_METHODS
) -> bool:
    """Run ``operation`` in a child killed just before its ``k``-th write to a
    ``store_class`` store (from 1); ``False`` if it made fewer writes and finished."""

    def kill_at(n: int) -> None:
        if n == k:
            os.kill(os.getpid(), signal.SIGKILL)

    return _run(operation, lambda: _counting_writes(store_class, methods, kill_at))[0]


def killed_after(operation: Callable[[], None], seconds: float) -> bool:
    """Run ``operation`` in a child killed after ``seconds`` (``False``: it finished first)."""
    return _run(operation, lambda: None, kill_after=seconds)[0]


NODE_DOCUMENTS = ("zarr.json", ".zarray", ".zgroup")


def every_node_opens_and_reads(root: Path) -> int:
    """Open every node stored below ``root`` (a directory holding a node document of v3
    or v2) and read each array whole; the number of nodes. What any kill must leave."""
    paths = sorted({str(f.parent.relative_to(root)) for name in NODE_DOCUMENTS for f in root.rglob(name)})
    for path in paths:
        with warnings.catch_warnings():  # a marked leftover is opened on purpose here
            warnings.simplefilter("ignore", UnfinishedWriteWarning)
            node = zarrforge.open(str(root), "" if path == "." else path, mode="r")
        if isinstance(node, zarrforge.Array):
            node[...]  # reads every chunk
    return len(paths)
