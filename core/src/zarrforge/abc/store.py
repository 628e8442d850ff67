"""Contract for stores (the ``stores`` extension point, keyed by URL scheme).

A store is a flat mapping from keys to bytes, as the v3 spec's abstract store
interface describes. Keys are ``/``-separated strings with no leading slash,
no empty, ``.`` or ``..`` segments; :func:`validate_key` enforces that and
every store calls it before touching its backend.

Required (the abstract methods): ``get``, ``_set``, ``_delete``,
``list_prefix``. The public ``set`` and ``delete`` are the base class's: they
validate the key and refuse writes on read-only stores, then call ``_set`` /
``_delete``. The rest have correct but possibly slow defaults built on those;
stores override them when their backend does better (a batched ``get_many``, a
native ``list_dir``).

* ``get(key, byte_range=None)`` returns the bytes, or ``None`` when the key
  does not exist. ``byte_range`` is a :class:`ByteRange`.
* ``get_many(requests)`` returns one result per ``(key, byte_range)`` request,
  in order. Stores that can overlap requests do so here.
* ``set(key, value)`` stores the value; on stores with ``atomic_writes`` a
  reader sees either the old or the new value, never a partial one.
* ``delete(key)`` removes a key; deleting a missing key is not an error.
* ``erase_prefix(prefix)`` removes every key under ``prefix``.
* ``list_prefix(prefix)`` yields every key starting with ``prefix``.
* ``list_dir(prefix)`` returns the keys and the child prefixes directly
  below ``prefix`` (which ends with ``/`` or is empty).

``capabilities`` (:class:`StoreCapabilities`) tells callers what a store can do.
``independent_keys`` (default ``True``) promises that writes to different keys do
not affect each other, so the chunk engine may write the chunks of one batch
from several threads at once; a wrapper that gathers several keys into one
stored object (the 2022 draft's sharding transformer) says ``False`` and gets
each batch in one ``set_many`` call from one thread. ``low_latency`` (default
``False``) says a request costs microseconds (memory, a local disk): the engine
then hands its workers a few megabytes of chunks at a time, so they finish
together, instead of the large batches that hide a remote store's latency.
``io_without_gil`` (default ``False``) says ``get_many`` and ``set_many`` do their I/O
without holding Python's GIL (the local store with zarrforge-batch-io's C helper): the
engine then spreads calls over many small uncompressed chunks on its threads, which
overlap that I/O, where otherwise it keeps them on one thread unless they are measured slow.
``bookkeeping_keys`` (default ``True``) says the store keeps keys of zarrforge's
own beside Zarr's documents and chunks (``__zarrforge_unfinished.json``, the
marker of a write in progress: ``zarrforge.storing.unfinished``); a store that takes
only Zarr's keys (an Icechunk session) says ``False`` and its writes go unmarked.

Conditional writes (``capabilities.conditional_writes``): a store that has
them gives every value a *generation*, an opaque token that changes whenever
the value does (a version counter, an ETag, a file's inode, time and size).
``get_versioned(key)`` returns ``(value, generation)``, with the generation
:data:`ABSENT` for a key that has no value; ``set_if(key, value,
if_generation=g)`` stores the value only if the key's generation is still
``g`` (``ABSENT``: only if the key has no value; ``set_if_absent`` says so) and
returns the new generation; ``delete_if(key, if_generation=g)`` deletes only
if it is still ``g``. A changed value fails with
:class:`~zarrforge.errors.ConflictError` naming the key, and stores nothing.
The check and the write are one atomic step with respect to every other
conditional writer of the same data, in this process and in others; a store
also orders plain ``set``/``delete`` against them where it can (the memory
store does; a store that does not says what happens, as the local store
does). The chunk engine and metadata updates use them for every
read-modify-write, retrying on conflict, so concurrent writers lose no
update; on a store without them (the default: ``get_versioned`` and the
others raise ``StoreError``) a read-modify-write is a plain read and a plain
write, and two writers updating one value can lose an update. A store adds
them by overriding ``_get_versioned``, ``_set_if`` and ``_delete_if`` and
setting the capability; :class:`WrapperStore` forwards them only when the
subclass says ``forwards_conditional_writes = True`` (a wrapper that changes
keys or values must not pass them through unchanged).

Ranges of one version (``capabilities.versioned_ranges``): ``get_ranges(key,
ranges)`` returns the bytes of several byte ranges of the value at ``key``, all
read from one version of it, with that version's generation (``(None, ABSENT)``
for a key with no value); ``get_ranges(key, ranges, if_generation=g)`` reads
them only from version ``g`` and raises :class:`~zarrforge.errors.ConflictError`
naming the key when the value changed (or went) since. Every part is of that one
version, a range wholly past the end of the value or an empty range included: a store
that reads each range with a request of its own must tie even those empty answers to
the version (``zarrforge.storing.versions``), or not declare the capability. A reader of a structured
value (a shard: an index, then the inner chunks it points at) reads its parts
with it and never combines parts of two versions. Generations are the same
tokens conditional writes use, where a store has both. The default raises
``StoreError``; callers check the capability and, without it, read the whole
value with one ``get`` (one version on every store with ``atomic_writes``).
:class:`WrapperStore` forwards it on the same terms as conditional writes.

Stores opened read-only raise :class:`~zarrforge.errors.ReadOnlyError` from
every mutating call. ``from_url(url, *, read_only, **options)`` is how the
registry builds a store for a URL with the store's scheme: it always passes
``read_only`` (``True`` for ``mode="r"``), and ``options`` are the user's
``storage_options``.

Bounded reads (:mod:`zarrforge.abc.read_limits`): a store that cannot tell a value's
size before reading it bounds every read by :func:`read_limit` of the key.

Failures of the environment (optional): ``environmental_errors`` (default ``()``)
names the exception classes of the store's libraries that mean the environment failed
(the network, the credentials, the service's answer) rather than a bug: classes, or
dotted names (``"botocore.exceptions.BotoCoreError"``) of a module that holds the class
once the library is imported, so that declaring one imports nothing. The engine takes
an instance of one (or an ``OSError``) escaping ``from_url``, an adapter reading from
the store, or chunk I/O as the environment's failure (``zarrforge.registries.plugin_failures``):
a :class:`~zarrforge.errors.StoreError` naming the URL, never a bug report against the
plugin. :class:`~zarrforge.abc.url_adapter.URLAdapter` takes the same declaration.
"""

from __future__ import annotations

import dataclasses
import os
from abc import abstractmethod
from collections.abc import Hashable, Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any, ClassVar, Self

from ..errors import ReadOnlyError, StoreError
from .extension_point import ExtensionPoint

# part of the store contract, kept in modules of their own
from .read_limits import DOCUMENT_NAMES as DOCUMENT_NAMES
from .read_limits import BoundedBody as BoundedBody
from .read_limits import ReadLimit as ReadLimit
from .read_limits import is_document_key as is_document_key
from .read_limits import read_limit as read_limit
from .store_values import ABSENT as ABSENT
from .store_values import ByteRange as ByteRange
from .store_values import ListDirResult as ListDirResult
from .store_values import StoreCapabilities as StoreCapabilities
from .store_values import validate_key as validate_key
from .store_values import validate_prefix as validate_prefix

# What ``environmental_errors`` holds: exception classes, or their dotted names.
EnvironmentalErrors = tuple[type[BaseException] | str, ...]


class Store(ExtensionPoint):
    scheme: ClassVar[str] = ""
    capabilities: StoreCapabilities = StoreCapabilities()  # a store may set its own per instance
    environmental_errors: ClassVar[EnvironmentalErrors] = ()  # see the module docstring

    def __init__(self, *, read_only: bool = False) -> None:
        self.read_only = read_only

    @classmethod
    def from_url(cls, url: str, **options: Any) -> Store:
        """The store a URL of this store's ``scheme`` names (the default: this store
        cannot be opened from a URL).

        Parameters
        ----------
        url : str
            The URL.
        **options : Any
            The caller's storage options.

        Returns
        -------
        Store
            The store.
        """
        raise NotImplementedError(f"{cls.__name__} cannot be opened from a URL")

    # --- required ---------------------------------------------------------

    @abstractmethod
    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        """The value of ``key`` (or the part ``byte_range`` selects), or ``None`` when the key
        has none. Call ``validate_key`` first.

        Parameters
        ----------
        key : str
            The key.
        byte_range : zarrforge.abc.store_values.ByteRange or None
            The part of the value to read; ``None``: all of it.

        Returns
        -------
        bytes or None
            The value (or its part), or ``None`` when the key has no value.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        """

    @abstractmethod
    def _set(self, key: str, value: bytes) -> None:
        """Store ``value`` under ``key`` (validated, and the store writable: ``set`` checked).

        Parameters
        ----------
        key : str
            The key (validated by the caller).
        value : bytes
            The value.
        """

    @abstractmethod
    def _delete(self, key: str) -> None:
        """Remove ``key``; a missing key is no error (``delete`` checked the rest).

        Parameters
        ----------
        key : str
            The key (validated by the caller).
        """

    @abstractmethod
    def list_prefix(self, prefix: str) -> Iterator[str]:
        """Every key that starts with ``prefix`` (``validate_prefix`` it first), in any order.

        Parameters
        ----------
        prefix : str
            ``""`` or a key followed by ``/``.

        Yields
        ------
        str
            Each key under ``prefix`` (whole keys, not relative to ``prefix``).

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``prefix`` is not a well-formed prefix.
        """

    # --- where the store keeps its keys (optional) ---------------------------

    def local_directory(self) -> str | None:
        """The directory on this machine holding the store's keys (key ``a/b`` is the file
        ``<directory>/a/b``), or ``None`` (the default) when the keys live elsewhere.
        Adapters use it to hand the same data to other tools (a zip file, an Icechunk
        repository), and extensions to share per-file locks between store objects.

        Returns
        -------
        str or None
            The directory, or ``None``.
        """
        return None

    def root_url(self) -> str | None:
        """The URL of the store's root (``s3://bucket/prefix``), for handing the same
        location to other tools; ``None`` (the default) when it has none.

        Returns
        -------
        str or None
            The URL, or ``None``.
        """
        return None

    def data_location(self) -> tuple[Hashable, str] | None:
        """Where this store's values live, for caches shared by several store objects over
        the same data (the engine's decoded-chunk cache): a namespace and a key prefix such
        that, for as long as the process runs, two stores whose ``namespace`` is equal and
        whose ``prefix + key`` is equal hold the same value. ``None`` (the default): nothing
        beyond this store object names it (the engine then names its data by the object,
        while it lives). A store over versions or sessions (a snapshot, an uncommitted
        session) must not name its data by a location other versions share.
        :func:`directory_location` names a local directory.

        Returns
        -------
        tuple[Hashable, str] or None
            ``(namespace, prefix)``, or ``None``.
        """
        return None

    def base_store(self) -> Store:
        """The store that holds the data: this one, or for a wrapper the store under all
        its wrappers (what the engine keys its per-store locks by).

        Returns
        -------
        Store
            The store that holds the data.
        """
        return self

    # --- mutating entry points: read-only checks live here, once ------------

    def _check_writable(self, key: str) -> None:
        if self.read_only or not self.capabilities.writable:
            raise ReadOnlyError(f"cannot modify {key!r}: the store {self!r} is read-only")

    def set(self, key: str, value: bytes | bytearray | memoryview) -> None:
        """Store ``value`` under ``key`` (checks the key and that the store is writable,
        then calls ``_set``).

        Parameters
        ----------
        key : str
            The key.
        value : bytes or bytearray or memoryview
            The value.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        """
        validate_key(key)
        self._check_writable(key)
        self._set(key, bytes(value) if not isinstance(value, bytes) else value)

    def set_parts(self, key: str, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        """Store the concatenation of ``parts`` under ``key``, as ``set`` would (the
        engine hands over a shard as its inner chunks and index this way). Stores that
        can write a list of buffers without joining them override ``_set_parts``; the
        default joins them and calls ``_set``, so wrappers see one value as usual.

        Parameters
        ----------
        key : str
            The key.
        parts : Sequence[bytes | bytearray | memoryview]
            The buffers whose concatenation is the value.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        """
        validate_key(key)
        self._check_writable(key)
        self._set_parts(key, parts)

    def _set_parts(self, key: str, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        """What :meth:`set_parts` calls (the default joins ``parts`` and calls ``_set``).

        Parameters
        ----------
        key : str
            The key (validated, and the store writable: checked).
        parts : Sequence[bytes | bytearray | memoryview]
            The buffers whose concatenation is the value.
        """
        self._set(key, b"".join(parts))

    def delete(self, key: str) -> None:
        """Remove ``key``; a missing key is no error.

        Parameters
        ----------
        key : str
            The key.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        """
        validate_key(key)
        self._check_writable(key)
        self._delete(key)

    def erase_prefix(self, prefix: str) -> None:
        """Remove every key under ``prefix``.

        Parameters
        ----------
        prefix : str
            ``""`` (everything) or a key followed by ``/``.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``prefix`` is not a well-formed prefix.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        """
        validate_prefix(prefix)
        self._check_writable(prefix or "<root>")
        for key in list(self.list_prefix(prefix)):
            self._delete(key)

    def set_many(self, items: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> None:
        """:meth:`set` each ``(key, value)`` (stores overlap them where they can).

        Parameters
        ----------
        items : Iterable[tuple[str, bytes | bytearray | memoryview]]
            The keys and their values.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            A key is not a well-formed store key.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        """
        for key, value in items:
            self.set(key, value)

    def delete_many(self, keys: Iterable[str]) -> None:
        """:meth:`delete` each key.

        Parameters
        ----------
        keys : Iterable[str]
            The keys.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            A key is not a well-formed store key.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        """
        for key in keys:
            self.delete(key)

    # --- conditional writes (capabilities.conditional_writes) ---------------------

    def _check_conditional(self, key: str) -> None:
        if not self.capabilities.conditional_writes:
            raise StoreError(
                f"the store {self!r} has no conditional writes (generations); "
                "check capabilities.conditional_writes first",
                key=key,
            )

    def get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        """The value at ``key`` and its generation (``(None, ABSENT)`` for no value).

        Parameters
        ----------
        key : str
            The key.

        Returns
        -------
        tuple[bytes | None, Any]
            The value and its generation.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        zarrforge.errors.StoreError
            The store has no conditional writes (``capabilities.conditional_writes``).
        """
        validate_key(key)
        self._check_conditional(key)
        return self._get_versioned(key)

    def get_versioned_many(self, keys: Sequence[str]) -> list[tuple[bytes | None, Any]]:
        """:meth:`get_versioned` for each key, in order (stores overlap them where they can).

        Parameters
        ----------
        keys : Sequence[str]
            The keys.

        Returns
        -------
        list[tuple[bytes | None, Any]]
            Each key's value and generation, in order.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            A key is not a well-formed store key.
        zarrforge.errors.StoreError
            The store has no conditional writes (``capabilities.conditional_writes``).
        """
        return [self.get_versioned(key) for key in keys]

    def set_if(self, key: str, value: bytes | bytearray | memoryview, *, if_generation: Any) -> Any:
        """Store ``value`` if the key's generation is ``if_generation``; the new generation.
        Raises :class:`~zarrforge.errors.ConflictError` (storing nothing) otherwise.

        Parameters
        ----------
        key : str
            The key.
        value : bytes or bytearray or memoryview
            The value.
        if_generation : Any
            The generation the value must have (``ABSENT``: no value).

        Returns
        -------
        Any
            The value's new generation.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        zarrforge.errors.StoreError
            The store has no conditional writes (``capabilities.conditional_writes``).
        zarrforge.errors.ConflictError
            The key's generation is not ``if_generation`` (nothing is stored).
        """
        validate_key(key)
        self._check_writable(key)
        self._check_conditional(key)
        return self._set_if(key, bytes(value) if not isinstance(value, bytes) else value, if_generation)

    def set_parts_if(
        self, key: str, parts: Sequence[bytes | bytearray | memoryview], *, if_generation: Any
    ) -> Any:
        """:meth:`set_if` of the concatenation of ``parts`` (as :meth:`set_parts` is to
        ``set``): a large metadata document goes to the store as the spans it was
        read in. Stores that write a list of buffers override ``_set_parts_if``; the
        default joins them and calls ``_set_if``.

        Parameters
        ----------
        key : str
            The key.
        parts : Sequence[bytes | bytearray | memoryview]
            The buffers whose concatenation is the value.
        if_generation : Any
            The generation the value must have (``ABSENT``: no value).

        Returns
        -------
        Any
            The value's new generation.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        zarrforge.errors.StoreError
            The store has no conditional writes (``capabilities.conditional_writes``).
        zarrforge.errors.ConflictError
            The key's generation is not ``if_generation`` (nothing is stored).
        """
        validate_key(key)
        self._check_writable(key)
        self._check_conditional(key)
        return self._set_parts_if(key, parts, if_generation)

    def _set_parts_if(
        self, key: str, parts: Sequence[bytes | bytearray | memoryview], if_generation: Any
    ) -> Any:
        """What :meth:`set_parts_if` calls (the default joins ``parts`` and calls ``_set_if``).

        Parameters
        ----------
        key : str
            The key (validated, and the store writable and conditional: checked).
        parts : Sequence[bytes | bytearray | memoryview]
            The buffers whose concatenation is the value.
        if_generation : Any
            The generation the value must have (``ABSENT``: no value).

        Returns
        -------
        Any
            The value's new generation.

        Raises
        ------
        zarrforge.errors.ConflictError
            The key's generation is not ``if_generation`` (nothing is changed).
        """
        return self._set_if(key, b"".join(parts), if_generation)

    def set_if_absent(self, key: str, value: bytes | bytearray | memoryview) -> Any:
        """Store ``value`` only if ``key`` has no value; the new generation.

        Parameters
        ----------
        key : str
            The key.
        value : bytes or bytearray or memoryview
            The value.

        Returns
        -------
        Any
            The value's new generation.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        zarrforge.errors.StoreError
            The store has no conditional writes (``capabilities.conditional_writes``).
        zarrforge.errors.ConflictError
            ``key`` has a value (nothing is stored).
        """
        return self.set_if(key, value, if_generation=ABSENT)

    def delete_if(self, key: str, *, if_generation: Any) -> None:
        """Delete the value at ``key`` if its generation is ``if_generation`` (``ABSENT``:
        succeed only if there is none); :class:`~zarrforge.errors.ConflictError` otherwise.

        Parameters
        ----------
        key : str
            The key.
        if_generation : Any
            The generation the value must have (``ABSENT``: no value).

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        zarrforge.errors.ReadOnlyError
            The store is read-only.
        zarrforge.errors.StoreError
            The store has no conditional writes (``capabilities.conditional_writes``).
        zarrforge.errors.ConflictError
            The key's generation is not ``if_generation`` (nothing is deleted).
        """
        validate_key(key)
        self._check_writable(key)
        self._check_conditional(key)
        self._delete_if(key, if_generation)

    def get_ranges(
        self, key: str, ranges: Sequence[ByteRange | None], *, if_generation: Any = None
    ) -> tuple[list[bytes] | None, Any]:
        """The bytes of ``ranges`` (``None``: the whole value) of the value at ``key``, all
        from one version of it, and that version's generation; ``(None, ABSENT)`` when
        there is no value. With ``if_generation``: from that version only, else
        :class:`~zarrforge.errors.ConflictError` (``capabilities.versioned_ranges``).

        Parameters
        ----------
        key : str
            The key.
        ranges : Sequence[zarrforge.abc.store_values.ByteRange | None]
            The parts to read; ``None``: the whole value.
        if_generation : Any
            The generation to read from; ``None``: the current one.

        Returns
        -------
        tuple[list[bytes] | None, Any]
            The bytes of each range and the generation they were read from.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``key`` is not a well-formed store key.
        zarrforge.errors.StoreError
            The store cannot read ranges of one version (``capabilities.versioned_ranges``).
        zarrforge.errors.ConflictError
            The value's generation is not ``if_generation``.
        """
        validate_key(key)
        if not self.capabilities.versioned_ranges:
            raise StoreError(
                f"the store {self!r} cannot read ranges of one version of a value; "
                "check capabilities.versioned_ranges first",
                key=key,
            )
        return self._get_ranges(key, list(ranges), if_generation)

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        """What :meth:`get_ranges` calls, for a store with ``capabilities.versioned_ranges``.

        Parameters
        ----------
        key : str
            The key (validated).
        ranges : list[zarrforge.abc.store_values.ByteRange | None]
            The parts to read; ``None``: the whole value.
        if_generation : Any
            The generation to read from; ``None``: the current one.

        Returns
        -------
        tuple[list[bytes] | None, Any]
            The bytes of each range, all from one version, and its generation;
            ``(None, ABSENT)`` when there is no value.

        Raises
        ------
        zarrforge.errors.ConflictError
            The value's generation is not ``if_generation``.
        zarrforge.errors.StoreError
            The default: the store does not implement it.
        """
        raise StoreError(f"{type(self).__name__} does not implement _get_ranges", key=key)

    def _get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        """What :meth:`get_versioned` calls (the default: the whole value through
        ``_get_ranges``).

        Parameters
        ----------
        key : str
            The key (validated, and the store conditional: checked).

        Returns
        -------
        tuple[bytes | None, Any]
            The value and its generation (``(None, ABSENT)`` for no value).
        """
        # by default the whole value as the one range of a versioned read (_get_ranges)
        parts, generation = self._get_ranges(key, [None], None)
        return (None if parts is None else parts[0]), generation

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        """What :meth:`set_if` calls, for a store with ``capabilities.conditional_writes``.

        Parameters
        ----------
        key : str
            The key (validated, and the store writable and conditional: checked).
        value : bytes
            The value.
        if_generation : Any
            The generation the value must have (``ABSENT``: no value).

        Returns
        -------
        Any
            The value's new generation.

        Raises
        ------
        zarrforge.errors.ConflictError
            The key's generation is not ``if_generation`` (nothing is changed).
        zarrforge.errors.StoreError
            The default: the store does not implement it.
        """
        raise StoreError(f"{type(self).__name__} does not implement _set_if", key=key)

    def _delete_if(self, key: str, if_generation: Any) -> None:
        """What :meth:`delete_if` calls, for a store with ``capabilities.conditional_writes``.

        Parameters
        ----------
        key : str
            The key (validated, and the store writable and conditional: checked).
        if_generation : Any
            The generation the value must have (``ABSENT``: no value).

        Raises
        ------
        zarrforge.errors.ConflictError
            The key's generation is not ``if_generation`` (nothing is changed).
        zarrforge.errors.StoreError
            The default: the store does not implement it.
        """
        raise StoreError(f"{type(self).__name__} does not implement _delete_if", key=key)

    # --- reads with defaults --------------------------------------------------

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        """:meth:`get` for each ``(key, byte_range)``, in order (stores overlap them where
        they can).

        Parameters
        ----------
        requests : Sequence[tuple[str, zarrforge.abc.store_values.ByteRange | None]]
            The keys and the parts of their values to read.

        Returns
        -------
        list[bytes | None]
            Each value (or part), ``None`` where a key has none.
        """
        return [self.get(key, byte_range) for key, byte_range in requests]

    def exists(self, key: str) -> bool:
        """Does ``key`` have a value?

        Parameters
        ----------
        key : str
            The key.

        Returns
        -------
        bool
            Whether the key has a value.
        """
        return self.get(key) is not None

    def getsize(self, key: str) -> int | None:
        """Size of the value at ``key`` in bytes, or ``None`` if absent. Reads the value
        by default; stores that can ask for a size cheaply override this.

        Parameters
        ----------
        key : str
            The key.

        Returns
        -------
        int or None
            The size in bytes, or ``None`` when the key has no value.
        """
        value = self.get(key)
        return None if value is None else len(value)

    def list(self) -> Iterator[str]:
        """Every key of the store, in any order.

        Yields
        ------
        str
            Each key.
        """
        return self.list_prefix("")

    def list_dir(self, prefix: str) -> ListDirResult:
        """The keys and sub-prefixes directly under ``prefix``.

        Parameters
        ----------
        prefix : str
            ``""`` or a key followed by ``/``.

        Returns
        -------
        ListDirResult
            The names of the keys directly under ``prefix`` and the sub-prefixes (each
            ending with ``/``), relative to ``prefix``, sorted.

        Raises
        ------
        zarrforge.errors.InvalidPathError
            ``prefix`` is not a well-formed prefix.
        """
        validate_prefix(prefix)
        keys: set[str] = set()
        prefixes: set[str] = set()
        for key in self.list_prefix(prefix):
            rest = key[len(prefix) :]
            head, sep, _ = rest.partition("/")
            (prefixes if sep else keys).add(head + sep if sep else head)
        return ListDirResult(sorted(keys), sorted(prefixes))

    def close(self) -> None:
        """Release what the store holds (nothing by default)."""
        return None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def directory_location(directory: str) -> tuple[Hashable, str]:
    """The :meth:`Store.data_location` of keys stored as files under ``directory``: its real
    path, so that stores rooted at a directory, a link to it, or a parent of it name a
    file alike.

    Parameters
    ----------
    directory : str
        The directory holding the keys.

    Returns
    -------
    tuple[Hashable, str]
        ``(("file",), "<real path>/")``.

    Raises
    ------
    OSError
        Never for a missing directory (its path is taken as given); only where the system
        cannot resolve a path at all.

    Examples
    --------
    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> os.symlink(root, root + "-link")
    >>> directory_location(root + "-link") == directory_location(root)
    True
    >>> directory_location(root)[1].endswith("/")
    True
    """
    return ("file",), os.path.realpath(directory).rstrip(os.sep) + "/"


class WrapperStore(Store):
    """A store that forwards every call to ``inner``; base for transformers and
    instrumentation, which override only what they change.

    Batches stay batches: ``set_many``, ``delete_many`` and ``set_parts`` go to the
    inner store's in one call (``_set_many``, ``_delete_many``, ``_set_parts``), so a
    wrapper does not turn a remote store's concurrent batch into serial writes. A
    wrapper that intercepts single writes (overrides ``_set`` or ``_delete``) but not
    the batch method gets each item of a batch through its ``_set`` / ``_delete``
    instead, so nothing it must see passes it by; override the batch method as well to
    keep the batch whole (each write is then seen once, by whichever method runs).
    """

    def __init__(self, inner: Store) -> None:
        super().__init__(read_only=inner.read_only)
        self.inner = inner

    # A wrapper that neither renames keys nor changes values (a counter, a memo) may pass
    # conditional writes and versioned ranges through; one that does (a shard store) must not.
    forwards_conditional_writes: ClassVar[bool] = False

    @property
    def capabilities(self) -> StoreCapabilities:  # type: ignore[override]
        """The inner store's capabilities, less the conditional writes this wrapper does not forward."""
        inner = self.inner.capabilities
        if (inner.conditional_writes or inner.versioned_ranges) and not self.forwards_conditional_writes:
            return dataclasses.replace(inner, conditional_writes=False, versioned_ranges=False)
        return inner

    def base_store(self) -> Store:
        return self.inner.base_store()

    def local_directory(self) -> str | None:
        # only a wrapper that changes neither keys nor values stands for the same files
        return self.inner.local_directory() if self.forwards_conditional_writes else None

    def root_url(self) -> str | None:
        return self.inner.root_url() if self.forwards_conditional_writes else None

    def _get_versioned(self, key: str) -> tuple[bytes | None, Any]:
        return self.inner.get_versioned(key)

    def _get_ranges(
        self, key: str, ranges: list[ByteRange | None], if_generation: Any
    ) -> tuple[list[bytes] | None, Any]:
        return self.inner.get_ranges(key, ranges, if_generation=if_generation)

    def get_versioned_many(self, keys: Sequence[str]) -> list[tuple[bytes | None, Any]]:
        self._check_conditional(keys[0] if keys else "<none>")
        return self.inner.get_versioned_many(keys)

    def _set_if(self, key: str, value: bytes, if_generation: Any) -> Any:
        return self.inner.set_if(key, value, if_generation=if_generation)

    def _set_parts_if(
        self, key: str, parts: Sequence[bytes | bytearray | memoryview], if_generation: Any
    ) -> Any:
        if type(self)._set_if is not WrapperStore._set_if:  # the wrapper must see the value whole
            return self._set_if(key, b"".join(parts), if_generation)
        return self.inner.set_parts_if(key, parts, if_generation=if_generation)

    def _delete_if(self, key: str, if_generation: Any) -> None:
        self.inner.delete_if(key, if_generation=if_generation)

    def get(self, key: str, byte_range: ByteRange | None = None) -> bytes | None:
        return self.inner.get(key, byte_range)

    def get_many(self, requests: Sequence[tuple[str, ByteRange | None]]) -> list[bytes | None]:
        return self.inner.get_many(requests)

    def exists(self, key: str) -> bool:
        return self.inner.exists(key)

    def getsize(self, key: str) -> int | None:
        return self.inner.getsize(key)

    def _set(self, key: str, value: bytes) -> None:
        self.inner.set(key, value)

    def _delete(self, key: str) -> None:
        self.inner.delete(key)

    def _overrides(self, single: str, batch: str) -> bool:
        """Does the subclass intercept ``single`` writes without handling ``batch``?"""
        cls = type(self)
        return getattr(cls, single) is not getattr(WrapperStore, single) and getattr(cls, batch) is getattr(
            WrapperStore, batch
        )

    def set_many(self, items: Iterable[tuple[str, bytes | bytearray | memoryview]]) -> None:
        checked = [
            (validate_key(key), bytes(value) if not isinstance(value, bytes) else value)
            for key, value in items
        ]
        if checked:
            self._check_writable(checked[0][0])
        if self._overrides("_set", "_set_many"):
            for key, value in checked:
                self._set(key, value)
            return
        self._set_many(checked)

    def _set_many(self, items: list[tuple[str, bytes]]) -> None:
        self.inner.set_many(items)

    def delete_many(self, keys: Iterable[str]) -> None:
        keys = [validate_key(key) for key in keys]
        if keys:
            self._check_writable(keys[0])
        if self._overrides("_delete", "_delete_many"):
            for key in keys:
                self._delete(key)
            return
        self._delete_many(keys)

    def _delete_many(self, keys: list[str]) -> None:
        self.inner.delete_many(keys)

    def _set_parts(self, key: str, parts: Sequence[bytes | bytearray | memoryview]) -> None:
        if type(self)._set is not WrapperStore._set:  # the wrapper must see the value whole
            self._set(key, b"".join(parts))
            return
        self.inner.set_parts(key, parts)

    def erase_prefix(self, prefix: str) -> None:
        self.inner.erase_prefix(prefix)

    def list_prefix(self, prefix: str) -> Iterator[str]:
        return self.inner.list_prefix(prefix)

    def list_dir(self, prefix: str) -> ListDirResult:
        return self.inner.list_dir(prefix)

    def close(self) -> None:
        self.inner.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"
