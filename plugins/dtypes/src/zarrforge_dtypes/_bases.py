"""Base classes for this package's data types that share a metadata form.

* :class:`Unconfigured`: a type named without configuration. ``from_json``
  reads a bare name, or ``{"name": ...}`` with an empty or absent
  configuration (any key is a ``MetadataError``, field ``configuration``);
  ``to_json`` writes the bare name. ``string``, ``bytes``, the small floats,
  the small integers and the ``complex_<float>`` types are such types.
* :class:`FixedLengthBytes`: N bytes per element, numpy ``<kind><N>`` with the
  class's ``numpy_kind`` (``"V"`` for ``raw_bytes``, ``"S"`` for
  ``null_terminated_bytes``). Metadata ``{"name": ..., "configuration":
  {"length_bytes": N}}`` (read by :func:`._util.length_bytes`); the length is
  the instance's ``length``. No byte order (the contract's default answers
  false for numpy's ``|`` dtypes); the default fill value is all zero bytes.
  A fill value in JSON is a base64 string (:func:`._util.base64_bytes`) whose
  bytes the subclass checks in ``_from_bytes(raw, original)``; ``_valid()``
  says what is valid, for the error of a value that is not base64.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar, Self

import numpy as np

from zarrforge.abc.data_type import DataType

from ._util import base64_bytes, config_keys, length_bytes


class Unconfigured(DataType):
    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Self:
        config_keys(name, configuration, frozenset())
        return cls()

    def to_json(self) -> str:
        return self.name


class FixedLengthBytes(DataType):
    numpy_kind: ClassVar[str]  # "V" or "S": the numpy dtype is f"{numpy_kind}{length}"

    def __init__(self, length: int) -> None:
        self.length = length
        self._dtype = np.dtype(f"{self.numpy_kind}{length}")

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Self:
        return cls(length_bytes(name, configuration))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"length_bytes": self.length}}

    @property
    def numpy_dtype(self) -> np.dtype:
        return self._dtype

    def default_fill_value(self) -> Any:
        return np.zeros((), dtype=self._dtype)[()]

    @abstractmethod
    def _valid(self) -> str:
        """What a valid fill value in JSON is, for error messages."""

    @abstractmethod
    def _from_bytes(self, raw: bytes, original: Any) -> Any:
        """The fill value of the bytes ``raw`` (given as ``original``), or the fill-value error."""

    def fill_value_from_json(self, value: Any) -> Any:
        return self._from_bytes(base64_bytes(self.name, value, self._valid()), value)
