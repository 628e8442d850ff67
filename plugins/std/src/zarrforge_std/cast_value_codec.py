"""The ``cast_value`` codec of the zarr-extensions registry (``array -> array``).

Contract:

* configuration: ``data_type`` (required; Zarr v3 data type metadata, the
  encoded type), ``rounding`` (``nearest-even`` default, ``towards-zero``,
  ``towards-positive``, ``towards-negative``, ``nearest-away``),
  ``out_of_range`` (absent: an error; ``clamp``; ``wrap``, only for an integer
  ``data_type``) and ``scalar_map`` (``{"encode": [[in, out], ...], "decode":
  [...]}``, scalars in each side's fill-value JSON encoding; the first entry
  for a key wins). ``to_json`` writes the configuration back as read.
  Leniency on read: a scalar spelled ``"+Infinity"`` means ``"Infinity"`` (the
  registry README's own NumPy-compatibility example spells it so, and
  zarr-python 3.4 reads it); zarrforge never writes that spelling itself.
* the constructor takes the configuration object, ``CastValueCodec({"data_type":
  "uint8"})``, or zarr-python's keywords, ``CastValueCodec(data_type="uint8",
  rounding="nearest-even", out_of_range=None, scalar_map=None)`` (``data_type`` also a
  data type object; the configuration then holds ``rounding`` only when it is not the
  default, ``out_of_range`` and ``scalar_map`` only when given, as zarr-python writes it).
* each value is converted by the first rule that applies: the scalar map;
  an exact conversion; rounding, then the out-of-range rule. Anything else
  (NaN or infinity into an integer type, a value out of range with no
  ``out_of_range``) raises :class:`~zarrforge.errors.CodecError` when
  encoding and :class:`~zarrforge.errors.CorruptChunkError` when decoding.
  NaN propagates between floating-point types; signed zero is kept.
* decoding runs the same procedure from ``data_type`` back to the array's
  type with ``scalar_map.decode``.
* ``resolve`` returns the spec with ``data_type`` and the converted fill
  value; a fill value that does not survive encode-then-decode is a
  ``MetadataError`` on ``fill_value``.
* data types: numpy integer and floating-point types. Rounding into a
  floating-point type other than ``nearest-even`` is decided by comparing in
  ``numpy.longdouble``; ml_dtypes' narrow floats are refused for now.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayArrayCodec, ChunkSpec
from zarrforge.abc.data_type import DataType
from zarrforge.errors import CodecError, CorruptChunkError, MetadataError, ZarrforgeError
from zarrforge.plugin_api.codecs import data_type_from_json, json_ready

from ._config import check_keys

ROUNDINGS = ("nearest-even", "towards-zero", "towards-positive", "towards-negative", "nearest-away")
OUT_OF_RANGE = ("clamp", "wrap")


def _supported(data_type: DataType, field: str) -> None:
    if data_type.numpy_dtype.kind not in "iuf":
        raise MetadataError(
            f"codec 'cast_value' does not support data type {data_type.to_json()!r}; it casts "
            "between integer and floating-point types",
            field=field,
            value=data_type.to_json(),
        )


def _choice(config: dict[str, Any], key: str, options: tuple[str, ...]) -> str | None:
    value = config.get(key)
    if value is not None and value not in options:
        raise MetadataError(
            f"codec 'cast_value': {key} must be one of {', '.join(options)}, got {value!r}",
            field=f"configuration.{key}",
            value=value,
        )
    return value


def _keyword_configuration(
    data_type: Any, rounding: str, out_of_range: str | None, scalar_map: dict[str, Any] | None
) -> dict[str, Any]:
    """The configuration object of zarr-python's keywords (``CastValue(data_type=...)``)."""
    if data_type is None:
        raise MetadataError(
            "codec 'cast_value': data_type is required (a Zarr v3 data type "
            "name or object, e.g. data_type='uint8')",
            field="configuration.data_type",
            value=None,
        )
    if isinstance(data_type, DataType):
        data_type = data_type.to_json()
    config: dict[str, Any] = {"data_type": data_type}
    if rounding != "nearest-even":
        config["rounding"] = rounding
    if out_of_range is not None:
        config["out_of_range"] = out_of_range
    if scalar_map is not None:
        config["scalar_map"] = (
            json_ready(scalar_map) if isinstance(scalar_map, dict) else scalar_map
        )  # anything else: refused by _pairs
    return config


def _pairs(config: dict[str, Any]) -> dict[str, list[list[Any]]]:
    scalar_map = config.get("scalar_map")
    if scalar_map is None:
        return {"encode": [], "decode": []}
    if not isinstance(scalar_map, dict) or set(scalar_map) - {"encode", "decode"}:
        raise MetadataError(
            "codec 'cast_value': scalar_map must be an object with optional "
            f"keys 'encode' and 'decode', got {scalar_map!r}",
            field="configuration.scalar_map",
            value=scalar_map,
        )
    result = {}
    for direction in ("encode", "decode"):
        pairs = scalar_map.get(direction, [])
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise MetadataError(
                f"codec 'cast_value': scalar_map.{direction} must be a list of "
                f"[input, output] pairs, got {pairs!r}",
                field=f"configuration.scalar_map.{direction}",
                value=pairs,
            )
        result[direction] = [list(p) for p in pairs]
    return result


def _lenient_scalar(value: Any) -> Any:
    return "Infinity" if value == "+Infinity" else value


def _matches(values: np.ndarray, key: Any) -> np.ndarray:
    if isinstance(key, (float, np.floating)) and np.isnan(key):
        return np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.shape, bool)
    with np.errstate(invalid="ignore"):
        result: np.ndarray = values == key
        return result


def _round_to_integer(values: np.ndarray, rounding: str) -> np.ndarray:
    if rounding == "nearest-even":
        result: np.ndarray = np.rint(values)
        return result
    if rounding == "towards-zero":
        result = np.trunc(values)
        return result
    if rounding == "towards-positive":
        result = np.ceil(values)
        return result
    if rounding == "towards-negative":
        result = np.floor(values)
        return result
    magnitude = np.abs(values)
    floor = np.floor(magnitude)
    result = np.copysign(floor + (magnitude - floor >= 0.5), values)
    return result


def _round_to_float(values: np.ndarray, target: np.dtype, rounding: str) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = values.astype(target)
    if rounding == "nearest-even":
        return nearest
    exact = values.astype(np.longdouble)
    got = nearest.astype(np.longdouble)
    if rounding == "nearest-away":
        away = np.nextafter(nearest, np.copysign(np.inf, nearest).astype(target))
        tie = (np.abs(got - exact) == np.abs(away.astype(np.longdouble) - exact)) & (
            np.abs(got) < np.abs(exact)
        )
        return np.where(tie, away, nearest)
    if rounding == "towards-zero":
        fix = np.abs(got) > np.abs(exact)
        toward = np.zeros_like(nearest)
    elif rounding == "towards-positive":
        fix = got < exact
        toward = np.full_like(nearest, np.inf)
    else:
        fix = got > exact
        toward = np.full_like(nearest, -np.inf)
    fix &= np.isfinite(exact)
    return np.where(fix, np.nextafter(nearest, toward), nearest)


class CastValueCodec(ArrayArrayCodec):
    name = "cast_value"

    def __init__(
        self,
        configuration: dict[str, Any] | None = None,
        /,
        *,
        data_type: str | dict[str, Any] | DataType | None = None,
        rounding: str = "nearest-even",
        out_of_range: str | None = None,
        scalar_map: dict[str, Any] | None = None,
    ) -> None:
        if configuration is None:
            configuration = _keyword_configuration(data_type, rounding, out_of_range, scalar_map)
        elif (data_type, rounding, out_of_range, scalar_map) != (None, "nearest-even", None, None):
            raise TypeError(
                "CastValueCodec takes a configuration object or keywords "
                "(data_type=, rounding=, out_of_range=, scalar_map=), not both"
            )
        config = check_keys(
            self.name, configuration, {"data_type", "rounding", "out_of_range", "scalar_map"}, {"data_type"}
        )
        if not isinstance(config["data_type"], (str, dict)):
            raise MetadataError(
                "codec 'cast_value': data_type must be Zarr v3 data type "
                f"metadata (a name or an object), got {config['data_type']!r}",
                field="configuration.data_type",
                value=config["data_type"],
            )
        self.target = data_type_from_json(config["data_type"], field="configuration.data_type")
        _supported(self.target, "configuration.data_type")
        self.rounding = _choice(config, "rounding", ROUNDINGS) or "nearest-even"
        self.out_of_range = _choice(config, "out_of_range", OUT_OF_RANGE)
        if self.out_of_range == "wrap" and self.target.numpy_dtype.kind not in "iu":
            raise MetadataError(
                "codec 'cast_value': out_of_range 'wrap' needs an integer "
                f"data_type, got {self.target.to_json()!r}",
                field="configuration.out_of_range",
                value="wrap",
            )
        self._pairs = _pairs(config)
        self._configuration = dict(config)

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> CastValueCodec:
        if configuration is None:
            raise MetadataError(
                "codec 'cast_value' needs a configuration with 'data_type'", field="configuration", value=None
            )
        return cls(configuration)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": dict(self._configuration)}

    # --- conversion -----------------------------------------------------------------

    def _map(self, direction: str, source: DataType, target: DataType) -> list[tuple[Any, Any]]:
        pairs: list[tuple[Any, Any]] = []
        seen: list[Any] = []
        for index, (key, value) in enumerate(self._pairs[direction]):
            field = f"configuration.scalar_map.{direction}[{index}]"
            try:
                key = source.fill_value_from_json(_lenient_scalar(key))
                value = target.fill_value_from_json(_lenient_scalar(value))
            except MetadataError as exc:
                raise MetadataError(
                    f"codec 'cast_value': scalar_map.{direction}[{index}] is "
                    f"not a pair of {source.to_json()!r} and "
                    f"{target.to_json()!r} values ({exc})",
                    field=field,
                    value=self._pairs[direction][index],
                ) from exc
            if any(_matches(np.asarray([key], dtype=source.numpy_dtype), k)[0] for k in seen):
                continue  # the first occurrence of a key wins
            seen.append(key)
            pairs.append((key, value))
        return pairs

    def _cast(
        self,
        values: np.ndarray,
        source: DataType,
        target: DataType,
        direction: str,
        error: type[ZarrforgeError],
    ) -> np.ndarray:
        out_dtype = target.numpy_dtype
        values = np.asarray(values, dtype=source.numpy_dtype)
        out = np.zeros(values.shape, dtype=out_dtype)
        done = np.zeros(values.shape, dtype=bool)
        for key, value in self._map(direction, source, target):
            hit = _matches(values, key) & ~done
            out[hit] = value
            done |= hit
        rest = values[~done]
        if out_dtype.kind == "f":
            converted = _round_to_float(rest, out_dtype, self.rounding)
            overflow = np.isinf(converted) & np.isfinite(rest.astype(np.longdouble))
            if overflow.any() and self.out_of_range is None:
                raise error(
                    f"codec 'cast_value': {rest[overflow][0]!r} is outside the range of "
                    f"{target.to_json()!r} and out_of_range is not set"
                )
        else:
            if rest.dtype.kind == "f":
                bad = ~np.isfinite(rest)
                if bad.any():
                    raise error(
                        f"codec 'cast_value': {rest[bad][0]!r} has no value in "
                        f"integer type {target.to_json()!r}; map it with scalar_map"
                    )
                rounded = _round_to_integer(rest, self.rounding)
            else:
                rounded = rest
            converted = self._integer_range(rounded, out_dtype, target, error)
        out[~done] = converted
        return out

    def _integer_range(
        self, values: np.ndarray, out_dtype: np.dtype, target: DataType, error: type[ZarrforgeError]
    ) -> np.ndarray:
        info = np.iinfo(out_dtype)
        if values.dtype.kind == "f":
            # float(info.max) may round up to 2**bits: compare against exact bounds in longdouble
            exact = values.astype(np.longdouble)
            low, high = exact < np.longdouble(info.min), exact > np.longdouble(info.max)
        else:  # numpy (>= 2) compares integer arrays with any Python int exactly
            low, high = values < info.min, values > info.max
        outside = low | high
        if outside.any():
            if self.out_of_range is None:
                raise error(
                    f"codec 'cast_value': {values[outside][0]!r} is outside the range of "
                    f"{target.to_json()!r} ({info.min} to {info.max}) and out_of_range "
                    "is not set"
                )
            if self.out_of_range == "clamp":
                result = np.where(low, info.min, np.where(high, info.max, 0))
                inside = values[~outside]
                final = np.empty(values.shape, dtype=out_dtype)
                final[outside] = result[outside]
                final[~outside] = inside.astype(out_dtype)
                return final
            if values.dtype.kind == "f":
                modulus = float(2**info.bits)
                wrapped = np.fmod(values, modulus)
                wrapped = np.where(wrapped < 0, wrapped + modulus, wrapped)
                converted: np.ndarray = wrapped.astype(np.uint64).astype(out_dtype)
                return converted
        with np.errstate(over="ignore", invalid="ignore"):
            return values.astype(out_dtype)  # integer to integer wraps modulo 2**bits

    # --- codec contract -------------------------------------------------------------

    def validate(self, spec: ChunkSpec) -> None:
        self.resolve(spec)

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        _supported(spec.data_type, "data_type")
        try:
            fill = self._cast(
                np.asarray([spec.fill_value]), spec.data_type, self.target, "encode", CodecError
            )
            back = self._cast(fill, self.target, spec.data_type, "decode", CodecError)
        except CodecError as exc:
            raise MetadataError(
                f"codec 'cast_value' cannot cast the fill value {spec.fill_value!r}: {exc}",
                field="fill_value",
                value=spec.fill_value,
            ) from exc
        original = np.asarray([spec.fill_value], dtype=spec.dtype)
        same = (back == original) | (np.isnan(back) & np.isnan(original) if spec.dtype.kind == "f" else False)
        if not same.all():
            raise MetadataError(
                f"codec 'cast_value': the fill value {spec.fill_value!r} does "
                f"not survive the cast to {self.target.to_json()!r} and back "
                f"(it comes back as {back[0]!r})",
                field="fill_value",
                value=spec.fill_value,
            )
        return ChunkSpec(spec.shape, self.target, fill[0], spec.layout)

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return self._cast(chunk, spec.data_type, self.target, "encode", CodecError)

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return self._cast(chunk, self.target, spec.data_type, "decode", CorruptChunkError)
