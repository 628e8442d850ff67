"""The codec arguments of a new array, normalised once, before a format sees them.

``create_array`` (and ``zarrforge.copy``'s overrides, and the xarray backend through
``create_array``) accept codecs in many forms. :func:`normalised` turns an
:class:`~zarrforge.abc.format.ArrayCreationSpec` into the one form every format's
``new_array`` receives:

* ``codecs=`` (the complete chain) excludes ``filters=``, ``serializer=`` and
  ``compressors=``; passing both is a ``ValueError`` naming them.
* ``filters``, ``compressors`` and ``codecs`` become tuples: ``None`` is no codec,
  one codec is a tuple of one. ``codecs`` stays ``None`` when not given.
* ``compressors="auto"`` becomes the format's default
  (:meth:`~zarrforge.abc.format.Format.default_compressors`); ``filters="auto"`` is
  no filter and ``serializer="auto"`` is ``None`` (the format's default serializer).
* Each codec is passed on as given (a zarrforge codec, a name, a JSON object in the
  format's own spelling), except codec objects of other libraries, which become the
  JSON that zarrforge's formats read:

  - a numcodecs codec (``numcodecs.abc.Codec``) becomes its numcodecs configuration
    (``{"id": "zstd", "level": 3}``): Zarr v2 stores it as it is, the v3 formats
    read it as the codec ``numcodecs.<id>`` (:func:`zarrforge.registries.resolution.codec_from_user`);
  - a zarr-python 3 codec (``zarr.abc.codec.BaseCodec``, ``numcodecs.zarr3``'s
    included) becomes its ``to_dict()`` without the settings the object leaves
    unset (``None`` in zarr-python 3.0, named in ``_tunable_attrs`` from 3.1 on,
    where ``to_dict()`` shows a placeholder): zarr-python fills those in from the
    array when it writes the array's metadata (blosc's ``typesize`` and
    ``shuffle``), and so do zarrforge's codecs when they are evolved for the
    array, so the stored chain is the same.

  Nothing else is interpreted here; what a format cannot read it refuses, naming
  the argument (``compressors[0]``, ...).
"""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import Any

from ..abc.format import ArrayCreationSpec, Format
from ..errors import UncompressedWarning
from ..metadata.replacing import replaced
from ..registries import registry

AUTO = "auto"

# The arguments that together are an alternative to codecs= (each not given: None or "auto").
_PARTS = ("filters", "serializer", "compressors")


def _is_auto(value: Any) -> bool:
    return isinstance(value, str) and value == AUTO


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,)


def _zarr_python_codec_class() -> type | None:
    """zarr-python's codec base class if zarr-python is imported (a zarr-python codec
    object can only exist then; zarrforge never imports zarr-python itself)."""
    module = sys.modules.get("zarr.abc.codec")
    return getattr(module, "BaseCodec", None) or getattr(module, "Codec", None)


def _numcodecs_codec_class() -> type[Any] | None:
    """numcodecs' codec base class if numcodecs is imported (a numcodecs codec object can
    only exist then: a core-only install, without numcodecs, never needs it)."""
    return getattr(sys.modules.get("numcodecs.abc"), "Codec", None)


def foreign_codec_json(value: Any) -> Any:
    """``value`` as JSON zarrforge's formats read when it is a codec object of numcodecs
    or zarr-python 3; anything else unchanged (see the module docstring). Neither library
    is imported here (numcodecs is no dependency of the core): an object of theirs can
    only exist where they were imported already."""
    zarr_codec = _zarr_python_codec_class()
    if zarr_codec is not None and isinstance(value, zarr_codec):
        return _zarr_python_codec_json(value, zarr_codec)
    numcodecs_codec = _numcodecs_codec_class()
    if numcodecs_codec is not None and isinstance(value, numcodecs_codec):
        return dict(value.get_config())  # numcodecs' Codec API (numcodecs has no types)
    return value


def _zarr_python_codec_json(value: Any, zarr_codec: type) -> dict[str, Any]:
    document = json_ready(value.to_dict())
    configuration = document.get("configuration")
    if not isinstance(configuration, dict):
        return document
    # zarr-python 3.0 keeps an unset setting as None; 3.1 and later put a placeholder
    # there and name the setting in _tunable_attrs
    unset = {name for name in configuration if getattr(value, name, ...) is None}
    unset |= set(getattr(value, "_tunable_attrs", ()) or ())
    kept = {}
    for name, setting in configuration.items():
        if name in unset:
            continue
        held = getattr(value, name, None)  # codecs inside (sharding's): each by these rules
        if isinstance(held, (list, tuple)) and held and all(isinstance(c, zarr_codec) for c in held):
            setting = [_zarr_python_codec_json(c, zarr_codec) for c in held]
        kept[name] = setting
    return {**document, "configuration": kept}


def _codecs(value: Any) -> tuple[Any, ...]:
    return tuple(foreign_codec_json(item) for item in _as_tuple(value))


def normalised(spec: ArrayCreationSpec, fmt: Format) -> ArrayCreationSpec:
    """``spec`` with its codec arguments in the form formats receive (module docstring)."""
    if spec.codecs is not None:
        given = [
            name for name in _PARTS if not (getattr(spec, name) is None or _is_auto(getattr(spec, name)))
        ]
        if given:
            raise ValueError(
                f"pass either codecs= (the complete list) or filters=/serializer=/"
                f"compressors=, not both (got codecs= and {'= and '.join(given)}=)"
            )
        return replaced(spec, codecs=_codecs(spec.codecs), filters=(), serializer=None, compressors=())
    compressors = tuple(fmt.default_compressors(spec)) if _is_auto(spec.compressors) else spec.compressors
    return replaced(
        spec,
        filters=() if _is_auto(spec.filters) else _codecs(spec.filters),
        serializer=None if _is_auto(spec.serializer) else foreign_codec_json(spec.serializer),
        compressors=_codecs(compressors),
    )


def warn_uncompressed(format_name: str, codec: str) -> None:
    """For a format's ``default_compressors``: its default compressor ``codec`` is not
    installed, so ``compressors="auto"`` gives none. Warns with
    :class:`~zarrforge.errors.UncompressedWarning`, naming the package that provides it.
    It raises nothing (unless a warnings filter turns the warning into an error).

    Parameters
    ----------
    format_name : str
        The format, as the warning names it (``"v3"``).
    codec : str
        The name of the default compressor that is not installed.

    Warns
    -----
    zarrforge.errors.UncompressedWarning
        Always: the chunks will be stored uncompressed.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_uncompressed("v3", "zstd")
    >>> caught[0].category.__name__
    'UncompressedWarning'
    >>> str(caught[0].message)
    "compressors='auto' for a Zarr v3 array means 'zstd', which no installed plugin provides, ..."
    """
    provider = registry.codecs.provider_hint(codec) or "a plugin that provides it"
    warnings.warn(
        f"compressors='auto' for a Zarr {format_name} array means {codec!r}, which no "
        f"installed plugin provides, so the chunks are stored uncompressed. Install "
        f"{provider} (pip install 'zarrforge[standard]' installs the standard plugins), or "
        "pass compressors=None to choose uncompressed chunks without this warning",
        UncompressedWarning,
        stacklevel=2,
    )


def json_ready(value: Any) -> Any:
    """``value`` (a foreign codec's configuration: numcodecs' ``get_config()``,
    zarr-python's ``to_dict()``) as plain JSON values, copied: mappings as dicts with
    string keys, tuples as lists, numpy arrays and scalars as lists and numbers. It
    raises nothing: a value it does not convert is returned as it is.

    Parameters
    ----------
    value : Any
        The configuration (or a value inside it).

    Returns
    -------
    Any
        The plain JSON copy.

    Examples
    --------
    >>> json_ready({"shape": (2, 3), "scale": np.float32(0.5), 1: np.arange(3)})
    {'shape': [2, 3], 'scale': 0.5, '1': [0, 1, 2]}
    """
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if hasattr(value, "tolist"):  # numpy arrays and scalars in numcodecs configurations
        return json_ready(value.tolist())
    return value


def numcodecs_configuration(codec_json: dict[str, Any]) -> dict[str, Any] | None:
    """The complete numcodecs configuration (``{"id": ..., every setting}``) of a
    ``numcodecs.<id>`` codec's JSON, defaults filled in by numcodecs, which is what
    zarr-python writes into Zarr v2 documents and the 2022 draft's; ``None`` for any
    other codec. A configuration numcodecs cannot build, or any without numcodecs
    installed (then no ``numcodecs.<id>`` codec is either), is returned as stated: it
    raises nothing, whatever numcodecs raises being caught.

    Parameters
    ----------
    codec_json : dict[str, Any]
        A codec's v3 JSON (``{"name": ..., "configuration": ...}``).

    Returns
    -------
    dict[str, Any] or None
        The numcodecs configuration, or ``None`` for a codec not named ``numcodecs.<id>``.

    Examples
    --------
    >>> numcodecs_configuration({"name": "numcodecs.zlib", "configuration": {"level": 1}})
    {'id': 'zlib', 'level': 1}
    >>> numcodecs_configuration({"name": "bytes"}) is None
    True
    """
    name = codec_json.get("name")
    if not isinstance(name, str) or not name.startswith("numcodecs.") or name == "numcodecs.":
        return None
    stated = {"id": name[len("numcodecs.") :], **(codec_json.get("configuration") or {})}
    try:
        numcodecs = importlib.import_module("numcodecs")
    except ImportError:
        return stated
    try:
        return json_ready(dict(numcodecs.get_codec(dict(stated)).get_config()))
    except Exception:  # noqa: BLE001  # numcodecs raises anything for a bad configuration
        return stated
