"""Read-modify-write of stored values that loses no concurrent update.

On a store with conditional writes (``capabilities.conditional_writes``, see
:mod:`zarrforge.abc.store`), :func:`read_modify_write` runs an update against a
:class:`GenerationGuard`: a view of the store that remembers the generation of
every whole value read through it and writes each value back only if that
generation is still current (a key read as absent must still be absent). An
update that meets another writer's change (:class:`~zarrforge.errors.ConflictError`)
is run again from fresh reads, after a short randomised pause that grows with
each try, up to ``config.conflict_retries`` times.

On a store without conditional writes the update runs once, directly on the
store: a plain read and a plain write, as before, and concurrent updates of
one value can lose one of them (docs/reliability.md).

Used for metadata: attribute and extension changes, resizes and the
consolidated views of ancestor groups are applied to the latest stored
document, not to a handle's possibly stale copy.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .. import config
from ..abc.store import ABSENT, ByteRange, Store, WrapperStore
from ..errors import ConflictError

T = TypeVar("T")
_UNREAD = object()  # a key this update has not read (ABSENT is a generation)


class GenerationGuard(WrapperStore):
    """A store view for one optimistic update: whole-value reads record generations,
    writes and deletes are conditional on them. Keys written without having been read
    are written only if they are absent. Byte-range reads and listings pass through.

    A key keeps the generation of its first read (or of this update's own write): the
    update computed its change from that version, so that is the one its writes are
    checked against. A later read of the key that finds another version means the
    change is already stale: it raises :class:`~zarrforge.errors.ConflictError` at once
    (reading it again must not make the stale change look current)."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.generations: dict[str, Any] = {}

    def _note(self, key: str, generation: Any) -> None:
        known = self.generations.get(key, _UNREAD)
        if known is _UNREAD:
            self.generations[key] = generation
        elif known != generation:
            raise ConflictError(f"{key!r} changed while an update of it was being computed", key=key)

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        if byte_range is not None:
            return self.inner.get(key, byte_range)
        value, generation = self.inner.get_versioned(key)
        self._note(key, generation)
        return value

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        whole = [key for key, byte_range in requests if byte_range is None]
        fetched = dict(zip(whole, self.inner.get_versioned_many(whole))) if whole else {}
        results = []
        for key, byte_range in requests:
            if byte_range is None:
                value, generation = fetched[key]
                self._note(key, generation)
                results.append(value)
            else:
                results.append(self.inner.get(key, byte_range))
        return results

    def exists(self, key: str) -> bool:
        return self.get(key) is not None

    def _set(self, key: str, value: bytes) -> None:
        expected = self.generations.get(key, ABSENT)
        self.generations[key] = self.inner.set_if(key, value, if_generation=expected)

    def _set_parts(self, key: str, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        expected = self.generations.get(key, ABSENT)
        self.generations[key] = self.inner.set_parts_if(key, parts, if_generation=expected)

    def _delete(self, key: str) -> None:
        self.inner.delete_if(key, if_generation=self.generations.get(key, ABSENT))
        self.generations[key] = ABSENT


def read_modify_write(store: Store, update: Callable[[Store], T]) -> T:
    """``update(view)`` applied so that no concurrent update of the values it reads and
    writes is lost (see the module docstring); returns what ``update`` returns.

    Parameters
    ----------
    store : zarrforge.abc.store.Store
        The store.
    update : Callable[[zarrforge.abc.store.Store], T]
        Reads and writes through the store it is given; called again after a conflict.

    Returns
    -------
    T
        What ``update`` returns.

    Raises
    ------
    zarrforge.errors.ConflictError
        The values still changed after ``config.conflict_retries`` retries. Anything
        else ``update`` raises is passed on at once, without a retry.

    Examples
    --------
    >>> store = zarrforge.storage.MemoryStore()
    >>> def increment(view):
    ...     count = int(view.get("count") or b"0") + 1
    ...     view.set("count", str(count).encode())
    ...     return count
    >>> read_modify_write(store, increment), read_modify_write(store, increment)
    (1, 2)
    >>> store.get("count")
    b'2'
    """
    if not store.capabilities.conditional_writes:
        return update(store)
    retries = config.get().conflict_retries
    for attempt in itertools.count():
        try:
            return update(GenerationGuard(store))
        except ConflictError as exc:
            if attempt >= retries:
                raise ConflictError(
                    f"{exc} (still changing after {retries + 1} tries; config conflict_retries)",
                    key=exc.key,
                    keys=exc.keys,
                ) from exc
        pause_before_retry(attempt)
    raise AssertionError("unreachable")  # pragma: no cover


def pause_before_retry(attempt: int) -> None:
    """The pause after failed try number ``attempt`` (from 0): random, so writers that
    collided spread out, and growing with each try up to 0.1 s."""
    time.sleep(random.uniform(0, min(0.1, 0.001 * 2**attempt)))
