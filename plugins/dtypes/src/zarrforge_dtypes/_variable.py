"""What the variable-length data types (``string``, ``bytes``) share.

Their elements have no fixed size (``item_size`` is ``None``) and no byte
order (both from :class:`zarrforge.abc.data_type.VariableLengthDataType`), no
configuration (:class:`._bases.Unconfigured`: a bare name, or ``{"name": ...}``
with an empty or absent configuration, is read; the bare name is written), and only a variable-length
serializer can store them: :meth:`VariableLengthType.default_serializer`
proposes the one named by the class's ``serializer``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from zarrforge.abc.data_type import VariableLengthDataType

from ._bases import Unconfigured


class VariableLengthType(Unconfigured, VariableLengthDataType):
    serializer: ClassVar[str]  # the codec name default_serializer proposes

    def default_serializer(self) -> dict[str, Any]:
        """The array -> bytes codec to use when the user names none."""
        return {"name": self.serializer}
