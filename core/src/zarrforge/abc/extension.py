"""Contract for generic extensions (the ``extensions`` extension point, ZEP 10).

A generic extension is a named entry of a node's ``extensions`` list (arrays
and groups alike): a short-hand name or ``{"name", "configuration",
"must_understand"}``. An implementation provides:

* ``from_json(name, configuration)``: build and validate (raise
  :class:`~zarrforge.errors.MetadataError` naming the field, e.g.
  ``"configuration.offset"``); ``configuration`` is ``None`` for a short-hand
  name;
* ``to_json()``: the entry to write back (``must_understand`` is added by the
  core when the entry carries ``must_understand: false``);
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
  values broadcast to its shape; may update the array's metadata
  (``array.update_metadata``).

Both are called for each resolved entry of the array's ``extensions`` list, in
document order; entries no plugin understands (``must_understand: false``) are
kept and never called. The core sets ``must_understand`` on the instance from
the document. Events that several plugins join (a node was opened) are pluggy
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
    must_understand: bool = True

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
            The values written, broadcast to the selection's shape.
        """
        return None

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
