"""The ``scale_offset`` codec of the zarr-extensions registry (``array -> array``).

Contract:

* configuration (optional, as is each key): ``offset`` and ``scale``, each
  written in the fill-value JSON encoding of the array's data type (so
  ``"NaN"`` or a hex string are valid for floats). Absent: 0 and 1. The JSON
  is kept as given and parsed against the data type in ``validate`` (a value
  the type cannot hold is a ``MetadataError`` on ``configuration.offset`` /
  ``configuration.scale``); ``to_json`` writes it back unchanged.
* encoding is ``(x - offset) * scale``, decoding ``x / scale + offset``, in
  the arithmetic of the array's data type; the data type is unchanged. Any
  intermediate or final value the type cannot represent is an error
  (:class:`~zarrforge.errors.CodecError` when encoding,
  :class:`~zarrforge.errors.CorruptChunkError` when decoding): integer
  overflow, an integer division with a remainder, float overflow to infinity
  from finite values. A scale of 0 (not invertible) is a ``MetadataError``.
  Integer range checks use the chunk's minimum and maximum (the map is
  linear, so its extremes are there), then numpy computes exactly.
* ``resolve`` maps the fill value through the encoding, so codecs after this
  one see the encoded fill value; a fill value that cannot be encoded is a
  ``MetadataError`` on ``fill_value``.
* data types: signed and unsigned integers and floating-point types (numpy's
  and ml_dtypes' such as ``bfloat16``); others are refused by ``validate``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayArrayCodec, ChunkSpec
from zarrforge.errors import CodecError, CorruptChunkError, MetadataError, ZarrforgeError

from ._config import check_keys

_MISSING = object()


def _is_float(spec: ChunkSpec) -> bool:
    dtype = spec.dtype
    if dtype.kind == "f":
        return True
    name = spec.data_type.to_json()
    return (
        dtype.kind == "V"
        and isinstance(name, str)
        and dtype.itemsize <= 2
        and (name.startswith("float") or name == "bfloat16")
    )


def _check_type(spec: ChunkSpec) -> None:
    if spec.dtype.kind in "iu" or _is_float(spec):
        return
    raise MetadataError(
        f"codec 'scale_offset' does not support data type {spec.data_type.to_json()!r}; it "
        "needs an integer or floating-point type",
        field="data_type",
        value=spec.data_type.to_json(),
    )


@contextlib.contextmanager
def _arithmetic(error: type[ZarrforgeError], what: str) -> Iterator[None]:
    try:
        with np.errstate(over="raise", divide="raise", invalid="raise"):
            yield
    except (FloatingPointError, OverflowError, ZeroDivisionError) as exc:
        raise error(
            f"codec 'scale_offset': {what} produced a value the data type cannot represent ({exc})"
        ) from exc


class ScaleOffsetCodec(ArrayArrayCodec):
    name = "scale_offset"

    def __init__(self, *, offset: Any = _MISSING, scale: Any = _MISSING) -> None:
        for key, value in (("offset", offset), ("scale", scale)):
            if value is not _MISSING and not isinstance(value, (int, float, str, list)):
                raise MetadataError(
                    f"codec 'scale_offset': {key} must be a scalar in the fill-value encoding "
                    f"of the array's data type, got {value!r}",
                    field=f"configuration.{key}",
                    value=value,
                )
        self._offset = offset
        self._scale = scale

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ScaleOffsetCodec:
        config = check_keys(name, configuration, {"offset", "scale"})
        return cls(offset=config.get("offset", _MISSING), scale=config.get("scale", _MISSING))

    def to_json(self) -> dict[str, Any]:
        config = {
            key: value
            for key, value in (("offset", self._offset), ("scale", self._scale))
            if value is not _MISSING
        }
        return {"name": self.name, "configuration": config} if config else {"name": self.name}

    # --- parameters against a data type ------------------------------------------

    def _parameter(self, spec: ChunkSpec, key: str, default: int) -> Any:
        value = self._offset if key == "offset" else self._scale
        if value is _MISSING:
            return spec.dtype.type(default)
        try:
            return spec.dtype.type(spec.data_type.fill_value_from_json(value))
        except MetadataError as exc:
            raise MetadataError(
                f"codec 'scale_offset': {key} {value!r} is not a valid value of data type "
                f"{spec.data_type.to_json()!r} ({exc})",
                field=f"configuration.{key}",
                value=value,
            ) from exc

    def _parameters(self, spec: ChunkSpec) -> tuple[Any, Any]:
        _check_type(spec)
        offset = self._parameter(spec, "offset", 0)
        scale = self._parameter(spec, "scale", 1)
        if float(scale) == 0:
            raise MetadataError(
                "codec 'scale_offset': scale 0 cannot be decoded (division by zero); use a non-zero scale",
                field="configuration.scale",
                value=self._scale,
            )
        return offset, scale

    def validate(self, spec: ChunkSpec) -> None:
        self.resolve(spec)

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        try:
            fill = self._encode(np.asarray(spec.fill_value, dtype=spec.dtype), spec)[()]
        except CodecError as exc:
            raise MetadataError(
                f"codec 'scale_offset' cannot encode the fill value {spec.fill_value!r}: {exc}",
                field="fill_value",
                value=spec.fill_value,
            ) from exc
        return ChunkSpec(spec.shape, spec.data_type, fill, spec.layout)

    # --- data ---------------------------------------------------------------------

    def _integer_range(
        self, spec: ChunkSpec, values: list[int], error: type[ZarrforgeError], what: str
    ) -> None:
        info = np.iinfo(spec.dtype)
        for value in values:
            if not info.min <= value <= info.max:
                raise error(
                    f"codec 'scale_offset': {what} gives {value}, outside the range of "
                    f"data type {spec.data_type.to_json()!r} ({info.min} to {info.max})"
                )

    def _encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        offset, scale = self._parameters(spec)
        if chunk.size and not _is_float(spec):
            low, high = int(chunk.min()), int(chunk.max())
            shifted = [low - int(offset), high - int(offset)]
            self._integer_range(spec, shifted, CodecError, "subtracting the offset")
            self._integer_range(
                spec, [v * int(scale) for v in shifted], CodecError, "multiplying by the scale"
            )
        with _arithmetic(CodecError, "encoding"):
            out = (chunk - offset) * scale
            if _is_float(spec):
                finite = np.isfinite(chunk.astype(np.float64))
                if np.any(np.isinf(out.astype(np.float64)) & finite):
                    raise OverflowError("overflow to infinity")
        return np.asarray(out, dtype=spec.dtype)

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return self._encode(chunk, spec)

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        offset, scale = self._parameters(spec)
        if _is_float(spec):
            with _arithmetic(CorruptChunkError, "decoding"):
                return np.asarray(chunk / scale + offset, dtype=spec.dtype)
        if chunk.size:
            if np.any(chunk % scale):
                raise CorruptChunkError(
                    f"codec 'scale_offset': a stored value is not a multiple of the scale "
                    f"{int(scale)}, so decoding has no integer result; the chunk is corrupt"
                )
            low, high = int(chunk.min()), int(chunk.max())
            quotients = [low // int(scale), high // int(scale)]
            self._integer_range(spec, quotients, CorruptChunkError, "dividing by the scale")
            self._integer_range(
                spec, [q + int(offset) for q in quotients], CorruptChunkError, "adding the offset"
            )
        return np.asarray(chunk // scale + offset, dtype=spec.dtype)
