"""The ``optional`` data type (a zarrs extension): values of an inner type, or missing.

Metadata: ``{"name": "optional", "configuration": <inner data type as an object>}``,
e.g. ``{"name": "optional", "configuration": {"name": "uint8", "configuration": {}}}``.
An inner type given as a bare name is read; the object form is written, as zarrs
writes it. Optional types nest (``optional`` of ``optional`` of ``uint8``).

In memory the array has numpy's object dtype. An element is ``None`` (missing) or a
value of the inner type. When the inner type is itself optional, a present element
is wrapped in :class:`Some`, so ``Some(None)`` (present, holding a missing inner
value) differs from ``None``; ``Some(3)`` holds 3.

Fill value JSON: ``null`` is missing; otherwise the inner type's fill value, wrapped
in a one-element list when the inner type is optional (``[null]`` is ``Some(None)``),
as zarrs reads and writes it. The default fill value is ``None``.

Only the ``optional`` codec (:mod:`.optional_codec`) stores such chunks; it is the
type's default serializer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from zarrforge.abc.data_type import DataType, VariableLengthDataType
from zarrforge.errors import MetadataError
from zarrforge.plugin_api.data_types import data_type_from_json

from ._util import fill_error

_OBJECT = np.dtype(object)


@dataclasses.dataclass(frozen=True)
class Some:
    """A present element of an optional type whose inner type is optional too."""

    value: Any


class Optional(VariableLengthDataType):
    name = "optional"

    def __init__(self, inner: DataType) -> None:
        self.inner = inner

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Optional:
        if configuration is None or configuration == {}:
            raise MetadataError(
                "data type 'optional' needs its inner data type as the "
                'configuration, e.g. {"name": "uint8", "configuration": {}}',
                field="configuration",
                value=configuration,
            )
        inner = data_type_from_json(configuration, field="configuration")
        return cls(inner)

    def to_json(self) -> dict[str, Any]:
        inner = self.inner.to_json()
        if isinstance(inner, str):
            inner = {"name": inner, "configuration": {}}
        return {"name": self.name, "configuration": inner}

    @property
    def nested(self) -> bool:
        return isinstance(self.inner, Optional)

    @property
    def numpy_dtype(self) -> np.dtype:
        return _OBJECT

    def default_fill_value(self) -> None:
        return None

    def fill_value_from_json(self, value: Any) -> Any:
        if value is None:
            return None
        if self.nested:
            if not isinstance(value, list) or len(value) != 1:
                raise fill_error(
                    self.to_json(),
                    value,
                    "null, or a one-element list holding the inner optional type's fill value",
                )
            return Some(self.inner.fill_value_from_json(value[0]))
        return self.inner.fill_value_from_json(value)

    def fill_value_to_json(self, value: Any) -> Any:
        if value is None:
            return None
        if self.nested:
            return [self.inner.fill_value_to_json(value.value)]
        return self.inner.fill_value_to_json(value)

    def from_user_value(self, value: Any) -> Any:
        if value is None:
            return None
        if self.nested:
            if not isinstance(value, Some):
                raise fill_error(self.to_json(), value, "None or Some(<a value of the inner optional type>)")
            return Some(self.inner.from_user_value(value.value))
        return self.inner.from_user_value(value)

    def default_serializer(self) -> dict[str, Any]:
        inner = self.inner.default_serializer() or {"name": "bytes"}
        return {
            "name": "optional",
            "configuration": {"mask_codecs": [{"name": "packbits"}], "data_codecs": [inner]},
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Optional) and other.inner == self.inner

    def __hash__(self) -> int:
        return hash(("optional", self.inner))
