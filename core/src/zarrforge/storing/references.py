"""Reading the data a storage transformer's metadata refers to, by byte range.

A transformer that maps chunks to bytes stored elsewhere (a chunk manifest of a virtual
dataset: ``{"0.0": {"path": "raw/a.bin", "offset": 0, "length": 512}}``) names those
bytes in the array's document, which is untrusted input. This module is the one way it
reads them, so that what a document may reach is decided here and by the user, never by
the document:

* a **store key** (``"raw/a.bin"``): a key of the array's own store, as store keys are
  written (relative to the store's root, ``/``-separated, no ``.``, ``..`` or empty
  segment, no leading ``/``). Always allowed: the document can name nothing the store
  does not hold;
* an **absolute path** (``"/data/a.bin"``, read as ``file:///data/a.bin``) or a **URL**
  (``"file:///data/a.bin"``, ``"s3://bucket/raw/a.bin"``, any scheme an installed store
  plugin serves): allowed only below a prefix the user listed in the
  ``reference_targets`` setting (:mod:`zarrforge.config`), matched by whole path
  components (``"s3://bucket/raw/"`` allows ``"s3://bucket/raw/a.bin"``, not
  ``"s3://bucket/rawer"``), or everywhere when the setting is ``"any"``. No segment may
  be ``.`` or ``..`` (percent-encoded or not), so a target cannot climb out of the
  prefix that allowed it; a local file is checked, and read, where its symbolic links
  lead (as kerchunk reference sets are: :mod:`zarrforge_fsspec.references`), so a link
  below an allowed prefix cannot reach outside it. What remains unchecked: a link
  swapped in between the check and the read.

:func:`check_reference` refuses a target with a :class:`~zarrforge.errors.MetadataError`
naming the field it came from (a transformer's ``validate`` calls it for each target, so
the document is refused at creation and on open); :class:`ReferenceReader` reads targets
by byte range, checking each again against the setting in force, and raises
:class:`~zarrforge.errors.StoreError` for a target that is missing or holds fewer bytes
than the reference names (a reader never gets data that was not written: a missing
target is not a missing chunk). Kerchunk's references (``[url, offset, length]``) name
their targets the same three ways, and the setting has the syntax of the
``reference_targets`` storage option of zarrforge's kerchunk reference sets.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from urllib.parse import unquote

from .. import config
from ..abc.store import ByteRange, Store, validate_key
from ..errors import InvalidPathError, MetadataError, StoreError
from ..registries.registry_facade import FACADE as registry

__all__ = ["ReferenceReader", "check_reference"]


def _as_url(target: str) -> str | None:
    """The URL an absolute path or URL target names (scheme lower-cased; a local file as
    ``file://`` and its real path, links resolved); ``None`` for a store key."""
    if target.startswith("/"):
        target = "file://" + target
    scheme, has_scheme, rest = target.partition("://")
    if not (has_scheme and scheme):
        return None
    scheme = scheme.lower()
    if scheme == "file" and not _climbs(target):
        return "file://" + os.path.realpath(unquote(rest))
    return f"{scheme}://{rest}"


def _climbs(url: str) -> bool:
    """Whether the URL's path has a ``.`` or ``..`` segment, percent-encoded or not."""
    path = url.partition("://")[2]
    return any(unquote(part) in (".", "..") for part in path.split("/"))


@functools.lru_cache(maxsize=32)
def _normal_prefixes(prefixes: tuple[str, ...]) -> tuple[str, ...]:
    """The prefixes as :func:`_as_url` spells targets (a local one as its real path),
    without a trailing ``/``; normalised once per setting, as kerchunk's policy does."""
    return tuple((_as_url(prefix) or prefix).rstrip("/") for prefix in prefixes)


def _below(url: str, prefix: str) -> bool:
    """Whether ``url`` is the normalised ``prefix`` or below it, by whole path components."""
    if prefix.endswith(":"):  # a scheme alone ("s3://"): everything of that scheme
        return url.startswith(prefix + "//")
    return url == prefix or url.startswith(prefix + "/")


def _checked_url(target: object, field: str, allowed: Sequence[str] | str | None) -> str | None:
    """:func:`check_reference`'s answer for an allowed target: the URL it names (see
    :func:`_as_url`), or ``None`` for a key of the array's store."""
    if not isinstance(target, str) or not target:
        raise MetadataError(f"a reference target is a non-empty string, got {target!r}", field=field)
    url = _as_url(target)
    if url is None:
        try:
            validate_key(target)
        except (InvalidPathError, ValueError) as exc:
            raise MetadataError(f"{target!r} is not a key of the array's store: {exc}", field=field) from None
        return None
    if _climbs(url):
        raise MetadataError(f"{target!r} has a '.' or '..' segment", field=field)
    prefixes = config.get().reference_targets if allowed is None else allowed
    if prefixes == "any":
        return url
    prefixes = (prefixes,) if isinstance(prefixes, str) else tuple(prefixes)  # one alone, or many
    if not any(_below(url, prefix) for prefix in _normal_prefixes(prefixes)):
        listed = ", ".join(repr(p) for p in prefixes) or "none"
        raise MetadataError(
            f"{target!r} is outside the array's store, and the reference_targets setting "
            f"allows no prefix of it (allowed: {listed}); allow one with "
            f"zarrforge.config.set(reference_targets=[...]) if you trust this document",
            field=field,
        )
    return url


def check_reference(target: object, *, field: str, allowed: Sequence[str] | str | None = None) -> None:
    """Refuse a reference target the array may not read.

    Parameters
    ----------
    target : object
        The target as the document gives it (anything: the document is untrusted).
    field : str
        Where it is in the transformer's entry (``"configuration.manifest.0.0.path"``),
        named by the error.
    allowed : Sequence[str] or str or None
        The prefixes absolute paths and URLs must be below, or ``"any"``; ``None``: the
        ``reference_targets`` setting in force.

    Raises
    ------
    zarrforge.errors.MetadataError
        The target is not a string, is not a valid store key, has a ``.`` or ``..``
        segment, or is an absolute path or URL below no allowed prefix.

    Examples
    --------
    >>> check_reference("raw/part-0.bin", field="configuration.path")
    >>> check_reference("../secret", field="configuration.path")
    Traceback (most recent call last):
    ...
    zarrforge.errors.MetadataError: field 'configuration.path': '../secret' is not a key ...
    """
    _checked_url(target, field, allowed)


class ReferenceReader:
    """Reads reference targets by byte range: store keys from ``store`` (the array's
    store, as a transformer's ``wrap`` receives it), absolute paths and URLs through the
    installed store plugin of their scheme, opened read-only once per directory.

    Parameters
    ----------
    store : zarrforge.abc.store.Store
        The store whose keys unqualified targets name.
    allowed : Sequence[str] or str or None
        The prefixes absolute paths and URLs must be below, or ``"any"``; ``None``: the
        ``reference_targets`` setting in force at each read.

    Raises
    ------
    zarrforge.errors.MetadataError
        :meth:`read` and :meth:`read_many`: a target may not be read
        (:func:`check_reference`), or a range is negative. Constructing a reader raises
        nothing: the targets are checked when read.
    zarrforge.errors.StoreError
        :meth:`read` and :meth:`read_many`: a target is missing, or holds fewer bytes than
        its range names.

    Examples
    --------
    >>> import zarrforge
    >>> store = zarrforge.storage.MemoryStore()
    >>> store.set("raw/a.bin", bytes(range(10)))
    >>> ReferenceReader(store).read("raw/a.bin", 2, 3)
    b'\\x02\\x03\\x04'
    """

    def __init__(self, store: Store, *, allowed: Sequence[str] | str | None = None) -> None:
        self._store = store
        self._allowed = allowed
        self._stores: dict[str, Store] = {}
        self._lock = threading.Lock()

    def read(self, target: str, offset: int, length: int) -> bytes:
        """The ``length`` bytes of ``target`` from ``offset``.

        Parameters
        ----------
        target : str
            A store key, an absolute path or a URL (as :func:`check_reference` accepts).
        offset : int
            The first byte, from the start of the target.
        length : int
            How many bytes.

        Returns
        -------
        bytes
            Exactly ``length`` bytes.

        Raises
        ------
        zarrforge.errors.MetadataError
            The target may not be read (:func:`check_reference`), or the range is negative.
        zarrforge.errors.StoreError
            The target is missing, or holds fewer bytes than the range names.
        """
        return self.read_many([(target, offset, length)])[0]

    def read_many(self, requests: Sequence[tuple[str, int, int]]) -> list[bytes]:
        """:meth:`read` for each ``(target, offset, length)``, batched per store.

        Parameters
        ----------
        requests : Sequence[tuple[str, int, int]]
            The ranges to read.

        Returns
        -------
        list[bytes]
            The bytes of each range, in order.

        Raises
        ------
        zarrforge.errors.MetadataError
            A target may not be read, or a range is negative.
        zarrforge.errors.StoreError
            A target is missing, or holds fewer bytes than its range names.
        """
        batches: dict[int, tuple[Store, list[tuple[int, str, ByteRange]]]] = {}
        located: dict[str, tuple[Store, str]] = {}  # a call's ranges share few targets
        for i, (target, offset, length) in enumerate(requests):
            if target not in located:
                located[target] = self._locate(target, _checked_url(target, "reference", self._allowed))
            if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (offset, length)):
                raise MetadataError(
                    "a reference's offset and length are non-negative integers, "
                    f"got {offset!r} and {length!r}",
                    field="reference",
                )
            store, key = located[target]
            batches.setdefault(id(store), (store, []))[1].append((i, key, ByteRange(offset, length)))
        out: list[bytes] = [b""] * len(requests)
        for store, wanted in batches.values():
            answers = store.get_many([(key, byte_range) for _, key, byte_range in wanted])
            for (i, _, _), data in zip(wanted, answers):
                target, offset, length = requests[i]
                if data is None:
                    raise StoreError(f"reference target {target!r} is missing")
                if len(data) != length:
                    raise StoreError(
                        f"reference target {target!r} holds {len(data)} bytes from offset {offset}, "
                        f"not the {length} the reference names"
                    )
                out[i] = bytes(data)
        return out

    def _locate(self, target: str, url: str | None) -> tuple[Store, str]:
        """The store and key of ``target``, whose checked URL is ``url`` (``None``: a key
        of the array's store)."""
        if url is None:
            return self._store, target
        directory, _, name = url.rpartition("/")
        with self._lock:
            store = self._stores.get(directory)
            if store is None:
                scheme = url.partition("://")[0]
                opener = registry.stores.get(scheme)
                store = self._stores[directory] = opener.from_url(directory + "/", read_only=True)
        return store, unquote(name)

    def close(self) -> None:
        """Close the stores opened for absolute paths and URLs (not the array's store)."""
        with self._lock:
            stores, self._stores = list(self._stores.values()), {}
        for store in stores:
            store.close()
