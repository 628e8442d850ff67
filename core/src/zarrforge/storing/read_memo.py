"""A store view for one metadata operation that reads each key at most once.

Creating a node asks every installed format whether a node is in the way, at
the target and at each ancestor, and then updates consolidated views above
it: the same few documents (the root ``zarr.json`` above all) are read many
times. :class:`ReadMemo` remembers whole-value reads, and what it writes or
deletes itself, for the duration of one operation.

A creation also asks every format for its documents under the new node's
prefix, which is usually empty: :meth:`ReadMemo.note_empty` lists the prefix
once, and while it is empty (nothing written below it through the memo) every
key below it reads as absent without a request: one listing instead of a
missed read per format.

On a store with conditional writes the memo reads whole values with their
generation (``get_versioned``, as cheap as ``get`` there) and answers a versioned read
of a key it holds from memory: the read-modify-write that updates a consolidated
view (:mod:`zarrforge.storing.optimistic`) then commits against the version the operation
first read, instead of reading a large root document a second time. A conditional
write or delete through the memo forgets the key first, so a retry after a conflict
reads the store again.

Contract: reads through the memo return what the inner store held when first
read (or listed), or what was last written through the memo. It is meant for one short
operation by one thread; changes other writers make meanwhile are not seen
(the operation would have raced with them anyway; a conditional write computed from
such a read fails with a conflict). Byte-range reads, listings
and everything else go straight to the inner store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..abc.store import ByteRange, WrapperStore
from ..errors import StoreError


class ReadMemo(WrapperStore):
    # Conditional calls go to the inner store (a memo has no generations to give) and
    # make the memo forget the key, as its own writes do.
    forwards_conditional_writes = True

    def __init__(self, inner: object) -> None:
        super().__init__(inner)  # type: ignore[arg-type]
        self._values: dict[str, bytes | None] = {}
        self._generations: dict[str, Any] = {}  # of the values read versioned
        self._versioned = bool(self.inner.capabilities.conditional_writes)
        self._empty: str | None = None  # a prefix listed empty, with nothing written below since

    def note_empty(self, prefix: str) -> bool:
        """List ``prefix`` (``"a/b/"``) once if the store can; if nothing is below it, keys
        below it read as absent until the memo writes one, and the answer is ``True``. A
        store that cannot list the prefix (Icechunk lists only prefixes of existing nodes)
        is simply read as before (``False``: not known to be empty)."""
        if not prefix or not self.inner.capabilities.listable:
            return False
        try:
            listing = self.inner.list_dir(prefix)
        except StoreError:
            return False
        if not listing.keys and not listing.prefixes:
            self._empty = prefix
            return True
        return False

    def _known(self, key: str) -> bool:
        if key in self._values:
            return True
        if self._empty is not None and key.startswith(self._empty):
            self._values[key] = None
            return True
        return False

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        if byte_range is not None:
            return self.inner.get(key, byte_range)
        if not self._known(key):
            if self._versioned:
                self._values[key], self._generations[key] = self.inner.get_versioned(key)
            else:
                self._values[key] = self.inner.get(key)
        return self._values[key]

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        missing = list(
            dict.fromkeys(key for key, byte_range in requests if byte_range is None and not self._known(key))
        )
        if missing and self._versioned:
            self.get_versioned_many(missing)
        elif missing:
            self._values.update(zip(missing, self.inner.get_many([(k, None) for k in missing])))
        return [
            self._values[key] if byte_range is None else self.inner.get(key, byte_range)
            for key, byte_range in requests
        ]

    def _get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        if key in self._generations:
            return self._values[key], self._generations[key]
        value, generation = self.inner.get_versioned(key)
        self._values[key], self._generations[key] = value, generation
        return value, generation

    def get_versioned_many(self, keys: Sequence[str]) -> list[tuple[bytes | None, Any]]:
        missing = list(dict.fromkeys(k for k in keys if k not in self._generations))
        if missing:  # one batch, as get_many reads what it lacks
            for key, (value, generation) in zip(missing, self.inner.get_versioned_many(missing)):
                self._values[key], self._generations[key] = value, generation
        return [(self._values[key], self._generations[key]) for key in keys]

    def _forget(self, key: str) -> None:
        self._values.pop(key, None)
        self._generations.pop(key, None)

    def exists(self, key: str) -> bool:
        return self.get(key) is not None

    def _forget_empty(self, key: str) -> None:
        """A write below the empty prefix: keys there are no longer known absent."""
        prefix = self._empty
        if prefix is not None and key.startswith(prefix):
            self._empty = None
            self._values = {
                k: v for k, v in self._values.items() if v is not None or not k.startswith(prefix)
            }

    def _set(self, key: str, value: bytes) -> None:
        self._forget_empty(key)
        self._forget(key)  # forgotten first: if the write fails, read it again
        self.inner.set(key, value)
        self._values[key] = bytes(value)

    def _delete(self, key: str) -> None:
        self._forget(key)
        self.inner.delete(key)
        self._values[key] = None

    def _set_if(self, key: str, value: bytes, if_generation: object) -> object:
        self._forget_empty(key)
        self._forget(key)
        return self.inner.set_if(key, value, if_generation=if_generation)

    def _set_parts_if(
        self, key: str, parts: Sequence[bytes | bytearray | memoryview], if_generation: object
    ) -> object:
        self._forget_empty(key)
        self._forget(key)
        return self.inner.set_parts_if(key, parts, if_generation=if_generation)

    def _delete_if(self, key: str, if_generation: object) -> None:
        self._forget(key)
        self.inner.delete_if(key, if_generation=if_generation)

    def erase_prefix(self, prefix: str) -> None:
        for key in [k for k in self._values if k.startswith(prefix)]:
            self._forget(key)
        self.inner.erase_prefix(prefix)
