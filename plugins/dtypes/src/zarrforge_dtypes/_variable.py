"""What the variable-length data types (``string``, ``bytes``) share.

Their elements have no fixed size (``item_size`` is ``None``), no byte order,
no configuration (a bare name, or ``{"name": ...}`` with an empty or absent
configuration, is read; the bare name is written), and only a variable-length
serializer can store them: :meth:`VariableLengthType.default_serializer`
proposes the one named by the class's ``serializer``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarrforge.abc.data_type import DataType

from ._util import config_keys


class VariableLengthType(DataType):
    serializer: ClassVar[str]  # the codec name default_serializer proposes

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> "VariableLengthType":
        config_keys(name, configuration, frozenset())
        return cls()

    def to_json(self) -> str:
        return self.name

    @property
    def item_size(self) -> None:
        return None

    @property
    def has_endianness(self) -> bool:
        return False

    def default_serializer(self) -> dict[str, Any]:
        """The array -> bytes codec to use when the user names none."""
        return {"name": self.serializer}
