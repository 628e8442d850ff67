"""Unfinished-write markers: telling the leftovers of a killed write from a finished node.

A write of several documents (a tree of new nodes, a copy, an xarray dataset) can be
rolled back when it fails, but not when its process is killed. So such a write puts a
small marker document at its root before its first write and deletes it after its
last: the key ``<root>/__zarrforge_unfinished.json`` (``__zarrforge_unfinished.json`` for
the store's root). No format reads that key as a node or as metadata, a group's
listing of its members does not see it (it is a key, not a prefix), and no node can
be named so (names that begin with ``__zarr``, which Zarr keeps for its own data, are
never nodes: :mod:`zarrforge.metadata.paths`; the same holds for transactions' commit
records), so the marker never stands where a member's directory would.

* :func:`marking` writes and removes the marker around a block. A failure inside the
  block is rolled back by the writer, so the marker goes too (unless the writer keeps
  what it wrote on purpose, as a copy that stopped in its data does: it calls
  :meth:`Marking.keep`); a process killed inside it leaves the marker beside what it
  wrote. A write nested in a marked one (the nodes of a copy, the arrays of a
  dataset), on the same store at or below the marked root, does not mark again.
* A write that replaces its root (``overwrite``, ``mode="w"``) puts the marker down
  before it erases anything, and erases through :meth:`Marking.sparing`, which keeps
  the marker in place (its own, or that of the enclosing write marked at the same
  root): at no moment of the erasure is the old node partly gone and unmarked.
* A new write at a root where a killed write left its marker is refused, with an
  :class:`~zarrforge.errors.UnfinishedWriteError` that says what the leftovers are:
  which operation, which process on which host, since when, and that ``overwrite=True``
  (``mode="w"``) replaces them. That holds whether the killed write got as far as a
  node there (:func:`refusal`, read when a node is in the way) or not (the root's
  prefix is not empty although no node is there). ``overwrite`` writes over the
  leftovers and the marker, and takes the marker down when it ends.
* A successful write pays for its own marker's put and delete and nothing more: a
  marker is read only where something is already in the way, or by a caller that
  asks (``refuse_leftovers``) before it writes anything.
* :func:`unfinished_write` (``zarrforge.unfinished_write``) reads the marker at a path;
  :func:`unfinished_writes_below` finds every marker below a path with one listing (what
  ``zarrforge check`` uses where no node stands), and :func:`warn_if_unfinished` warns an
  opener of a node that a marker stands at or above (:class:`UnfinishedWriteWarning`).
* A store that takes only Zarr's own keys (``capabilities.bookkeeping_keys`` false: an
  Icechunk session, which settles unfinished writes itself, by not committing them)
  is never marked.

The marker records who wrote it, never what to do: reading it imports nothing and
runs nothing, and a malformed one reads as "unfinished, by an unknown writer".
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import datetime
import json
import os
import socket
import sys
import warnings
from collections.abc import Iterator
from types import FrameType
from typing import Any

from .._version import __version__
from ..abc.store import Store, WrapperStore
from ..errors import (
    ContainsNodeError,
    StoreError,
    UnfinishedWriteError,
    UnfinishedWriteWarning,
    ZarrforgeError,
)
from ..metadata import paths

MARKER_NAME = "__zarrforge_unfinished.json"

# (id of the base store, root) of the marked writes in progress in this context
_MARKED: contextvars.ContextVar[tuple[tuple[int, str], ...]] = contextvars.ContextVar(
    "zarrforge_marked_writes", default=()
)


@dataclasses.dataclass(frozen=True)
class UnfinishedWrite:
    """What a marker says: the operation, and the process that began it (``None``: the
    marker did not say)."""

    path: str
    operation: str | None
    pid: int | None
    host: str | None
    started: str | None

    @property
    def key(self) -> str:
        """The marker's store key."""
        return marker_key(self.path)

    def describe(self) -> str:
        who = " ".join(
            part
            for part in (
                f"{self.operation!r}" if self.operation else "a write",
                f"by process {self.pid}" if self.pid is not None else "",
                f"on {self.host}" if self.host else "",
                f"begun {self.started}" if self.started else "",
            )
            if part
        )
        return f"an unfinished write ({who}) that was killed before it finished"


def marker_key(root: str) -> str:
    return paths.join(root, MARKER_NAME) if root else MARKER_NAME


def _covered(store: Store, root: str) -> bool:
    base = id(store.base_store())
    return any(
        marked_base == base
        and (marked_root == "" or root == marked_root or root.startswith(marked_root + "/"))
        for marked_base, marked_root in _MARKED.get()
    )


def ours(store: Store, path: str) -> bool:
    """Whether a marked write in progress in this context has its marker at ``path``: the
    marker there is this write's own, not a leftover."""
    return (id(store.base_store()), path) in _MARKED.get()


def _document(operation: str) -> bytes:
    return json.dumps(
        {
            "operation": operation,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "zarrforge": __version__,
        }
    ).encode()


class _SparingMarker(WrapperStore):
    """Forwards everything, but erases a prefix as one batch of deletes that leaves the
    marker ``kept``: shallow keys first (a node's documents before its chunks and the
    nodes below it, so a reader without zarrforge finds no node sooner than a node with
    holes). ``cut_short``: an erasure failed after deleting some of its keys."""

    forwards_conditional_writes = True

    def __init__(self, inner: Store, kept: str) -> None:
        super().__init__(inner)
        self.kept = kept
        self.cut_short = False

    def erase_prefix(self, prefix: str) -> None:
        doomed = sorted(
            (key for key in self.inner.list_prefix(prefix) if key != self.kept),
            key=lambda key: (key.count("/"), key),
        )
        if not doomed:
            return
        try:
            self.inner.delete_many(doomed)
        except BaseException:
            try:
                self.cut_short = not set(doomed) <= set(self.inner.list_prefix(prefix))
            except StoreError:
                self.cut_short = True  # cannot tell: take it as partly erased
            raise


class Marking:
    """A marker in place (or, for a nested write, nothing to do). ``enclosing``: for a
    nested write, whether the enclosing write's marker stands at this same root."""

    def __init__(
        self, store: Store, root: str, operation: str, active: bool, enclosing: bool = False
    ) -> None:
        self.store, self.root, self.operation, self.active = store, root, operation, active
        self.enclosing = enclosing
        self.kept = False

    def sparing(self, store: Store) -> Store:
        """``store`` for erasing this write's root: when a marker stands at the root (this
        write's, or the enclosing write's), a wrapper whose ``erase_prefix`` deletes every
        key but the marker; otherwise ``store`` itself. Pass it to :meth:`failed` when
        the write fails."""
        if not (self.active or self.enclosing):
            return store
        return _SparingMarker(store, marker_key(self.root))

    def failed(self, erasing: Store) -> None:
        """The write failed: keep the marker when its erasure through ``erasing``
        (:meth:`sparing`) stopped partway, since the old node is then neither whole nor
        gone (the enclosing write's marker is the enclosing write's to keep)."""
        if isinstance(erasing, _SparingMarker) and erasing.cut_short:
            self.keep()

    def keep(self) -> None:
        """Leave the marker when the block ends: the write failed and left its nodes
        incomplete on purpose (a copy that stopped in its data)."""
        self.kept = True

    def renew(self) -> None:
        """Write the marker again (after erasing the root, which takes it along)."""
        if self.active:
            self.store.set(marker_key(self.root), _document(self.operation))


@contextlib.contextmanager
def marking(
    store: Store, root: str, operation: str, *, needed: bool = True, refuse_leftovers: bool = False
) -> Iterator[Marking]:
    """Mark ``root`` of ``store`` as being written by ``operation`` for the block (see the
    module docstring). ``needed=False``: the write is a single document, which lands
    whole, so nothing is marked. ``refuse_leftovers``: first refuse, with an
    :class:`UnfinishedWriteError`, a marker a killed write left at ``root`` (for a
    caller that has not looked; one read), rather than write over it."""
    root = paths.normalize_path(root)
    if not (needed or _MARKED.get()) or not store.capabilities.bookkeeping_keys:
        # (a single document, with no marked write around it: nothing to mark or spare,
        # decided without the look for an enclosing write below)
        yield Marking(store, root, operation, active=False)
        return
    if _covered(store, root):
        yield Marking(store, root, operation, active=False, enclosing=ours(store, root))
        return
    if not needed:
        yield Marking(store, root, operation, active=False)
        return
    if refuse_leftovers:
        left = leftover_refusal(store, root)
        if left is not None:
            raise left
    mark = Marking(store, root, operation, active=True)
    mark.renew()
    token = _MARKED.set((*_MARKED.get(), (id(store.base_store()), root)))
    try:
        yield mark
    finally:
        _MARKED.reset(token)
        if not mark.kept:
            try:
                store.delete(marker_key(root))
            except StoreError:
                pass  # the marker stays; it says no more than that this write did not finish


def unfinished_write(store: Store, path: str = "") -> UnfinishedWrite | None:
    """The marker an unfinished write left at ``path`` of ``store``, or ``None`` (always, on
    a store without ``capabilities.bookkeeping_keys``: nothing marks writes there)."""
    path = paths.normalize_path(path)
    if not store.capabilities.bookkeeping_keys:
        return None
    raw = store.get(marker_key(path))
    return None if raw is None else _record(path, raw)


def _record(path: str, raw: bytes) -> UnfinishedWrite:
    """The record of the marker ``raw`` found at ``path`` (a malformed one: all ``None``)."""
    try:
        found = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        found = None
    if not isinstance(found, dict):
        return UnfinishedWrite(path, None, None, None, None)

    def field(name: str, kind: type) -> Any:
        value = found.get(name)
        return value if isinstance(value, kind) and not isinstance(value, bool) else None

    return UnfinishedWrite(
        path, field("operation", str), field("pid", int), field("host", str), field("started", str)
    )


def warn_if_unfinished(store: Store, path: str) -> None:
    """Warn, with an :class:`UnfinishedWriteWarning`, when a killed write's marker stands at
    ``path`` or at an ancestor of it (the nearest is named), for an opener of the node
    there: it opens, but may read partial data. One batched read (``get_many``) of the
    marker keys; nothing is read on a store without ``capabilities.bookkeeping_keys``, nor
    inside a marked write of this context covering ``path`` (its own marker), and an error
    reading them (the store's, or a limit a misbehaving server's answer breaks) is taken as
    no marker: an open never fails for it."""
    path = paths.normalize_path(path)
    if not store.capabilities.bookkeeping_keys or _covered(store, path):
        return
    parts = path.split("/") if path else []
    roots = ["/".join(parts[:depth]) for depth in range(len(parts), -1, -1)]
    try:
        values = store.get_many([(marker_key(root), None) for root in roots])
    except ZarrforgeError:
        return
    for root, raw in zip(roots, values):
        if raw is not None:
            found = _record(root, raw)
            where = "where" if root == path else f"below {'/' + root!r}, where"
            warnings.warn(
                UnfinishedWriteWarning(
                    f"opened {'/' + path!r} {where} {found.describe()} left its marker "
                    f"{marker_key(root)!r}: what is read there may be partial, old data, new "
                    "data or a mix. Run the same write again to finish it, or "
                    "replace what it left with overwrite=True (mode='w'); delete the marker only "
                    "once the data is known to be whole (zarrforge check lists such markers)",
                    unfinished=found,
                ),
                stacklevel=_callers_level(),
            )
            return


#: zarrforge's own code: a warning for an opener points past its frames
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _callers_level() -> int:
    """The ``stacklevel`` at which :func:`warn_if_unfinished` (this function's caller) warns:
    the first frame outside zarrforge's package, the opener's code, however many of the
    package's own frames (an opening function, the wrapper that checks its keywords) are
    between."""
    frame: FrameType | None = sys._getframe(2)  # warn_if_unfinished's caller, level 2 of warnings.warn
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def unfinished_writes_below(store: Store, path: str) -> list[UnfinishedWrite]:
    """The markers at ``path`` and below it (one listing of its prefix), by path; none on a
    store without ``capabilities.bookkeeping_keys``."""
    path = paths.normalize_path(path)
    if not store.capabilities.bookkeeping_keys:
        return []
    found = []
    for key in sorted(store.list_prefix(path + "/" if path else "")):
        if key == MARKER_NAME or key.endswith("/" + MARKER_NAME):
            found.append(unfinished_write(store, paths.parent_of(key)))
    return [mark for mark in found if mark is not None]


def refusal(store: Store, path: str, error: ContainsNodeError) -> ContainsNodeError:
    """``error`` (a node in the way at ``path``), or, when an unfinished write left that
    node, an :class:`UnfinishedWriteError` saying so and how to replace it."""
    return leftover_refusal(store, path) or error


def leftover_refusal(store: Store, path: str) -> UnfinishedWriteError | None:
    """The error refusing to write at ``path`` over what an unfinished write left there,
    or ``None`` when no leftover marker is there (this context's own marker is none)."""
    if ours(store, path):
        return None
    try:
        found = unfinished_write(store, path)
    except StoreError:
        return None
    if found is None:
        return None
    return UnfinishedWriteError(
        f"{'/' + path!r} holds what {found.describe()} left (its marker "
        f"{marker_key(path)!r} is still there): the nodes there may be incomplete. Pass "
        "overwrite=True (or mode='w') to replace them; zarrforge.unfinished_write(store, path) "
        "reads the marker",
        unfinished=found,
    )
