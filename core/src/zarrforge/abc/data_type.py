"""Contract for data types (the ``data_type`` extension point).

A data type instance describes the elements of an array: the numpy dtype used
in memory, how a ``fill_value`` is read from and written to JSON, and the name
and configuration written to metadata.

Implementations provide:

* ``from_json(name, configuration)``: the instance for a metadata entry. Types
  without configuration receive ``None``. Raise
  :class:`~zarrforge.errors.MetadataError` for a bad configuration.
* ``to_json()``: the short-hand name (a string) when there is no
  configuration, else ``{"name": ..., "configuration": {...}}``.
* ``numpy_dtype``: the native-byte-order numpy dtype of elements in memory.
* ``fill_value_from_json(value)`` / ``fill_value_to_json(value)``: the
  spec's fill value encoding for this type; bad values raise
  ``MetadataError`` naming ``fill_value``.
* ``default_fill_value()``: used when the user gives none (it is recorded in
  metadata, as the spec requires).
* ``from_user_value(value)``: coerce a fill value given through the Python
  API (a Python or numpy scalar) into the in-memory scalar.
* ``default_serializer()`` (optional): the array -> bytes codec to use when the
  user gives none (variable-size types cannot use ``bytes``).
* ``from_numpy_dtype(np_dtype)`` (classmethod; the default answers ``None``: a
  type reachable only by name): the instance for a numpy dtype a user passed as
  ``dtype=``, or ``None`` if it is not this type's. Every type that has a numpy
  counterpart overrides it. ``create_array(dtype=np.float32)`` asks the type
  registered under the dtype's numpy name first, then every installed one, so
  the answer must be cheap and must not raise for dtypes that are not its own.

``item_size`` is ``None`` for variable-length types; fixed-size types whose
byte order matters (``item_size > 1`` for numeric types) set
``has_endianness``. A variable-length type subclasses
:class:`VariableLengthDataType`, which says so: its elements have no fixed size
(``item_size`` is ``None``) and no byte order (``has_endianness`` is false),
whatever its in-memory numpy dtype (an object or ``StringDType`` array) reports.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from .extension_point import ExtensionPoint


class DataType(ExtensionPoint):
    name: ClassVar[str]

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> DataType:
        """The data type for a ``data_type`` value (a name, or ``name`` and
        ``configuration``); anything invalid is a ``MetadataError`` naming the field.

        Parameters
        ----------
        name : str
            The type's name.
        configuration : dict[str, Any] or None
            The entry's ``configuration``; ``None`` for a short-hand name.

        Returns
        -------
        DataType
            The data type the value describes.

        Raises
        ------
        zarrforge.errors.MetadataError
            The configuration is invalid (the error names the field).
        """

    @abstractmethod
    def to_json(self) -> str | dict[str, Any]:
        """The ``data_type`` value that rebuilds this type (``from_json`` of it is equal).

        Returns
        -------
        str or dict[str, Any]
            The short-hand name when the type has no configuration, else
            ``{"name": ..., "configuration": {...}}``.
        """

    @property
    @abstractmethod
    def numpy_dtype(self) -> np.dtype:
        """The numpy dtype arrays of this type are read into and written from.

        Returns
        -------
        numpy.dtype
            The native-byte-order dtype of elements in memory.
        """

    @abstractmethod
    def fill_value_from_json(self, value: Any) -> Any:
        """The fill value ``value`` (as stored in metadata) stands for; one this type cannot
        hold is a ``MetadataError`` naming ``fill_value``.

        Parameters
        ----------
        value : Any
            The ``fill_value`` as read from the JSON document.

        Returns
        -------
        Any
            The in-memory fill value.

        Raises
        ------
        zarrforge.errors.MetadataError
            This type cannot hold ``value`` (the error names ``fill_value``).
        """

    @abstractmethod
    def fill_value_to_json(self, value: Any) -> Any:
        """The metadata form of the fill value ``value``, bit for bit what
        ``fill_value_from_json`` reads back (``"NaN"`` strings for non-finite floats).

        Parameters
        ----------
        value : Any
            The in-memory fill value.

        Returns
        -------
        Any
            The JSON value to store as ``fill_value``.
        """

    @abstractmethod
    def default_fill_value(self) -> Any:
        """The fill value of arrays created without one (zero, as the spec says, where the
        type has one).

        Returns
        -------
        Any
            The in-memory fill value.
        """

    @classmethod
    def from_numpy_dtype(cls, np_dtype: np.dtype) -> DataType | None:
        """The instance of this type for ``np_dtype``, or ``None`` when ``np_dtype``
        is not one of this type's in-memory dtypes (the default: no numpy mapping).

        Several types may share a numpy dtype (``int4`` is held as ``int8``); only
        the one that owns it (``int8``) answers for it.

        Parameters
        ----------
        np_dtype : numpy.dtype
            The dtype a user passed as ``dtype=``.

        Returns
        -------
        DataType or None
            The instance, or ``None`` when ``np_dtype`` is not this type's.
        """
        return None

    def from_user_value(self, value: Any) -> Any:
        """Coerce a Python-level fill value; the default goes through numpy.

        Parameters
        ----------
        value : Any
            A fill value given through the Python API (a Python or numpy scalar).

        Returns
        -------
        Any
            The in-memory scalar.
        """
        return self.numpy_dtype.type(value)

    def default_serializer(self) -> dict[str, Any] | None:
        """The array -> bytes codec (a JSON object) formats use for this type when the
        user names none; ``None`` means the format's own default (``bytes``).

        Returns
        -------
        dict[str, Any] or None
            The codec's metadata entry, or ``None`` (the default).
        """
        return None

    @property
    def item_size(self) -> int | None:
        """The bytes of one element (the numpy dtype's ``itemsize`` by default).

        Returns
        -------
        int or None
            The size, or ``None`` for a variable-length type.
        """
        return self.numpy_dtype.itemsize

    @property
    def bit_size(self) -> int | None:
        """The bits a value uses when fewer than its item size holds (a sub-byte integer:
        4 for ``int4``), counting every component of a complex value; ``None`` (the
        default): all of them. The ``packbits`` codec stores that many bits.

        Returns
        -------
        int or None
            The bits used, or ``None``.
        """
        return None

    @property
    def has_endianness(self) -> bool:
        """Does the byte order of an element matter (more than one byte, and a numpy dtype
        with a byte order)?

        Returns
        -------
        bool
            Whether the ``bytes`` codec needs an ``endian``.
        """
        return self.numpy_dtype.itemsize > 1 and self.numpy_dtype.byteorder != "|"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_json() == self.to_json()

    def __hash__(self) -> int:
        return hash(repr(self.to_json()))

    def __repr__(self) -> str:
        return f"<data type {self.to_json()!r}>"


class VariableLengthDataType(DataType):
    """A data type whose elements have no fixed size: ``item_size`` is ``None`` and
    ``has_endianness`` false. Such a type needs a ``default_serializer()``."""

    @property
    def item_size(self) -> None:
        return None

    @property
    def has_endianness(self) -> bool:
        return False
