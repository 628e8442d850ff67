"""Transactions: writes buffered in memory and committed together, conditionally.

``zarrforge.transaction(store)`` returns a :class:`Transaction`, itself a store:
open and create nodes on it (``zf.open_array(tx, "x")``) and use them as usual.
Used as a context manager it commits when the block ends and aborts when the
block raises; ``commit()`` and ``abort()`` are the explicit form.

Contract:

* **A store with conditional writes** is required
  (``capabilities.conditional_writes``: memory, local directories, S3); any
  other store is refused, since a commit could not tell whether it overwrites
  another writer's change.
* **Writes are buffered**: ``set``, ``delete``, batches and ``erase_prefix``
  change nothing in the store before ``commit()``. The buffered values may
  total ``config.transaction_max_bytes`` (default 1 GiB); a store write (one
  ``set``, or one batch: the chunk engine hands over a call's chunks in a few
  batches) that would pass it raises :class:`~zarrforge.errors.ResourceLimitError`
  and none of it is buffered. The transaction stays open with what it held:
  an array write larger than one batch may have buffered its first batches,
  so abort, or commit what is there and continue in a new transaction.
* **Reads see the transaction's own writes** (including listings). A value
  read from the store is read with its generation; a later whole read of the
  same key that finds another generation raises
  :class:`~zarrforge.errors.ConflictError` at once, so the values a
  transaction sees never mix two states of one key. Byte-range reads of keys
  the transaction has not written go to the store as they are.
* **The transaction is a store with conditional writes of its own**
  (generations local to it), so the chunk engine's read-modify-writes and
  metadata updates work inside it, also from several threads.
* **Commit** (:meth:`Transaction.commit`):

  1. every key the transaction read and then wrote must still have the
     generation it read (one batched read); if any changed, the commit fails
     with ``ConflictError`` naming each such key, and nothing is written;
  2. a commit record ``__zarrforge_commits/<id>.json`` listing the keys is
     written (``__zarr``-prefixed names are reserved for Zarr's own data: no node
     can have one, :mod:`zarrforge.metadata.paths`);
  3. those keys are written or deleted conditionally on the generation read
     (a key read as absent only if still absent), then the keys written
     without reading them (whole values: they need no condition);
  4. if another writer changes a key between steps 1 and 3, the keys already
     written are put back (each only if it still holds this commit's value,
     so a third writer's change is never undone), the record is removed and
     the commit fails with ``ConflictError``; a store error in step 3 puts them
     back the same way and is raised (if putting back fails too, the record
     stays);
  5. the record is deleted; if that fails, the commit stands (every key holds its
     new value) and a :class:`~zarrforge.errors.CommitRecordWarning` says which
     record is left.

* **Atomic**: each key, always. Across keys, other readers can see some keys
  new and others old while a commit runs (as with tensorstore's non-atomic
  transactions). A process that dies during steps 2-5 leaves the record:
  :func:`unfinished_commits` lists such records with their keys (each key
  holds its old or its new value, whole), and :func:`clear_commit_record`
  removes one once the keys have been checked or rewritten.

A transaction is finished by its first ``commit()`` or ``abort()``; using it
afterwards raises :class:`~zarrforge.errors.TransactionError`.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
import time
import uuid
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Self

from .. import config
from ..abc.store import ABSENT, ByteRange, Store, validate_key, validate_prefix
from ..errors import (
    CommitRecordWarning,
    ConflictError,
    ResourceLimitError,
    StoreError,
    TransactionError,
    ZarrforgeError,
)
from . import write_notices
from .storage import StoreLike, resolve_store

RECORD_PREFIX = "__zarrforge_commits/"
_DELETED: Any = None  # a buffered delete
_BLIND: Any = object()  # the generation of a key written without reading it


@dataclasses.dataclass(frozen=True)
class CommitRecord:
    """An unfinished commit found in a store: ``keys`` may hold old or new values."""

    id: str
    started: float  # seconds since the epoch
    keys: list[str]
    record_key: str


class _LocalGeneration:
    """A generation the transaction gave a value it buffered (unique, compared by identity)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<transaction generation>"


class Transaction(Store):
    """Writes buffered in memory and committed together, conditionally: itself a store.

    Open and create nodes on it (``zf.open_array(tx, "x")``) and use them as usual; nothing
    reaches the underlying store before :meth:`commit`. As a context manager it commits when
    the block ends and aborts when the block raises. Make one with :func:`zarrforge.transaction`;
    the module docstring (``zarrforge.storing.transaction``) states the contract.

    Parameters
    ----------
    store : zarrforge.abc.store.Store
        The store to commit to; it must have conditional writes and be writable.
    max_bytes : int or None
        The most bytes of values it may buffer; ``None``: ``config.transaction_max_bytes``.

    Raises
    ------
    zarrforge.errors.StoreError
        The store has no conditional writes, or is read-only.
    """

    scheme = "transaction"

    def __init__(self, store: Store, *, max_bytes: int | None = None) -> None:
        if not store.capabilities.conditional_writes:
            raise StoreError(
                f"transactions need a store with conditional writes, and {store!r} has none "
                "(capabilities.conditional_writes is False): memory, local directories and "
                "S3 have them; a commit on this store could not tell whether it overwrites "
                "another writer's change"
            )
        if store.read_only:
            raise StoreError(f"cannot start a transaction on the read-only store {store!r}")
        super().__init__(read_only=False)
        self.store = store
        self.max_bytes = config.get().transaction_max_bytes if max_bytes is None else max_bytes
        self.capabilities = dataclasses.replace(
            store.capabilities, writable=True, atomic_writes=True, conditional_writes=True
        )
        self._writes: dict[str, bytes | None] = {}  # key -> value, or None: deleted
        self._local: dict[str, _LocalGeneration] = {}  # key -> generation inside the transaction
        self._read: dict[str, Any] = {}  # key -> the store's generation when first read
        self._buffered_bytes = 0
        self._state = "open"
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"Transaction({self.store!r}, {self._state}, {len(self._writes)} key(s) written)"

    # --- state -------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``"open"``, ``"committed"`` or ``"aborted"``."""
        return self._state

    @property
    def buffered_bytes(self) -> int:
        """The bytes of values buffered so far (at most ``max_bytes``)."""
        return self._buffered_bytes

    def _check_open(self) -> None:
        if self._state != "open":
            raise TransactionError(f"this transaction was {self._state}; start a new one")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if self._state != "open":
            return
        if exc_type is None:
            self.commit()
        else:
            self.abort()

    # --- reads -------------------------------------------------------------------------

    def _remember(self, key: str, generation: Any) -> None:
        """Record the store's generation of ``key``; a second, different one is a conflict."""
        first = self._read.setdefault(key, generation)
        if not _same(first, generation):
            raise ConflictError(
                f"{key!r} was changed by another writer after this transaction read it; "
                "abort and start again to see the new value",
                key=key,
            )

    def _versioned(self, keys: Sequence[str]) -> list[tuple[bytes | None, Any]]:
        """Values and generations as seen inside the transaction."""
        with self._lock:
            self._check_open()
            results: list[Any] = [None] * len(keys)
            missing = []
            for i, key in enumerate(keys):
                if key in self._writes:
                    results[i] = (self._writes[key], self._local[key])
                else:
                    missing.append(i)
        if missing:
            fetched = self.store.get_versioned_many([keys[i] for i in missing])
            with self._lock:
                for i, (value, generation) in zip(missing, fetched):
                    key = keys[i]
                    if key in self._writes:  # written meanwhile by another thread
                        results[i] = (self._writes[key], self._local[key])
                        continue
                    self._remember(key, generation)
                    results[i] = (value, generation)
        return results

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        """The value of ``key`` as seen inside the transaction (its own writes first), or ``None``.

        Parameters
        ----------
        key : str
            The key.
        byte_range : zarrforge.abc.store.ByteRange or None
            The part of the value to read; ``None``: all of it.

        Returns
        -------
        bytes or None
            The value (or its range), or ``None`` when the key is absent.

        Raises
        ------
        zarrforge.errors.TransactionError
            The transaction is finished (committed or aborted).
        zarrforge.errors.ConflictError
            Another writer changed the key since the transaction read it.
        """
        validate_key(key)
        return self.get_many([(key, byte_range)])[0]

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        """The values of many keys, as :meth:`get` reads each (whole reads in one batch).

        Parameters
        ----------
        requests : Sequence[tuple[str, zarrforge.abc.store.ByteRange or None]]
            ``(key, byte_range)`` pairs.

        Returns
        -------
        list of bytes or None
            A value (or ``None``) per request, in order.

        Raises
        ------
        zarrforge.errors.TransactionError
            The transaction is finished (committed or aborted).
        zarrforge.errors.ConflictError
            Another writer changed a key since the transaction read it.
        """
        requests = [(validate_key(key), byte_range) for key, byte_range in requests]
        with self._lock:
            self._check_open()
            buffered = {key for key, _ in requests if key in self._writes}
        whole = [key for key, byte_range in requests if byte_range is None or key in buffered]
        values = dict(zip(whole, (value for value, _ in self._versioned(whole))))
        ranged = [(i, request) for i, request in enumerate(requests) if request[0] not in values]
        passed = self.store.get_many([request for _, request in ranged]) if ranged else []
        results: list[bytes | None] = [None] * len(requests)
        for (i, _), value in zip(ranged, passed):
            results[i] = value
        for i, (key, byte_range) in enumerate(requests):
            if key in values:
                value = values[key]
                results[i] = (
                    value if value is None or byte_range is None else value[byte_range.slice_of(len(value))]
                )
        return results

    def exists(self, key: str) -> bool:
        """Whether ``key`` holds a value inside the transaction.

        Parameters
        ----------
        key : str
            The key.

        Returns
        -------
        bool
            ``True`` when it does.
        """
        return self.get(key) is not None

    def getsize(self, key: str) -> int | None:
        """The size in bytes of ``key``'s value inside the transaction, or ``None`` when absent.

        Parameters
        ----------
        key : str
            The key.

        Returns
        -------
        int or None
            The size.
        """
        value = self.get(key)
        return None if value is None else len(value)

    def list_prefix(self, prefix: str) -> Iterator[str]:
        """The keys starting with ``prefix`` inside the transaction: the store's, with the
        transaction's own writes added and its deletes left out.

        Parameters
        ----------
        prefix : str
            The prefix (``""``: every key).

        Yields
        ------
        str
            Each key.

        Raises
        ------
        zarrforge.errors.TransactionError
            The transaction is finished (committed or aborted).
        """
        validate_prefix(prefix)
        with self._lock:
            self._check_open()
            writes = dict(self._writes)
        stored = set(self.store.list_prefix(prefix))
        for key, value in writes.items():
            if key.startswith(prefix):
                (stored.discard if value is None else stored.add)(key)
        return iter(sorted(stored))

    # --- buffered writes ---------------------------------------------------------------

    def _buffer_all(self, items: Sequence[tuple[str, bytes | None]]) -> list[_LocalGeneration]:
        """Buffer every item (``None``: a delete), or, past the size limit, none of them."""
        with self._lock:
            self._check_open()
            size = self._buffered_bytes
            for key, value in dict(items).items():
                old = self._writes.get(key)
                size += (len(value) if value else 0) - (len(old) if old else 0)
            if self.max_bytes is not None and size > self.max_bytes:
                keys = [key for key, _ in items]
                raise ResourceLimitError(
                    f"writing {keys[:3]}{'...' if len(keys) > 3 else ''} would make this "
                    f"transaction buffer {size} bytes, over its limit of {self.max_bytes} "
                    "(config transaction_max_bytes, or transaction(max_bytes=...)); nothing "
                    "of this write was buffered: commit what the transaction holds and "
                    "continue in a new one, abort it, or raise the limit"
                )
            generations = []
            for key, value in items:
                if key not in self._writes and key not in self._read:
                    self._read[key] = _BLIND
                self._writes[key] = value
                generation = self._local[key] = _LocalGeneration()
                generations.append(generation)
            self._buffered_bytes = size
            return generations

    def _buffer(self, key: str, value: bytes | None) -> _LocalGeneration:
        return self._buffer_all([(key, value)])[0]

    def _set(self, key: str, value: bytes) -> None:
        self._buffer(key, value)

    def _delete(self, key: str) -> None:
        self._buffer(key, _DELETED)

    def set_many(self, items: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> None:
        """Buffer many writes at once: all of them, or (past ``max_bytes``) none.

        Parameters
        ----------
        items : Iterable[tuple[str, bytes or bytearray or memoryview]]
            ``(key, value)`` pairs.

        Raises
        ------
        zarrforge.errors.ResourceLimitError
            The buffered values would pass ``max_bytes``.
        zarrforge.errors.TransactionError
            The transaction is finished.
        """
        self._buffer_all([(validate_key(key), bytes(value)) for key, value in items])

    def delete_many(self, keys: Iterable[str]) -> None:
        """Buffer the deletion of many keys at once.

        Parameters
        ----------
        keys : Iterable[str]
            The keys to delete.

        Raises
        ------
        zarrforge.errors.TransactionError
            The transaction is finished (committed or aborted).
        """
        self._buffer_all([(validate_key(key), _DELETED) for key in keys])

    def erase_prefix(self, prefix: str) -> None:
        """Buffer the deletion of every key starting with ``prefix``.

        Parameters
        ----------
        prefix : str
            The prefix.

        Raises
        ------
        zarrforge.errors.TransactionError
            The transaction is finished (committed or aborted).
        """
        validate_prefix(prefix)
        self._buffer_all([(key, _DELETED) for key in self.list_prefix(prefix)])

    # --- conditional writes inside the transaction ---------------------------------------

    def _get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        return self._versioned([key])[0]

    def get_versioned_many(self, keys: Sequence[str]) -> list[tuple[bytes | None, Any]]:
        """Values and generations of many keys, as seen inside the transaction (generations local
        to it for keys it wrote).

        Parameters
        ----------
        keys : Sequence[str]
            The keys.

        Returns
        -------
        list of tuple
            ``(value or None, generation)`` per key, in order.

        Raises
        ------
        zarrforge.errors.TransactionError
            The transaction is finished (committed or aborted).
        """
        return self._versioned([validate_key(key) for key in keys])

    def _current(self, key: str) -> Any:
        if key in self._local:
            return self._local[key]
        if key in self._read and self._read[key] is not _BLIND:
            return self._read[key]
        return None

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        with self._lock:
            self._check_condition(key, if_generation)
            return self._buffer(key, value)

    def _delete_if(self, key: str, if_generation: Any) -> None:
        with self._lock:
            self._check_condition(key, if_generation)
            self._buffer(key, _DELETED)

    def _check_condition(self, key: str, expected: Any) -> None:
        self._check_open()
        current = self._current(key)
        if current is None:  # never seen: read it, as the caller should have
            self._versioned([key])
            current = self._current(key)
        if not _same(current, expected):
            raise ConflictError(f"{key!r} changed inside the transaction since it was read", key=key)

    # --- commit and abort ----------------------------------------------------------------

    def abort(self) -> None:
        """Drop every buffered write; the store is left as it is.

        Raises
        ------
        zarrforge.errors.TransactionError
            The transaction is finished (committed or aborted).
        """
        with self._lock:
            self._check_open()
            self._state = "aborted"
            self._writes.clear()
            self._buffered_bytes = 0

    def commit(self) -> None:
        """Write every buffered change to the store (see the module docstring).

        Raises
        ------
        zarrforge.errors.ConflictError
            Another writer changed a key the transaction read; nothing of the commit is kept.
        zarrforge.errors.TransactionError
            The transaction is finished.
        """
        with self._lock:
            self._check_open()
            self._state = "committing"
            try:
                self._commit()
            except BaseException:
                self._state = "aborted"
                raise
            self._state = "committed"
            self._writes.clear()
            self._buffered_bytes = 0

    def _commit(self) -> None:
        if not self._writes:
            return
        checked = sorted(k for k in self._writes if self._read.get(k) is not _BLIND)
        blind = sorted(k for k in self._writes if self._read.get(k) is _BLIND)
        current = dict(zip(checked, self.store.get_versioned_many(checked))) if checked else {}
        changed = [key for key in checked if not _same(current[key][1], self._read[key])]
        if changed:
            raise ConflictError(
                f"commit refused: {len(changed)} key(s) this transaction read and wrote were "
                f"changed by another writer since: {changed[:10]}; nothing was written",
                key=changed[0],
                keys=changed,
            )
        originals = {key: value for key, (value, _) in current.items()}
        del current
        self._check_no_commit_in_flight_wrote_what_was_read()
        record_key = f"{RECORD_PREFIX}{uuid.uuid4().hex}.json"
        record = {"zarrforge_commit": 1, "started": time.time(), "keys": checked + blind}
        self.store.set_if_absent(record_key, json.dumps(record).encode())
        with write_notices.announcing_writes(self.store, checked + blind):
            self._write_commit(checked, blind, originals, record_key)

    def _write_commit(
        self, checked: list[str], blind: list[str], originals: dict[str, Any], record_key: str
    ) -> None:
        done: list[tuple[str, Any]] = []  # (key, generation this commit left)
        try:
            for key in checked:
                value = self._writes[key]
                if value is None:
                    self.store.delete_if(key, if_generation=self._read[key])
                    done.append((key, ABSENT))
                else:
                    done.append((key, self.store.set_if(key, value, if_generation=self._read[key])))
        except BaseException as exc:
            # a conflict or a store error part way: the keys written so far go back, so the
            # commit changed nothing; if putting them back fails as well, the record stays
            # and unfinished_commits names the keys
            try:
                self._put_back(done, originals)
                self.store.delete(record_key)
            except ZarrforgeError:
                pass
            if isinstance(exc, ConflictError):
                raise ConflictError(
                    f"commit refused: {exc.key!r} was changed by another writer during the "
                    f"commit; the {len(done)} key(s) already written were put back: {exc}",
                    key=exc.key,
                    keys=exc.keys,
                ) from exc
            raise
        for batch in _batches(blind, 256):
            writes = [(k, value) for k in batch if (value := self._writes[k]) is not None]
            deletes = [k for k in batch if self._writes[k] is None]
            if writes:
                self.store.set_many(writes)
            if deletes:
                self.store.delete_many(deletes)
        self._remove_record(record_key)

    def _remove_record(self, record_key: str) -> None:
        """Step 5: the commit has taken effect, so failing to remove its record is not a
        failed commit (a caller would undo what is done): it is said, and the record
        left for clear_commit_record."""
        try:
            self.store.delete(record_key)
        except ZarrforgeError as exc:
            warnings.warn(
                f"the transaction committed, but its commit record {record_key!r} "
                f"could not be removed ({exc}); remove it with "
                "zarrforge.clear_commit_record once you have checked the store",
                CommitRecordWarning,
                stacklevel=3,
            )

    def _check_no_commit_in_flight_wrote_what_was_read(self) -> None:
        """Refuse to commit on values another commit may still put back: a commit that
        meets a conflict restores the keys it wrote, and a transaction that read one of
        them in between must not build on it. Such a commit's record exists from before
        its first write until after its last put-back, so it is seen here."""
        read = {key for key, generation in self._read.items() if generation is not _BLIND}
        for record in _records(self.store):
            overlap = sorted(read.intersection(record.keys))
            if overlap:
                raise ConflictError(
                    f"commit refused: another commit ({record.record_key!r}, started "
                    f"{time.ctime(record.started)}) is writing {overlap[:10]}, which this "
                    "transaction read; nothing was written. Retry the transaction; if that "
                    "commit's process died, see zarrforge.unfinished_commits",
                    key=overlap[0],
                    keys=overlap,
                )

    def _put_back(self, done: list[tuple[str, Any]], originals: dict[str, bytes | None]) -> None:
        """Restore the values keys held before this commit wrote them, each only if it still
        holds what the commit wrote (a third writer's change stands)."""
        for key, generation in done:
            original = originals[key]
            try:
                if original is None:
                    self.store.delete_if(key, if_generation=generation)
                else:
                    self.store.set_if(key, original, if_generation=generation)
            except ConflictError:
                pass


def _same(generation: Any, other: Any) -> bool:
    return generation is other or generation == other


def _batches(items: list[str], size: int) -> Iterator[list[str]]:
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def transaction(
    store: StoreLike, *, max_bytes: int | None = None, storage_options: dict[str, Any] | None = None
) -> Transaction:
    """A new :class:`Transaction` on ``store`` (a Store, path or URL; see the module
    docstring). ``max_bytes``: the most bytes of values it may buffer (default
    ``config.transaction_max_bytes``).

    Parameters
    ----------
    store
        The store the transaction writes to (any store-like); it must have conditional writes.
    max_bytes : int or None
        The most bytes of values it may buffer (above).
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.

    Returns
    -------
    zarrforge.Transaction
        The open transaction, a store to open nodes on.

    Raises
    ------
    zarrforge.errors.StoreError
        The store has no conditional writes, or is read-only.
    """
    return Transaction(resolve_store(store, storage_options=storage_options), max_bytes=max_bytes)


def unfinished_commits(
    store: StoreLike, *, storage_options: dict[str, Any] | None = None
) -> list[CommitRecord]:
    """The commit records a commit that did not finish left in ``store`` (its process
    died), oldest first. Each lists the keys that may hold old or new values.

    Parameters
    ----------
    store
        The store to look in (any store-like), opened read-only.
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.

    Returns
    -------
    list of zarrforge.storing.transaction.CommitRecord
        The records, oldest first.

    Raises
    ------
    zarrforge.errors.StoreError
        A record is not readable.
    """
    return _records(resolve_store(store, read_only=True, storage_options=storage_options))


def _records(store: Store) -> list[CommitRecord]:
    records = []
    for key in store.list_prefix(RECORD_PREFIX):
        raw = store.get(key)
        if raw is None:  # that commit finished meanwhile
            continue
        try:
            document = json.loads(raw)
            keys = [str(k) for k in document["keys"]]
            started = float(document["started"])
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(
                f"the commit record {key!r} is not readable ({exc}); remove it with clear_commit_record",
                key=key,
            ) from exc
        records.append(CommitRecord(key[len(RECORD_PREFIX) :].removesuffix(".json"), started, keys, key))
    return sorted(records, key=lambda r: r.started)


def clear_commit_record(
    store: StoreLike, record: CommitRecord | str, *, storage_options: dict[str, Any] | None = None
) -> None:
    """Remove an unfinished commit's record (after checking or rewriting its keys).

    Parameters
    ----------
    store
        The store holding the record (any store-like).
    record : zarrforge.storing.transaction.CommitRecord or str
        The record (from :func:`zarrforge.unfinished_commits`) or its id.
    storage_options : dict or None
        Options for the filesystem of an fsspec URL.
    """
    resolved = resolve_store(store, storage_options=storage_options)
    key = record.record_key if isinstance(record, CommitRecord) else f"{RECORD_PREFIX}{record}.json"
    resolved.delete(key)
