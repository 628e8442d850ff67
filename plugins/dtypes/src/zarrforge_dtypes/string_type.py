"""The ``string`` data type: variable-length UTF-8 text.

Metadata: ``"string"`` (the object form ``{"name": "string"}`` with an empty
or absent configuration is read too; ``"string"`` is written, as zarr-python
does).

In memory an array of this type uses numpy 2's ``np.dtypes.StringDType()``
without an ``na_object``, which is what zarr-python 3.1 returns; its elements
are Python ``str``. The elements have no fixed size (``item_size`` is
``None``), so only a variable-length serializer can store them: ``vlen-utf8``
(:mod:`.vlen_codecs`), which :meth:`String.default_serializer` proposes.

Fill value: a JSON string, held as a Python ``str``; the default is ``""``.
Through the Python API only ``str`` (or ``np.str_``) is accepted.

Mapping from numpy (``from_numpy_dtype``): ``StringDType()`` and the
size-less unicode dtype numpy makes of ``str`` / ``"str"`` (``<U0``) map to
``string``; sized unicode dtypes (``"U8"``) are ``fixed_length_utf32``'s.
A ``StringDType`` with an ``na_object`` is refused with a ``MetadataError``:
the ``string`` type cannot represent missing values (zarr-python refuses it
too). ``np.dtype(object)`` is *not* mapped, because an object array may hold
text or bytes; name the type (``dtype="string"`` or ``dtype="bytes"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.errors import MetadataError

from ._util import fill_error
from ._variable import VariableLengthType

_STRING_DTYPE = np.dtypes.StringDType()


class String(VariableLengthType):
    name = "string"
    serializer = "vlen-utf8"

    @classmethod
    def from_numpy_dtype(cls, dtype: np.dtype) -> String | None:
        if isinstance(dtype, np.dtypes.StringDType):
            if hasattr(dtype, "na_object"):
                raise MetadataError(
                    f"{dtype!r} has an na_object, which the 'string' data type cannot "
                    "represent; use np.dtypes.StringDType() without na_object",
                    field="dtype",
                    value=dtype,
                )
            return cls()
        if dtype.kind == "U" and dtype.itemsize == 0:  # np.dtype(str)
            return cls()
        return None

    @property
    def numpy_dtype(self) -> np.dtype:
        return _STRING_DTYPE

    def default_fill_value(self) -> str:
        return ""

    def fill_value_from_json(self, value: Any) -> str:
        if not isinstance(value, str):
            raise fill_error(self.name, value, "a string")
        return value

    def fill_value_to_json(self, value: Any) -> str:
        return str(value)

    def from_user_value(self, value: Any) -> str:
        if not isinstance(value, str):  # np.str_ is a str
            raise fill_error(self.name, value, "a str")
        return str(value)
