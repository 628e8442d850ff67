"""The ``zarrforge_v2.json_object`` data type: a Zarr v2 ``"|O"`` array stored with ``json2``.

zarr-python 2 writes object arrays whose elements are any JSON value (numbers,
strings, lists, dicts, null) with the numcodecs ``json2`` object codec. The
v2 format reads such a ``.zarray`` as this data type with the
``numcodecs.json2`` codec as serializer; Zarr v3 has no such type, so it has
no meaning outside the v2 format.

Contract: in memory the elements are Python objects (numpy dtype ``object``,
no item size, no byte order). The fill value is any JSON value, read and
written as is; the default is ``None`` (v2's ``null``). Reading only: the
codec refuses to write ``json2`` chunks and :meth:`from_user_value` refuses
fill values, so no array of this type can be created through the Python API.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.abc.data_type import VariableLengthDataType
from zarrforge.errors import MetadataError

NAME = "zarrforge_v2.json_object"


class JSONObject(VariableLengthDataType):
    name = NAME

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> JSONObject:
        if configuration:
            raise MetadataError(
                f"data type {name!r} takes no configuration, got {configuration!r}",
                field="configuration",
                value=configuration,
            )
        return cls()

    def to_json(self) -> str:
        return NAME

    @property
    def numpy_dtype(self) -> np.dtype:
        return np.dtype(object)

    def default_fill_value(self) -> Any:
        return None

    def fill_value_from_json(self, value: Any) -> Any:
        return value  # already a parsed JSON value

    def fill_value_to_json(self, value: Any) -> Any:
        return value

    def from_user_value(self, value: Any) -> Any:
        raise MetadataError(
            "arrays of JSON objects (Zarr v2 '|O' with json2) are read only; zarrforge does not create them",
            field="fill_value",
            value=value,
        )
