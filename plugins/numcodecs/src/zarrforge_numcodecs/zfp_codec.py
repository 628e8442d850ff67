"""The ``zfp`` codec of the zarr-extensions registry (``array -> bytes``), on zfpy.

Contract (the registry's codecs/zfp README):

* configuration: ``mode`` (required) and the parameters of that mode:
  ``"reversible"`` (none, lossless), ``"fixed_accuracy"`` (``tolerance``, a
  non-negative number), ``"fixed_rate"`` (``rate``, a positive number of bits per
  value), ``"fixed_precision"`` (``precision``, a positive integer of bit planes),
  ``"expert"`` (``minbits``, ``maxbits``, ``maxprec``, ``minexp``);
* the stream has **no** zfp header (unlike ``numcodecs.zfpy``): the configuration
  and the chunk's shape and data type say everything the decoder needs;
* the chunk is a zfp field of its shape in C order (``[nx]``, ``[ny, nx]``,
  ``[nz, ny, nx]``, ``[nw, nz, ny, nx]``); a 0-d chunk is a 1-d field of one
  value; a chunk of more than four dimensions has its dimensions of extent 1
  removed (the registry's later text, and zarrs), and must then have at most four;
* data types: ``float32``, ``float64``, ``int32``, ``int64`` as they are;
  ``int8``/``int16`` shifted into ``int32`` (``v << (31 - N)``) and ``uint8``/
  ``uint16`` offset then shifted (``(v - 2**(N-1)) << (31 - N)``), restored with
  the inverse and clamped, as zfp's promote/demote functions do; ``uint32`` and
  ``uint64`` clamped into ``int32``/``int64`` (values above the signed maximum
  are lost, as in zarrs); ``float16`` through ``float32``; ``numpy.datetime64``
  and ``numpy.timedelta64`` as ``int64``.

What is not done: ``expert`` mode. zfpy, the Python binding zfp ships, exposes the
accuracy, rate, precision and reversible modes only; an expert-mode array is refused
with a :class:`~zarrforge.errors.MetadataError` naming the mode (at creation and on
open), never misread. zfpy is imported when the codec is first used; without it the
error names the package (``pip install zfpy==1.0.1``; 1.0.1.post0 breaks
numcodecs' import).

Untrusted input: zfp's decoder does not check the end of its input, so the stored
bytes are copied into a zero-padded buffer as long as the largest stream the chunk
could have before decoding; a damaged chunk decodes to wrong values or fails with
:class:`~zarrforge.errors.CorruptChunkError`, and never reads outside that buffer.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayBytesCodec, ChunkSpec
from zarrforge.errors import CorruptChunkError, MetadataError

from . import _validate

MODES = {
    "reversible": (),
    "fixed_accuracy": ("tolerance",),
    "fixed_rate": ("rate",),
    "fixed_precision": ("precision",),
    "expert": ("minbits", "maxbits", "maxprec", "minexp"),
}

# data type name -> (zfp's numpy type, how values are carried there)
_CARRIED = {
    "float32": ("float32", "same"),
    "float64": ("float64", "same"),
    "int32": ("int32", "same"),
    "int64": ("int64", "same"),
    "int8": ("int32", "shift"),
    "int16": ("int32", "shift"),
    "uint8": ("int32", "offset"),
    "uint16": ("int32", "offset"),
    "uint32": ("int32", "clamp"),
    "uint64": ("int64", "clamp"),
    "float16": ("float32", "cast"),
    "numpy.datetime64": ("int64", "view"),
    "numpy.timedelta64": ("int64", "view"),
}


def _zfpy() -> Any:
    try:
        import zfpy
    except ImportError as error:
        raise MetadataError(
            "codec 'zfp' needs the zfpy package (pip install zfpy==1.0.1); it is not installed",
            field="name",
            value="zfp",
        ) from error
    return zfpy


def _type_name(spec: ChunkSpec) -> str:
    document = spec.data_type.to_json()
    return document if isinstance(document, str) else str(document.get("name"))


class ZfpCodec(ArrayBytesCodec):
    name = "zfp"

    def __init__(self, mode: str, **parameters: Any) -> None:
        self._mode = _validate.choice(self.name, "mode", mode, list(MODES))
        expected = MODES[self._mode]
        missing = [key for key in expected if key not in parameters]
        stray = sorted(set(parameters) - set(expected))
        if missing or stray:
            problem = (
                (f"needs {missing}" if missing else "")
                + (" and " if missing and stray else "")
                + (f"does not take {stray}" if stray else "")
            )
            raise MetadataError(
                f"codec 'zfp': mode {self._mode!r} {problem} (its parameters: {list(expected) or 'none'})",
                field=f"configuration.{(missing or stray)[0]}",
                value=parameters.get((missing or stray)[0]),
            )
        self._parameters = {key: self._checked(key, parameters[key]) for key in expected}
        if self._mode == "expert":
            raise MetadataError(
                "codec 'zfp': mode 'expert' is not supported by zarrforge (zfpy, the Python "
                "binding of zfp, offers only the reversible, fixed_accuracy, fixed_rate and "
                "fixed_precision modes)",
                field="configuration.mode",
                value="expert",
            )

    def _checked(self, key: str, value: Any) -> Any:
        if key in ("tolerance", "rate"):
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < 0
                or (key == "rate" and value == 0)
            ):
                raise MetadataError(
                    f"codec 'zfp': {key} must be a finite number "
                    f"{'above' if key == 'rate' else 'at least'} 0, got "
                    f"{value!r}",
                    field=f"configuration.{key}",
                    value=value,
                )
            return value
        if key == "minexp":
            return _validate.integer(self.name, key, value)
        return _validate.integer(self.name, key, value, minimum=1 if key == "precision" else 0)

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ZfpCodec:
        if configuration is None:
            raise MetadataError(
                "codec 'zfp' needs a configuration with a 'mode'", field="configuration", value=None
            )
        allowed = ["mode", *{k for keys in MODES.values() for k in keys}]
        config = _validate.configuration_object(cls.name, configuration, allowed=allowed, required=["mode"])
        mode = config.pop("mode")
        return cls(mode, **config)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"mode": self._mode, **self._parameters}}

    # --- what the chunk becomes ---------------------------------------------------------

    def _carried(self, spec: ChunkSpec) -> tuple[np.dtype, str]:
        name = _type_name(spec)
        if name not in _CARRIED:
            raise MetadataError(
                f"codec 'zfp' does not support data type {spec.data_type.to_json()!r} "
                f"(supported: {sorted(_CARRIED)})",
                field="data_type",
                value=spec.data_type.to_json(),
            )
        carried, how = _CARRIED[name]
        return np.dtype(carried), how

    @staticmethod
    def _field_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
        if not shape:
            return (1,)
        if len(shape) > 4:
            shape = tuple(extent for extent in shape if extent != 1) or (1,)
        if len(shape) > 4:
            raise MetadataError(
                f"codec 'zfp' encodes fields of 1 to 4 dimensions; the chunk shape "
                f"{shape} has {len(shape)} dimensions of extent above 1",
                field="chunk_shape",
                value=list(shape),
            )
        return shape

    def validate(self, spec: ChunkSpec) -> None:
        self._carried(spec)
        self._field_shape(tuple(spec.shape))

    def encoded_size(self, spec: ChunkSpec) -> int | None:
        return None

    def _options(self) -> dict[str, Any]:
        if self._mode == "fixed_accuracy":
            return {"tolerance": float(self._parameters["tolerance"])}
        if self._mode == "fixed_rate":
            return {"rate": float(self._parameters["rate"])}
        if self._mode == "fixed_precision":
            return {"precision": int(self._parameters["precision"])}
        return {}

    # --- data ---------------------------------------------------------------------------

    def _promote(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        carried, how = self._carried(spec)
        values = np.asarray(chunk)
        if how == "same":
            return np.ascontiguousarray(values, dtype=carried)
        if how == "view":
            return np.ascontiguousarray(values).view(np.int64).astype(carried)
        if how == "cast":
            return values.astype(carried)
        bits = values.dtype.itemsize * 8
        if how == "shift":
            return values.astype(carried) << (31 - bits)
        if how == "offset":
            return (values.astype(carried) - (1 << (bits - 1))) << (31 - bits)
        top = np.iinfo(carried).max  # clamp
        result: np.ndarray = np.minimum(values, top).astype(carried)
        return result

    def _demote(self, values: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        _, how = self._carried(spec)
        target = spec.dtype
        if how == "same":
            return values.astype(target, copy=False)
        if how == "view":
            return values.astype(np.int64).view(target)
        if how == "cast":
            return values.astype(target)
        if how == "clamp":
            result: np.ndarray = np.maximum(values, 0).astype(target)
            return result
        bits = target.itemsize * 8
        shifted = values >> (31 - bits)
        if how == "offset":
            shifted = shifted + (1 << (bits - 1))
        limits = np.iinfo(target)
        result = np.clip(shifted, limits.min, limits.max).astype(target)
        return result

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> bytes:
        zfpy = _zfpy()
        field = self._promote(chunk, spec).reshape(self._field_shape(tuple(spec.shape)))
        return bytes(zfpy.compress_numpy(field, write_header=False, **self._options()))

    def _bound(self, count: int, carried: np.dtype) -> int:
        """More bytes than any stream of ``count`` values can take: twice the values' own
        bytes, plus room for the blocks' overhead (zfp's worst case, incompressible data
        in reversible mode, stays well below that)."""
        return 2 * count * carried.itemsize + 4096

    def decode(self, data: bytes | memoryview, spec: ChunkSpec) -> np.ndarray:
        zfpy = _zfpy()
        carried, _ = self._carried(spec)
        shape = self._field_shape(tuple(spec.shape))
        count = math.prod(shape)
        bound = self._bound(count, carried)
        data = memoryview(data).cast("B")
        if len(data) > bound:
            raise CorruptChunkError(
                f"codec 'zfp': the chunk holds {len(data)} bytes, more than any zfp stream of "
                f"{count} {carried} values can ({bound}); it is corrupt"
            )
        padded = np.zeros(bound, dtype=np.uint8)
        padded[: len(data)] = np.frombuffer(data, dtype=np.uint8)
        try:
            values = zfpy._decompress(padded, zfpy.dtype_to_ztype(carried), list(shape), **self._options())
        except (ValueError, RuntimeError, TypeError, MemoryError) as error:
            raise CorruptChunkError(
                f"codec 'zfp' could not decode the chunk ({type(error).__name__}: {error})"
            ) from error
        return self._demote(np.asarray(values).reshape(spec.shape), spec)
