"""Data type identifiers of the 2022 draft, to and from registered data types.

Reading accepts both generations of names, in either dialect:

* the spec table's names ``bool``, ``int8`` .. ``int64``, ``uint8`` ..
  ``uint64``, ``float16/32/64``, ``complex64/128`` (little endian unless an
  endian codec says otherwise) and the raw types ``r8``, ``r16``, ...;
* numpy-style strings as zarr-python 2 writes them and the draft's own
  examples use: ``"<f8"``, ``">i2"``, ``"u1"``, ``"|b1"``, ``"i1"``; the byte
  order goes to the ``bytes`` codec of the model;
* ``"<M8[ns]"`` / ``"<m8[10s]"`` (numpy.datetime64 / numpy.timedelta64, from
  zarrforge-dtypes);
* extension objects ``{"extension": URI, "type": ..., "fallback": ...}``:
  resolved through a data type registered under the URI itself, else through
  the table of URIs below (datetime and complex types as the draft and
  zarr-python named them); an extension nobody understands falls back to
  ``fallback`` (a core type or ``r*``) with a :class:`FallbackDataTypeWarning`,
  and without a fallback it is an error naming ``data_type.extension``.

Every name resolves through ``zarrforge.registry.data_types``: the draft's
spellings are translated to the registered names, never to classes.

The spelling found in a document is kept by the format in the model
(:mod:`.spellings`) and given back to :func:`spell`, so writing a node back
reproduces it -- including an extension object whose type fell back. New data
types are spelled in the dialect's style.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Literal

import numpy as np

from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError, SkippedExtensionWarning, UnknownExtensionError
from zarrforge.plugin_api import formats as c
from zarrforge.plugin_api.formats import registry

from .dialects import EDITOR, ZARR_PYTHON

CORE_NAMES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)

# numpy kind + item size -> registered core name
_NUMPY_TO_CORE = {
    ("b", 1): "bool",
    ("i", 1): "int8",
    ("i", 2): "int16",
    ("i", 4): "int32",
    ("i", 8): "int64",
    ("u", 1): "uint8",
    ("u", 2): "uint16",
    ("u", 4): "uint32",
    ("u", 8): "uint64",
    ("f", 2): "float16",
    ("f", 4): "float32",
    ("f", 8): "float64",
    ("c", 8): "complex64",
    ("c", 16): "complex128",
}

# The seed's example URI, the one zarr-python 2.18 writes, and the one earlier 2.x wrote.
SEED_DATETIME_URI = "https://purl.org/zarr/spec/extensions/datetime-dtypes/1.0"
ZARR_PYTHON_DATETIME_URI = (
    "https://zarr-specs.readthedocs.io/en/latest/extensions/data-types/datetime/v1.0.html"
)
DATETIME_URIS = frozenset(
    {
        SEED_DATETIME_URI,
        ZARR_PYTHON_DATETIME_URI,
        "https://zarr-specs.readthedocs.io/en/core-protocol-v3.0-dev/protocol/extensions/"
        "datetime-dtypes/v1.0.html",
    }
)
ZARR_PYTHON_COMPLEX_URI = (
    "https://zarr-specs.readthedocs.io/en/core-protocol-v3.0-dev/protocol/extensions/complex-dtypes/v1.0.html"
)
COMPLEX_URIS = frozenset({ZARR_PYTHON_COMPLEX_URI})

# zarr-python 2.18 accepts these datetime strings (scale factor 1, named units).
_ZP_TIME_UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "μs", "ns", "ps", "fs", "as")

_NUMPY_RE = re.compile(r"([<>|=]?)([biufc])(\d+)")
_TIME_RE = re.compile(r"([<>|=]?)([Mm])8(?:\[(\d*)([A-Za-zμ]+)\])?")


class FallbackDataTypeWarning(SkippedExtensionWarning):
    """An extension data type is not understood; its ``fallback`` type is used instead."""


def _order_of(char: str, itemsize: int, *, field: str, value: Any) -> str | None:
    """The byte order ('<' or '>') a type string gives a multi-byte type, None for 1 byte."""
    if itemsize == 1:
        return None
    if char in ("<", ">"):
        return char
    raise MetadataError(
        f"the numpy-style type {value!r} needs a byte order, '<' (little endian) or '>' (big endian)",
        field=field,
        value=value,
    )


def parse_name(value: Any, *, field: str = "data_type") -> tuple[DataType, str | None]:
    """A data type identifier string: the registered data type and its byte order, if it gives one."""
    if not isinstance(value, str) or not value:
        raise MetadataError(
            f"a data type identifier must be a non-empty string or an extension object, got {value!r}",
            field=field,
            value=value,
        )
    if value in CORE_NAMES or re.fullmatch(r"r\d+", value):
        return c.data_type_from_json(value, field=field), None
    match = _NUMPY_RE.fullmatch(value)
    if match:
        char, kind, size = match.group(1), match.group(2), int(match.group(3))
        name = _NUMPY_TO_CORE.get((kind, size))
        if name is None:
            raise MetadataError(f"unsupported numpy-style data type {value!r}", field=field, value=value)
        return c.data_type_from_json(name, field=field), _order_of(char, size, field=field, value=value)
    match = _TIME_RE.fullmatch(value)
    if match:
        char, kind, scale, unit = match.groups()
        name = "numpy.datetime64" if kind == "M" else "numpy.timedelta64"
        config = {"unit": unit or "generic", "scale_factor": int(scale) if scale else 1}
        return (
            c.data_type_from_json({"name": name, "configuration": config}, field=field),
            _order_of(char, 8, field=field, value=value),
        )
    # A name registered as is (a third-party type, a zarrforge-dtypes name).
    if value in registry.data_types:
        return c.data_type_from_json(value, field=field), None
    raise UnknownExtensionError("data type", value, registry.data_types.names(), field=field)


def _extension_type(uri: str, type_value: Any, *, field: str) -> tuple[DataType, str | None]:
    """A known extension URI of the table above, with its ``type``."""
    where = f"{field}.type"
    if not isinstance(type_value, str):
        raise MetadataError(
            f"the type of extension {uri!r} must be a numpy-style string, got {type_value!r}",
            field=where,
            value=type_value,
        )
    data_type, order = parse_name(type_value, field=where)
    kind = data_type.numpy_dtype.kind
    expected = "Mm" if uri in DATETIME_URIS else "c"
    if kind not in expected:
        raise MetadataError(
            f"extension {uri!r} defines {'datetime' if expected == 'Mm' else 'complex'} "
            f"types, not {type_value!r}",
            field=where,
            value=type_value,
        )
    return data_type, order


def parse_extension_object(value: dict[str, Any], *, field: str = "data_type") -> tuple[DataType, str | None]:
    uri = value.get("extension")
    if not isinstance(uri, str) or not uri:
        raise MetadataError(
            f"an extension data type needs 'extension' (a URI), got {uri!r}",
            field=f"{field}.extension",
            value=uri,
        )
    if "type" not in value:
        raise MetadataError(
            f"extension data type {uri!r} lacks the required 'type'", field=f"{field}.type", value=None
        )
    fallback = value.get("fallback")
    unknown_reason: Exception | None = None
    try:
        if uri in registry.data_types:
            # A plugin registered the URI itself: it receives everything but the
            # extension and the fallback as configuration.
            config = {k: v for k, v in value.items() if k not in ("extension", "fallback")}
            return c.data_type_from_json({"name": uri, "configuration": config}, field=field), None
        if uri in DATETIME_URIS or uri in COMPLEX_URIS:
            return _extension_type(uri, value["type"], field=field)
        unknown_reason = UnknownExtensionError(
            "data type", uri, registry.data_types.names(), field=f"{field}.extension"
        )
    except UnknownExtensionError as exc:  # a known URI whose plugin is not installed
        unknown_reason = exc
    if fallback is None:
        raise unknown_reason
    fallback_type, order = parse_name(fallback, field=f"{field}.fallback")
    if fallback_type.to_json() not in CORE_NAMES and not re.fullmatch(r"r\d+", str(fallback_type.to_json())):
        raise MetadataError(
            f"a fallback must be a core data type or r*, got {fallback!r}",
            field=f"{field}.fallback",
            value=fallback,
        )
    warnings.warn(
        f"{field}: extension data type {uri!r} (type {value['type']!r}) is not "
        f"understood ({unknown_reason}); using its fallback {fallback!r}",
        FallbackDataTypeWarning,
        stacklevel=4,
    )
    return fallback_type, order


def parse_data_type(value: Any, *, field: str = "data_type") -> tuple[DataType, str | None]:
    """A document's ``data_type``: the data type and the byte order its spelling gives."""
    if isinstance(value, dict):
        return parse_extension_object(value, field=field)
    return parse_name(value, field=field)


# --- writing --------------------------------------------------------------------------------


def spell(
    data_type: DataType,
    endian: str | None,
    dialect: str,
    *,
    field: str = "data_type",
    remembered: tuple[Any, str | None] | None = None,
) -> tuple[Any, str | None]:
    """The ``data_type`` JSON for ``dialect`` and the byte order it states (None if none).

    ``endian`` is the model's (the ``bytes`` codec's) ``"little"``/``"big"``/None.
    ``remembered``: the ``(spelling, byte order)`` the data type was read with
    (:mod:`.spellings`), reused when it states no byte order or the same one.
    """
    orders: dict[str, Literal["<", ">"]] = {"little": "<", "big": ">"}
    order = orders.get(endian or "", None)
    if remembered is not None:
        spelling, spelled_order = remembered
        usable = spelled_order is None or spelled_order == (order or "<")
        if dialect == ZARR_PYTHON and data_type.has_endianness:
            usable = usable and spelled_order is not None  # zarr-python needs it in the name
        if (
            dialect == ZARR_PYTHON
            and isinstance(spelling, str)
            and spelling in CORE_NAMES
            and spelling != "bool"
        ):
            usable = False  # zarr-python reads numpy-style names only
        if usable:
            return spelling, spelled_order
    name = data_type.to_json()
    dtype = data_type.numpy_dtype
    if dialect == EDITOR:
        if isinstance(name, str) and (name in CORE_NAMES or re.fullmatch(r"r\d+", name)):
            return name, None
        if dtype.kind in "Mm" and isinstance(name, dict):
            return {
                "extension": SEED_DATETIME_URI,
                "type": dtype.newbyteorder(order or "<").str,
                "fallback": "int64",
            }, order or "<"
    else:
        if name == "bool":
            return "bool", None
        if name in ("int8", "uint8"):
            return dtype.str.lstrip("|"), None
        if isinstance(name, str) and name in CORE_NAMES and dtype.kind in "iuf":
            return dtype.newbyteorder(order or "<").str, order or "<"
        if isinstance(name, str) and name in ("complex64", "complex128"):
            return {
                "extension": ZARR_PYTHON_COMPLEX_URI,
                "type": dtype.newbyteorder(order or "<").str,
                "fallback": None,
            }, order or "<"
        if dtype.kind in "Mm" and isinstance(name, dict):
            text = dtype.newbyteorder(order or "<").str
            unit = np.datetime_data(dtype)
            if unit[1] != 1 or unit[0] not in _ZP_TIME_UNITS:
                raise MetadataError(
                    f"zarr-python 2 reads datetime types with a named unit and no "
                    f"scale factor only, not {text!r}; write this hierarchy in the "
                    "'editor' dialect",
                    field=field,
                    value=name,
                )
            return {"extension": ZARR_PYTHON_DATETIME_URI, "type": text, "fallback": None}, order or "<"
    if isinstance(name, dict) and "://" in str(name.get("name", "")):
        # A third-party type registered under its extension URI.
        return {"extension": name["name"], **(name.get("configuration") or {})}, None
    raise MetadataError(
        f"data type {name!r} has no spelling in the {dialect!r} dialect of the 2022 "
        "draft"
        + (
            " (zarr-python 2 reads numeric, bool, complex and datetime types only; try the 'editor' dialect)"
            if dialect == ZARR_PYTHON
            else ""
        ),
        field=field,
        value=name,
    )
