"""Fill values as the 2022 draft encodes them.

Reading (both dialects):

* booleans ``true``/``false``; integers as JSON integers;
* floats as numbers, ``"NaN"``, ``"+Infinity"`` (the draft), ``"Infinity"``
  (zarr-python 2), ``"-Infinity"``;
* for core types, a bit pattern as ``"0x..."`` (hexadecimal) or ``"0b..."``
  (binary) string with every leading zero the type size needs (a signed
  integer's pattern is two's complement);
* complex numbers as ``[real, imaginary]``, each part encoded like a float;
* raw ``r*`` types as ``"0x..."``/``"0b..."`` (the bytes in order) or a list
  of byte values;
* extension types (datetime): whatever the registered data type accepts
  (an integer count, ``"NaT"``);
* ``null`` -- which the draft forbids but zarr-python 2 writes (``fill_value=None``)
  and the seed's extension data type example uses -- reads as the data type's
  default fill value; the format records it so the document is written back
  with ``null``.

Writing: the registered data type's JSON form, adjusted per dialect:
``"+Infinity"`` (editor) or ``"Infinity"`` (zarr-python, whose reader knows
only that); a NaN with a payload as a hex pattern in the editor dialect and
as ``"NaN"`` for zarr-python (which cannot read the pattern); raw types as a
hex string.
"""

from __future__ import annotations

from typing import Any

from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError

from .dialects import EDITOR


def _bits(value: str, nbytes: int, *, field: str, what: str) -> int | None:
    """The integer a "0x"/"0b" pattern holds (exactly ``nbytes`` wide), None for other strings."""
    if value[:2] == "0x":
        digits, base, width = value[2:], 16, 2 * nbytes
    elif value[:2] == "0b":
        digits, base, width = value[2:], 2, 8 * nbytes
    else:
        return None
    try:
        number = int(digits, base)
    except ValueError:
        number = None
    if number is None or len(digits) != width or digits.strip("0123456789abcdefABCDEF"):
        raise MetadataError(
            f"the bit pattern {value!r} for {what} must have exactly {width} "
            f"{'hexadecimal' if base == 16 else 'binary'} digits (every leading zero "
            "included)",
            field=field,
            value=value,
        )
    return number


def _float_json(value: Any, itemsize: int, *, field: str, what: str) -> Any:
    if isinstance(value, str):
        if value == "+Infinity":
            return "Infinity"
        bits = _bits(value, itemsize, field=field, what=what)
        if bits is not None:
            return f"0x{bits:0{2 * itemsize}x}"
    return value


def fill_value_from_json(data_type: DataType, value: Any, *, field: str = "fill_value") -> tuple[Any, bool]:
    """The in-memory fill value, and whether the document said ``null``."""
    if value is None:
        return data_type.default_fill_value(), True
    dtype = data_type.numpy_dtype
    what = f"data type {data_type.to_json()!r}"
    kind = dtype.kind
    if kind == "f":
        value = _float_json(value, dtype.itemsize, field=field, what=what)
    elif kind == "c":
        if isinstance(value, (list, tuple)) and len(value) == 2:
            value = [_float_json(v, dtype.itemsize // 2, field=field, what=what) for v in value]
    elif kind in "iu" and isinstance(value, str):
        bits = _bits(value, dtype.itemsize, field=field, what=what)
        if bits is not None:
            if kind == "i" and bits >= 1 << (8 * dtype.itemsize - 1):
                bits -= 1 << (8 * dtype.itemsize)
            value = bits
    elif kind == "V" and isinstance(value, str):
        bits = _bits(value, dtype.itemsize, field=field, what=what)
        if bits is not None:
            value = list(bits.to_bytes(dtype.itemsize, "big"))
    try:
        return data_type.fill_value_from_json(value), False
    except MetadataError as exc:
        if exc.field is None:
            exc.field = field
        raise


def _float_out(value: Any, dialect: str) -> Any:
    if value == "Infinity" and dialect == EDITOR:
        return "+Infinity"
    if isinstance(value, str) and value.startswith("0x") and dialect != EDITOR:
        return "NaN"  # zarr-python 2 reads no bit patterns; a NaN payload is lost, as there
    return value


def fill_value_to_json(data_type: DataType, value: Any, dialect: str) -> Any:
    encoded = data_type.fill_value_to_json(value)
    kind = data_type.numpy_dtype.kind
    if kind == "f":
        return _float_out(encoded, dialect)
    if kind == "c" and isinstance(encoded, list):
        return [_float_out(v, dialect) for v in encoded]
    if kind == "V" and isinstance(encoded, list) and dialect == EDITOR:
        return "0x" + bytes(encoded).hex()
    return encoded
