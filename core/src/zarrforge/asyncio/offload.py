"""Running zarrforge's blocking calls off the event loop, and stopping them when the
coroutine that asked for them is cancelled.

Contract:

* ``await run_blocking(operation, fn)`` runs ``fn()`` on the pool of
  :func:`zarrforge.engine.parallel.async_call_pool`, in a copy of the caller's context, and
  returns its result or raises its exception. The event loop's thread runs none of it:
  no store request, no codec, no indexing.
* Cancelling the awaiting coroutine cancels a call that has not started (it never
  runs). A call already running gets its cancellation flag set: the next store request
  it makes through a :class:`CancellationPoint` (on its own thread, or on a thread its
  engine call hands chunk groups to) raises
  :class:`~zarrforge.errors.OperationCancelledError`, once, so the engine stops as it
  does after a failed request: it hands out no new group, and the groups in progress
  finish storing whole chunks (every chunk old or new). Requests after that one pass,
  so the operation's own clean-up runs (an ``append`` removes what it wrote beyond the
  old shape). The coroutine waits for the call to end, then raises
  ``asyncio.CancelledError``: once it has, nothing of the call is still running.
* :class:`CancellationPoint` is a :class:`~zarrforge.abc.store.WrapperStore` that changes
  neither keys nor values (it forwards conditional writes, versioned ranges, its inner
  store's directory and URL, and its ``repr``); outside a call of this module it is
  transparent.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from ..abc.store import ByteRange, ListDirResult, Store, WrapperStore
from ..engine import parallel
from ..errors import OperationCancelledError

T = TypeVar("T")


class _Flag:
    """One call's cancellation: set from the event loop, checked at store requests."""

    def __init__(self, operation: str) -> None:
        self.operation = operation
        self._lock = threading.Lock()
        self._cancelled = False
        self._raised = False

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True

    def check(self) -> None:
        with self._lock:
            if not self._cancelled or self._raised:
                return
            self._raised = True
        raise OperationCancelledError(
            f"{self.operation} was cancelled: its coroutine was cancelled, so the call stopped "
            "before this store request (chunks already stored hold the new values, the "
            "others the old)",
            operation=self.operation,
        )


_current: contextvars.ContextVar[_Flag | None] = contextvars.ContextVar(
    "zarrforge_async_cancellation", default=None
)


async def run_blocking(operation: str, fn: Callable[[], T]) -> T:
    """``fn()`` on the pool for blocking calls (see the module's contract); ``operation``
    names it in the error a cancellation raises inside it."""
    flag = _Flag(operation)
    context = contextvars.copy_context()

    def call() -> T:
        _current.set(flag)
        return fn()

    submitted = parallel.async_call_pool().submit(context.run, call)
    waited = asyncio.wrap_future(submitted)
    try:
        return await asyncio.shield(waited)
    except asyncio.CancelledError:
        if submitted.cancel():  # not started: it never runs
            raise
        flag.cancel()
        while not waited.done():  # nothing of the call may run on once we have returned
            try:
                await asyncio.wait([waited])
            except asyncio.CancelledError:
                continue
        if not waited.cancelled():
            waited.exception()  # retrieved: the call's own error is not the story
        raise


def _checkpoint() -> None:
    flag = _current.get()
    if flag is not None:
        flag.check()


class CancellationPoint(WrapperStore):
    """Every request is a point where a cancelled call of :func:`run_blocking` stops."""

    forwards_conditional_writes = True

    def __repr__(self) -> str:
        return repr(self.inner)  # errors name the user's store, not this wrapper

    def __eq__(self, other: object) -> bool:
        # the user's store, seen through this wrapper: async handles compare by it, with
        # each other and with blocking handles on the same store
        if isinstance(other, CancellationPoint):
            other = other.inner
        return self.inner is other or self.inner == other

    def __hash__(self) -> int:
        return hash(self.inner)

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        _checkpoint()
        return self.inner.get(key, byte_range)

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        _checkpoint()
        return self.inner.get_many(requests)

    def exists(self, key: str) -> bool:
        _checkpoint()
        return self.inner.exists(key)

    def getsize(self, key: str) -> int | None:
        _checkpoint()
        return self.inner.getsize(key)

    def _get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        _checkpoint()
        return self.inner.get_versioned(key)

    def get_versioned_many(self, keys: Sequence[str]) -> list[tuple[bytes | None, Any]]:
        _checkpoint()
        return super().get_versioned_many(keys)

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        _checkpoint()
        return self.inner.get_ranges(key, ranges, if_generation=if_generation)

    def _set(self, key: str, value: bytes) -> None:
        _checkpoint()
        self.inner.set(key, value)

    def _set_many(self, items: list[tuple[str, bytes]]) -> None:
        _checkpoint()
        self.inner.set_many(items)

    def _set_parts(self, key: str, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        _checkpoint()
        self.inner.set_parts(key, parts)

    def _delete(self, key: str) -> None:
        _checkpoint()
        self.inner.delete(key)

    def _delete_many(self, keys: list[str]) -> None:
        _checkpoint()
        self.inner.delete_many(keys)

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        _checkpoint()
        return self.inner.set_if(key, value, if_generation=if_generation)

    def _delete_if(self, key: str, if_generation: Any) -> None:
        _checkpoint()
        self.inner.delete_if(key, if_generation=if_generation)

    def erase_prefix(self, prefix: str) -> None:
        _checkpoint()
        self.inner.erase_prefix(prefix)

    def list_prefix(self, prefix: str) -> Iterator[str]:
        _checkpoint()
        return self.inner.list_prefix(prefix)

    def list_dir(self, prefix: str) -> ListDirResult:
        _checkpoint()
        return self.inner.list_dir(prefix)


def cancellable(store: Store) -> Store:
    """``store`` under a :class:`CancellationPoint` (once)."""
    return store if isinstance(store, CancellationPoint) else CancellationPoint(store)
