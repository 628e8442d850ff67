"""The ``numpy.datetime64`` and ``numpy.timedelta64`` data types.

Metadata (zarr-extensions specs)::

    {"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 1}}

``unit`` is one of ``Y M W D h m s ms us μs ns ps fs as generic``;
``scale_factor`` an integer in ``[1, 2**31 - 1]``; both are required and no
other key is allowed. ``"μs"`` means ``"us"`` and is written back as it was
read. ``generic`` is only accepted with ``scale_factor`` 1 (numpy has no
scaled generic unit). A generic ``numpy.datetime64`` only takes ``NaT`` as
fill value (numpy holds no other datetime64 scalar in the generic unit); a
generic ``numpy.timedelta64`` takes integer counts and ``NaT``. The
configuration is always written in full.

In memory: the native-order numpy ``datetime64[<scale><unit>]`` /
``timedelta64[...]`` (8 bytes, byte order set by the ``bytes`` codec).

Fill value: a JSON integer in the int64 range (the raw count of units since
the epoch, or the duration) or the string ``"NaT"``; ``NaT`` is the int64
minimum, and ``-9223372036854775808`` and ``"NaT"`` mean the same. Written
as an integer (``NaT`` as the int64 minimum), as zarr-python 3.1 does. The
default is ``NaT``, as in zarr-python.

Through the Python API a fill value may be an integer (a raw count),
``"NaT"``, a numpy datetime64/timedelta64, a ``datetime.datetime`` /
``datetime.date`` / ``datetime.timedelta`` or an ISO 8601 string (for
datetime64). A value that the array's unit cannot hold exactly (2.5 s in a
``s`` array) is refused rather than truncated.

Mapping from numpy: every ``M8``/``m8`` dtype, whatever its byte order.
"""

from __future__ import annotations

import datetime
from typing import Any, ClassVar

import numpy as np

from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError

from ._util import config_keys, fill_error, is_int

UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "μs", "ns", "ps", "fs", "as", "generic")
_MAX_SCALE = 2**31 - 1
_INT64 = np.iinfo(np.int64)
_NAT = int(_INT64.min)


class _TimeType(DataType):
    kind: ClassVar[str]  # numpy kind: "M" or "m"
    numpy_name: ClassVar[str]  # "datetime64" or "timedelta64"
    python_types: ClassVar[tuple[type, ...]]

    def __init__(self, unit: str = "generic", scale_factor: int = 1) -> None:
        self.unit = unit
        self.scale_factor = scale_factor
        numpy_unit = "us" if unit == "μs" else unit
        if unit == "generic":
            self._dtype = np.dtype(self.numpy_name)
        else:
            self._dtype = np.dtype(f"{self.numpy_name}[{scale_factor}{numpy_unit}]")

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> _TimeType:
        config = config_keys(name, configuration, {"unit", "scale_factor"}, {"unit", "scale_factor"})
        unit, scale = config["unit"], config["scale_factor"]
        if unit not in UNITS:
            raise MetadataError(
                f"{name}: unit must be one of {list(UNITS)}, got {unit!r}",
                field="configuration.unit",
                value=unit,
            )
        if not is_int(scale) or not 1 <= scale <= _MAX_SCALE:
            raise MetadataError(
                f"{name}: scale_factor must be an integer in [1, {_MAX_SCALE}], got {scale!r}",
                field="configuration.scale_factor",
                value=scale,
            )
        if unit == "generic" and scale != 1:
            raise MetadataError(
                f"{name}: the generic unit takes no scale factor other than 1, got {scale!r}",
                field="configuration.scale_factor",
                value=scale,
            )
        return cls(unit, scale)

    @classmethod
    def from_numpy_dtype(cls, dtype: np.dtype) -> _TimeType | None:
        if dtype.kind != cls.kind:
            return None
        unit, scale = np.datetime_data(dtype)
        return cls(unit, int(scale))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"unit": self.unit, "scale_factor": self.scale_factor}}

    @property
    def numpy_dtype(self) -> np.dtype:
        return self._dtype

    def _from_int(self, count: int) -> Any:
        return np.array(count, dtype=np.int64).view(self._dtype)[()]

    def default_fill_value(self) -> Any:
        return self._from_int(_NAT)

    def fill_value_from_json(self, value: Any) -> Any:
        if value == "NaT" or (is_int(value) and value == _NAT):
            return self._from_int(_NAT)
        if self.unit == "generic" and self.kind == "M":
            raise fill_error(
                self.to_json(), value, '"NaT" (numpy holds no other datetime64 in the generic unit)'
            )
        if is_int(value) and _INT64.min <= value <= _INT64.max:
            return self._from_int(value)
        raise fill_error(self.to_json(), value, f'an integer in [{_INT64.min}, {_INT64.max}] or "NaT"')

    def fill_value_to_json(self, value: Any) -> int:
        return int(np.array(value, dtype=self._dtype).view(np.int64))

    def from_user_value(self, value: Any) -> Any:
        valid = (
            f'an integer count, "NaT", a numpy {self.numpy_name} or a Python '
            f"{' / '.join(t.__name__ for t in self.python_types)}"
        )
        if isinstance(value, (bool, np.bool_)):
            raise fill_error(self.to_json(), value, valid)
        if is_int(value) or (isinstance(value, np.integer) and not isinstance(value, np.timedelta64)):
            return self.fill_value_from_json(int(value))
        if isinstance(value, str) and value == "NaT":
            return self._from_int(_NAT)
        if isinstance(value, str) and self.kind == "M":
            try:
                value = np.datetime64(value)
            except ValueError:
                raise fill_error(self.to_json(), value, valid) from None
        if isinstance(value, self.python_types):
            value = np.array(value, dtype=self.numpy_name)[()]
        if not isinstance(value, np.datetime64 if self.kind == "M" else np.timedelta64):
            raise fill_error(self.to_json(), value, valid)
        source = np.array(value)
        if np.isnat(source):
            return self._from_int(_NAT)
        if self.unit == "generic":
            raise fill_error(self.to_json(), value, 'an integer count or "NaT" (the unit is generic)')
        try:
            converted = source.astype(self._dtype, casting="same_kind")
        except TypeError as exc:
            raise fill_error(self.to_json(), value, f"{valid} ({exc})") from None
        if converted.astype(source.dtype) != source:
            raise fill_error(self.to_json(), value, f"a value that {self._dtype} holds exactly")
        return converted[()]


class DateTime64(_TimeType):
    name = "numpy.datetime64"
    kind = "M"
    numpy_name = "datetime64"
    python_types = (datetime.datetime, datetime.date)


class TimeDelta64(_TimeType):
    name = "numpy.timedelta64"
    kind = "m"
    numpy_name = "timedelta64"
    python_types = (datetime.timedelta,)
