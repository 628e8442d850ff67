"""The zarrforge exception hierarchy.

Every error zarrforge raises on bad input or bad data is a subclass of
:class:`ZarrforgeError`, and its message names the key or field involved and
the offending value, so a user can find and fix the problem without reading a
traceback. Where it is natural, errors also subclass the matching built-in
exception (``KeyError``, ``ValueError``, ``IndexError``, ``PermissionError``)
so that generic ``except`` clauses keep working.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


class ZarrforgeError(Exception):
    """Base class of every error raised by zarrforge."""


# --- metadata ---------------------------------------------------------------


class MetadataError(ZarrforgeError, ValueError):
    """A metadata document is malformed or holds an invalid value.

    ``field`` is a dotted path into the document (``"codecs[1].configuration.level"``),
    ``key`` the store key of the document when known.
    """

    def __init__(
        self, message: str, *, field: str | None = None, value: Any = None, key: str | None = None
    ) -> None:
        self.message = message  # without the location prefix
        self.field = field
        self.value = value
        self.key = key
        super().__init__(self._located_text())

    def _located_text(self) -> str:
        where = []
        if self.key is not None:
            where.append(f"in {self.key!r}")
        if self.field is not None:
            where.append(f"field {self.field!r}")
        return (" ".join(where) + ": " if where else "") + self.message

    def relocated(self, field: str | None, key: str | None = None) -> MetadataError:
        """This error (same class and details: an UnknownExtensionError stays one) found at
        ``field`` of the document ``key`` (default: the key it names already)."""
        # built without the constructor, whose arguments differ between subclasses
        moved = type(self).__new__(type(self))
        moved.__dict__.update(self.__dict__)
        moved.field = field
        moved.key = key if key is not None else self.key
        moved.args = (moved._located_text(),)
        moved.__cause__ = self
        return moved

    def within(self, field: str) -> MetadataError:
        """This error as seen from the enclosing document: ``field`` (``"codecs[1]"``)
        is prefixed to the error's own field (``"configuration.level"``)."""
        inner = self.field
        joined = field if not inner else (f"{field}{inner}" if inner.startswith("[") else f"{field}.{inner}")
        return self.relocated(joined)

    def at(self, key: str) -> MetadataError:
        """This error naming the store ``key`` of its document (unless it names one)."""
        return self if self.key is not None else self.relocated(self.field, key)


class MustUnderstandError(MetadataError):
    """A metadata field the engine does not recognise lacks ``must_understand: false``."""


class ContainsNodeError(ZarrforgeError, FileExistsError):
    """A node already exists where a new one was to be created."""


class UnfinishedWriteError(ContainsNodeError):
    """The node in the way is what a write left that was killed before it finished
    (``zarrforge.storing.unfinished``); ``unfinished`` is its marker's record."""

    def __init__(self, message: str, *, unfinished: Any = None) -> None:
        super().__init__(message)
        self.unfinished = unfinished


class UnreadableNodeError(ContainsNodeError):
    """A node is stored at the path, or above it, whose document no installed format
    reads (its format's plugin is not installed here): it is never written over, and
    reading it says so (``zarrforge.nodes.unreadable``). ``key`` is the document's store key;
    ``zarr_format`` and ``node_type`` what it says where it parses; ``reader`` the format
    known to read it and ``provider`` that format's distribution, ``None`` if unknown."""

    def __init__(
        self,
        message: str,
        *,
        key: str | None = None,
        zarr_format: Any = None,
        node_type: str | None = None,
        reader: str | None = None,
        provider: str | None = None,
    ) -> None:
        super().__init__(message)
        self.key, self.zarr_format, self.node_type = key, zarr_format, node_type
        self.reader, self.provider = reader, provider


class NodeNotFoundError(ZarrforgeError, KeyError, FileNotFoundError):
    """No array or group exists at the requested path. A ``KeyError`` (a missing key of a
    hierarchy) and, as zarr-python's, a ``FileNotFoundError`` (xarray's and zarr-python's
    users catch that for a store with nothing there)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class NodeOfAnotherFormatError(NodeNotFoundError):
    """No node of the format asked for is at the path, but one of another format is
    (``format_name`` names it)."""

    def __init__(self, message: str, *, format_name: str) -> None:
        super().__init__(message)
        self.format_name = format_name


class NodeTypeError(ZarrforgeError, TypeError):
    """A node exists but is of the wrong kind (an array where a group was asked)."""


class InvalidPathError(ZarrforgeError, ValueError):
    """A node path or store key is not allowed (``..``, absolute, reserved names)."""


class URLPipelineError(InvalidPathError):
    """A ``|``-chained URL (a URL pipeline) is malformed or cannot be resolved.

    ``url`` is the whole pipeline and ``segment`` the sub-URL at fault (``None`` when
    the fault is the pipeline as a whole); the message names both and says what
    would be valid."""

    def __init__(self, message: str, *, url: str | None = None, segment: str | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.segment = segment


# --- extensions and plugins --------------------------------------------------


class UnknownExtensionError(MetadataError):
    """A name does not resolve to any installed or registered extension."""

    def __init__(
        self,
        point: str,
        name: str,
        installed: Iterable[str],
        provider: str | None = None,
        *,
        field: str | None = None,
        key: str | None = None,
        note: str | None = None,
    ) -> None:
        self.point = point
        self.name = name
        self.installed = sorted(installed)
        self.provider = provider
        message = f"unknown {point} {name!r}"
        self.suggestions = difflib.get_close_matches(name, self.installed, n=3, cutoff=0.75)
        if self.suggestions:
            message += f"; did you mean {' or '.join(repr(s) for s in self.suggestions)}?"
        message += f"; installed: {_listing(self.installed, name)}"
        if provider:
            message += f"; {point} {name!r} is provided by the package {provider!r}"
            if provider in STANDARD_DISTRIBUTIONS:
                message += (
                    f" (pip install {provider}, or pip install 'zarrforge[standard]' "
                    "for the standard plugins)"
                )
        if note:
            message += f" ({note})"
        super().__init__(message, field=field, value=name, key=key)


# what pip install 'zarrforge[standard]' installs (core/pyproject.toml; a test keeps them equal)
STANDARD_DISTRIBUTIONS = frozenset(
    {
        "zarrforge-std",
        "zarrforge-batch-io",
        "zarrforge-numcodecs",
        "zarrforge-sharding",
        "zarrforge-dtypes",
        "zarrforge-v2",
        "zarrforge-draft2022",
        "zarrforge-fsspec",
    }
)
LISTED_NAMES = 12  # an "installed:" list longer than this shows its closest names and a count


def _listing(installed: list[str], name: str) -> str:
    """The installed names, or for a long list the closest ones and how many there are."""
    if not installed:
        return "none"
    if len(installed) <= LISTED_NAMES:
        return ", ".join(installed)
    closest = difflib.get_close_matches(name, installed, n=8, cutoff=0.0)
    return (
        f"{len(installed)} names, the closest {', '.join(sorted(closest))} "
        "(zarrforge.plugins() lists them all)"
    )


class PluginConflictError(ZarrforgeError):
    """Two installed distributions register the same name for one extension point."""


class PluginLoadError(ZarrforgeError, ImportError):
    """An entry point could not be imported or does not provide the expected object."""


class PluginFailureError(ZarrforgeError, RuntimeError):
    """An installed plugin failed unexpectedly (a bug in it: anything but a zarrforge
    error) on data that needs it: the node of its format, the codec or data type it
    provides, the URL scheme it serves. ``point`` and ``name`` say which plugin,
    ``origin`` where it comes from (distribution, version and entry point); the
    plugin's own exception is ``__cause__``. Where other data merely asked it (finding
    another format's node, say), the same failure is a :class:`PluginFailureWarning`
    instead and the plugin is left out."""

    def __init__(
        self,
        message: str = "",
        *,
        point: str | None = None,
        name: str | None = None,
        origin: str | None = None,
        key: str | None = None,
    ) -> None:
        super().__init__(message)
        self.point = point
        self.name = name
        self.origin = origin
        self.key = key


class UnsafeCodecError(ZarrforgeError, PermissionError):
    """A codec that may execute code on decode was named but not explicitly allowed."""


# --- stores and data ----------------------------------------------------------


class StoreError(ZarrforgeError, OSError):
    """A store operation failed; ``key`` and ``url`` say where, when known, and ``attempts``
    how many times it was tried where the store retries."""

    def __init__(
        self,
        message: str = "",
        *,
        key: str | None = None,
        url: str | None = None,
        attempts: int | None = None,
    ) -> None:
        super().__init__(message)
        self.key = key
        self.url = url
        self.attempts = attempts


class StoreArgumentError(ZarrforgeError, TypeError):
    """What was passed as a store cannot be used: an object of a type no installed plugin
    adapts, or storage options given with an object that takes none."""


class ConflictError(StoreError):
    """A conditional write found the value changed since it was read (another writer got
    there first); nothing was stored. ``keys`` lists every key that conflicted."""

    def __init__(
        self,
        message: str = "",
        *,
        key: str | None = None,
        keys: list[str] | None = None,
        url: str | None = None,
    ) -> None:
        super().__init__(message, key=key, url=url)
        self.keys = list(keys) if keys is not None else ([key] if key is not None else [])


class OperationCancelledError(ZarrforgeError):
    """The coroutine that asked for this work was cancelled (:mod:`zarrforge.asyncio`): raised
    inside the engine at its next store request, so the work stops there as a failed one
    would; ``operation`` names the call. The coroutine itself ends with
    ``asyncio.CancelledError``."""

    def __init__(self, message: str = "", *, operation: str | None = None) -> None:
        super().__init__(message)
        self.operation = operation


class TransactionError(ZarrforgeError):
    """A transaction was used after its ``commit()`` or ``abort()``."""


class ReadOnlyError(StoreError, PermissionError):
    """A write was attempted on a read-only store or array."""


class CodecError(ZarrforgeError, ValueError):
    """A codec failed to encode or decode a chunk.

    The engine locates the error as it travels up, encoding and decoding alike: ``array``
    is the array's path, ``key`` the chunk's store key (a shard's, under sharding) and
    ``inner`` the inner chunk's coordinates within the shard; each is ``None`` where
    unknown. ``message`` is the text without that location.
    """

    # class-level defaults: a subclass's own constructor may not call this one
    key: str | None = None
    array: str | None = None
    inner: tuple[int, ...] | None = None

    def __init__(
        self,
        message: str,
        *,
        key: str | None = None,
        array: str | None = None,
        inner: tuple[int, ...] | None = None,
    ) -> None:
        self.message = message
        self.key = key
        self.array = array
        self.inner = inner
        super().__init__(self._located_text())

    def _located_text(self) -> str:
        where = []
        if self.array is not None:
            where.append(f"array {self.array or '/'!r}")
        if self.key:
            where.append(f"chunk {self.key!r}")
        if self.inner is not None:
            where.append(f"inner chunk {self.inner}")
        return (", ".join(where) + ": " if where else "") + self.message

    def located(
        self, *, key: str | None = None, array: str | None = None, inner: tuple[int, ...] | None = None
    ) -> CodecError:
        """This error (same class and details) with the places it does not name yet filled
        in; itself when it names them all already.

        Parameters
        ----------
        key : str or None
            The chunk's store key.
        array : str or None
            The array's path.
        inner : tuple[int, ...] or None
            The inner chunk's coordinates within its shard.

        Returns
        -------
        CodecError
            The located error, with this one's ``__cause__``.
        """
        key = key if self.key is None else None
        array = array if self.array is None else None
        inner = inner if self.inner is None else None
        if key is None and array is None and inner is None:
            return self
        moved = type(self).__new__(type(self))  # not the constructor: subclasses' differ
        moved.__dict__.update(self.__dict__)
        if "message" not in self.__dict__:  # a subclass that bypassed CodecError.__init__
            moved.message = str(self)
        if key is not None:
            moved.key = key
        if array is not None:
            moved.array = array
        if inner is not None:
            moved.inner = inner
        moved.args = (moved._located_text(),)
        # the same error, better located: its cause is the original's, and the original
        # is not shown as a second error (raise it ``from error.__cause__``)
        moved.__cause__ = self.__cause__
        moved.__suppress_context__ = True
        moved.__traceback__ = self.__traceback__
        return moved


class CorruptChunkError(CodecError):
    """Stored chunk bytes cannot be decoded (truncated, garbled, wrong size)."""


class ChecksumError(CorruptChunkError):
    """A stored checksum does not match the data it protects."""


class BoundsCheckError(ZarrforgeError, IndexError):
    """A selection reaches outside the array."""


class SelectionError(ZarrforgeError, IndexError):
    """A selection is malformed (wrong type, wrong length, mismatched shapes)."""


class ResourceLimitError(ZarrforgeError, MemoryError):
    """A request would hold more memory than ``config.max_request_bytes`` allows, or a chunk
    take more than ``config.max_chunk_bytes`` decoded."""


class DocumentTooLargeError(MetadataError):
    """A metadata document is over ``config.max_document_bytes``: refused when read (it
    could exhaust memory) and before it is written (it could not be reopened).
    ``size`` is its size in bytes and ``limit`` the limit."""

    def __init__(self, message: str, *, size: int, limit: int, key: str | None = None) -> None:
        super().__init__(message, key=key)
        self.size = size
        self.limit = limit


class IncompleteCopyError(ZarrforgeError):
    """``zarrforge.copy`` stopped after writing the destination's nodes, part way through
    their data. ``completed`` lists the arrays copied whole, ``stopped`` is
    ``(path, units done, units in all)`` of the one it stopped in, ``pending`` the arrays
    not begun; the cause is ``__cause__``. The destination opens; the same copy with
    ``overwrite=True`` completes it."""

    def __init__(
        self, message: str, *, completed: list[str], stopped: tuple[str, int, int], pending: list[str]
    ) -> None:
        super().__init__(message)
        self.completed = completed
        self.stopped = stopped
        self.pending = pending


class PluginLoadWarning(UserWarning):
    """An installed hook plugin could not be loaded and was left out (see ``zarrforge.plugins()``)."""


class PluginFailureWarning(UserWarning):
    """An installed plugin failed unexpectedly (a bug in it) and its answer was taken as
    "nothing of mine here" so the rest of the library keeps working; said once per
    plugin per process."""


class SkippedExtensionWarning(UserWarning):
    """An unknown extension marked ``must_understand: false`` was skipped."""


class IgnoredKeywordWarning(UserWarning):
    """A zarr-python keyword that zarrforge accepts and ignores, as zarr-python does (its
    "not yet implemented" warning); the message says why ignoring it is safe here."""


class UncompressedWarning(UserWarning):
    """``compressors="auto"`` found no compressor to use (no codec plugin that provides
    one is installed), so the new array's chunks are stored uncompressed."""


class UnusedViewWarning(UserWarning):
    """A group's stored consolidated view is not used (too large to read): its members
    are read from the store, and the warning says how to repair the view."""


class UnfinishedWriteWarning(UserWarning):
    """A node was opened at or below a path where a write that was killed before it
    finished left its marker (``zarrforge.storing.unfinished``): what is read there may
    be partial. ``unfinished`` is the marker's record. The open itself succeeds."""

    def __init__(self, message: str, *, unfinished: Any = None) -> None:
        super().__init__(message)
        self.unfinished = unfinished


class CommitRecordWarning(UserWarning):
    """A transaction committed (every key holds its new value) but its commit record could
    not be removed; until it is (:func:`zarrforge.clear_commit_record`), transactions that
    read those keys are refused as if that commit were still running."""


# --- zarr-python's names -----------------------------------------------------------------
# With ``import zarrforge as zarr``, ``except zarr.errors.ContainsArrayError`` catches what
# zarrforge raises where zarr-python raises that error: each is one of zarrforge's own
# errors (a subclass where zarr-python's name says more, the same class where it does not).


class ContainsArrayError(ContainsNodeError):
    """An array already exists where a node was to be created."""


class ContainsGroupError(ContainsNodeError):
    """A group already exists where a node was to be created."""


class ContainsArrayAndGroupError(ContainsNodeError):
    """Both an array's and a group's document are stored at the path."""


class GroupNotArrayError(NodeTypeError, ContainsGroupError):
    """A group is where an array was asked for (``Group.get_array``): a
    :class:`NodeTypeError`, and zarr-python's ``ContainsGroupError`` for that case."""


class ArrayNotGroupError(NodeTypeError, ContainsArrayError):
    """An array is where a group was asked for (``Group.get_group``): a
    :class:`NodeTypeError`, and zarr-python's ``ContainsArrayError`` for that case."""


class ArrayNotFoundError(NodeNotFoundError):
    """No array exists at the requested path."""


class GroupNotFoundError(NodeNotFoundError):
    """No group exists at the requested path."""


BaseZarrError = ZarrforgeError
MetadataValidationError = MetadataError
