"""Contract for generic extensions (the ``extensions`` extension point, ZEP 10).

A generic extension is a named entry of a node's ``extensions`` list (arrays
and groups alike): a short-hand name or ``{"name", "configuration",
"must_understand"}``. An implementation provides:

* ``from_json(name, configuration)``: build and validate (raise
  :class:`~zarrforge.errors.MetadataError` naming the field, e.g.
  ``"configuration.offset"``); ``configuration`` is ``None`` for a short-hand
  name;
* ``to_json()``: the entry to write back, without ``must_understand``: the core adds
  the member as the instance's :attr:`~Extension.must_understand_mark` says (absent,
  ``true`` or ``false``, each written back as read);
* ``node_types``: where it may appear (``{"array"}``, ``{"group"}`` or both);
* ``validate(metadata)`` (optional): check the entry against the node it is on
  (its resolved model: shape, data type, ...), when the node is opened and
  before anything is written;
* ``map_selection(array, selection, kind)`` (optional, arrays): the selection
  to use instead of the user's, before it is projected onto chunks, for reads
  and writes alike. ``selection`` is what the user wrote (a bare int, a slice,
  a tuple, ``Ellipsis``, ``None``, integer or boolean arrays...) or what the
  previous entry returned; ``kind`` is ``"basic"``, ``"orthogonal"``,
  ``"coordinate"``, ``"mask"`` or ``"block"``. Must not read or write data.
  ``Array.append`` writes in stored coordinates and does not call it;
* ``after_write(array, selection, kind, values)`` (optional, arrays): called
  once the chunks of a write are stored, with the mapped selection and the
  user's values broadcast to its shape; may update the array's metadata
  (``array.update_metadata``);
* ``encode_values(array, values)`` / ``decode_values(array, values)`` (optional,
  arrays): the value stage. Every element written goes through ``encode_values``
  (entries in reverse document order) before it is stored, every element read through
  ``decode_values`` (document order) after; both keep dtype and shape. The document's
  ``fill_value`` is a stored value. An entry with a value stage must be understood
  (``must_understand: false`` is refused at ``extensions[i].must_understand``).

Both are called for each resolved entry of the array's ``extensions`` list, in
document order; entries no plugin understands (``must_understand: false``) are
kept and never called. The core sets ``must_understand`` on the instance from
the document (``True``, ``False`` or ``None`` for an absent member, which reads as true).
An entry marked ``must_understand: false`` may be written as a top-level key of the
document instead of in the list (``zarrforge.metadata.extension_entries``). Events that several plugins join (a node was opened) are pluggy
hooks (:mod:`zarrforge.hookspecs`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Protocol, runtime_checkable

from .extension_point import ExtensionPoint


@runtime_checkable
class ArrayHandle(Protocol):
    """What an extension's ``map_selection`` and ``after_write`` receive: the opened
    :class:`~zarrforge.Array`, declared here by what extensions may use of it (so this
    module imports nothing above the contracts). ``tests/test_extensions.py`` checks that
    an opened array offers all of it."""

    # read-only: an extension reads these (the array's properties)
    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> Any: ...  # the numpy dtype
    @property
    def data_type(self) -> Any: ...  # the zarrforge DataType
    @property
    def store(self) -> Any: ...  # the Store the array lives in
    @property
    def format(self) -> Any: ...  # its Format
    @property
    def read_only(self) -> bool: ...
    @property
    def metadata_model(self) -> Any: ...

    def get_extension(self, name: str) -> Any: ...
    def set_extension(self, extension: Any) -> None: ...
    def replace_metadata(self, metadata: Any) -> None: ...
    def update_metadata(self, change: Callable[[Any], Any]) -> Any: ...
    def stored_chunks(self) -> Iterator[tuple[int, ...]]: ...
    def get_chunk(self, coords: Any) -> Any: ...


class Extension(ExtensionPoint):
    name: ClassVar[str]
    node_types: ClassVar[frozenset[str]] = frozenset({"array", "group"})
    #: ``must_understand`` as the entry writes it: ``None`` when absent (read as true)
    _must_understand_mark: bool | None = None

    @property
    def must_understand(self) -> bool:
        """Whether a reader without the plugin must refuse the node (``false`` lets it skip
        the entry). Set it to ``True``, ``False``, or ``None`` to leave the member out of
        the entry (which readers take as true); the core sets it from the document, and
        writes back what it was set to (:attr:`must_understand_mark`).

        Returns
        -------
        bool
            ``False`` only when the entry says ``"must_understand": false``.
        """
        return self._must_understand_mark is not False

    @must_understand.setter
    def must_understand(self, value: bool | None) -> None:
        if value is not None and not isinstance(value, bool):
            raise TypeError(f"must_understand is True, False or None (absent), got {value!r}")
        self._must_understand_mark = value

    @property
    def must_understand_mark(self) -> bool | None:
        """``must_understand`` as the entry writes it: ``None`` when the member is absent.
        Copy this one when building a new entry to replace an old one
        (``new.must_understand = old.must_understand_mark``), so an absent member stays
        absent.

        Returns
        -------
        bool or None
            ``True``, ``False``, or ``None`` for an entry without the member.
        """
        return self._must_understand_mark

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Extension:
        """The extension for an ``extensions`` entry (``name``, ``configuration``); invalid
        configuration is a ``MetadataError`` naming the field.

        Parameters
        ----------
        name : str
            The entry's ``name``.
        configuration : dict[str, Any] or None
            The entry's ``configuration``; ``None`` for a short-hand name.

        Returns
        -------
        Extension
            The extension the entry describes.

        Raises
        ------
        zarrforge.errors.MetadataError
            The configuration is invalid (the error names the field).
        """

    @abstractmethod
    def to_json(self) -> str | dict[str, Any]:
        """The metadata entry that rebuilds this extension (``from_json`` of it is equal).

        Returns
        -------
        str or dict[str, Any]
            The short-hand name or ``{"name": ..., "configuration": {...}}`` (the core adds
            ``must_understand``).
        """

    def validate(self, metadata: Any) -> None:
        """Check the entry against the node's metadata model (e.g. one value per
        dimension); raise ``MetadataError`` with ``field`` inside the entry.

        Parameters
        ----------
        metadata : Any
            The node's resolved metadata model (shape, data type, ...).

        Raises
        ------
        zarrforge.errors.MetadataError
            The entry does not fit the node (``field`` inside the entry).
        """
        return None

    def map_selection(self, array: ArrayHandle, selection: Any, kind: str) -> Any:
        """The selection of stored indices for the user's ``selection`` (unchanged by
        default).

        Parameters
        ----------
        array : zarrforge.abc.extension.ArrayHandle
            The array being read or written.
        selection : Any
            The user's selection, or what the previous entry returned.
        kind : str
            ``"basic"``, ``"orthogonal"``, ``"coordinate"``, ``"mask"`` or ``"block"``.

        Returns
        -------
        Any
            The selection to use instead.
        """
        return selection

    def after_write(self, array: ArrayHandle, selection: Any, kind: str, values: Any) -> None:
        """React to ``values`` having been written to ``selection`` (nothing by default).

        Parameters
        ----------
        array : zarrforge.abc.extension.ArrayHandle
            The array written to.
        selection : Any
            The mapped selection.
        kind : str
            The selection's kind, as for :meth:`map_selection`.
        values : Any
            The values the user wrote, broadcast to the selection's shape (before any
            :meth:`encode_values`).
        """
        return None

    def encode_values(self, array: ArrayHandle, values: Any) -> Any:
        """The values to store for the user's ``values`` (unchanged by default): the value
        stage, which lets an extension change what is stored (a scale, a transform).

        Called on every write, after the selection is mapped, entries in reverse document
        order (the last entry encodes first). ``values`` is a numpy array of the array's
        data type, shaped as the selection, possibly a read-only broadcast view: return a
        new array of the same dtype and shape rather than changing it. An extension that
        overrides this or :meth:`decode_values` must be understood: an entry marked
        ``must_understand: false`` is refused.

        Parameters
        ----------
        array : zarrforge.abc.extension.ArrayHandle
            The array being written.
        values : numpy.ndarray
            The user's values (or what the entry after this one returned).

        Returns
        -------
        numpy.ndarray
            The values to store: same dtype and shape.
        """
        return values

    def decode_values(self, array: ArrayHandle, values: Any) -> Any:
        """The values a reader gets for ``values`` as stored (unchanged by default); the
        inverse of :meth:`encode_values`.

        Called on every read, entries in document order, on the stored values of the
        selection: an element never written is the document's ``fill_value`` here, so it
        reads as that value decoded. ``values`` is a writable numpy array the engine made
        for this read: change it in place or return a new one, of the same dtype and shape.

        Parameters
        ----------
        array : zarrforge.abc.extension.ArrayHandle
            The array being read.
        values : numpy.ndarray
            The stored values (or what the entry before this one returned).

        Returns
        -------
        numpy.ndarray
            The values the reader gets: same dtype and shape.
        """
        return values

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and other.to_json() == self.to_json()
            and other.must_understand == self.must_understand
        )

    def __hash__(self) -> int:
        return hash(repr(self.to_json()))

    def __repr__(self) -> str:
        return f"<extension {self.to_json()!r}>"


def has_value_stage(extension: Any) -> bool:
    """Whether ``extension`` changes values (overrides :meth:`Extension.encode_values` or
    :meth:`Extension.decode_values`).

    Parameters
    ----------
    extension : Any
        An extension entry (an :class:`Extension`, or an unknown entry: ``False``).

    Returns
    -------
    bool
        ``True`` when reads and writes go through its value stage.
    """
    kind = type(extension)
    return isinstance(extension, Extension) and (
        kind.encode_values is not Extension.encode_values or kind.decode_values is not Extension.decode_values
    )
