"""A chunk's description in both engines: zarrforge's ``ChunkSpec``, zarr-python's ``ArraySpec``.

Contract: :func:`to_zarr` and :func:`from_zarr` convert one into the other. Both
describe a chunk by shape, data type, fill value and memory order. The data type and
the fill value cross through their Zarr v3 JSON, the spelling both engines read, so
every data type both know crosses; one the other engine lacks is a
:class:`~zarrforge.errors.MetadataError` naming it (field ``data_type``). zarr-python
knows the orders ``C`` and ``F`` only: a zarrforge layout other than ``F`` goes as ``C``.
:func:`regular_grid` is zarr-python's regular grid in the class of the installed
version (3.0 and 3.1 name it otherwise than 3.2 on).
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from zarr.core.array_spec import ArrayConfig, ArraySpec
from zarr.core.buffer import default_buffer_prototype
from zarr.core.dtype import get_data_type_from_json

try:  # zarr-python >= 3.2 describes the grid a codec validates against by its metadata
    # which of the two the installed zarr-python lacks decides which ignore is used
    from zarr.core.metadata.v3 import RegularChunkGridMetadata as _RegularGrid  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # zarr-python 3.0, 3.1
    from zarr.core.chunk_grids import RegularChunkGrid as _RegularGrid  # type: ignore[no-redef,unused-ignore]

from zarrforge.abc.codec import ChunkSpec
from zarrforge.abc.data_type import DataType
from zarrforge.errors import MetadataError
from zarrforge.plugin_api.codecs import data_type_from_json, memory_layout


@functools.lru_cache(maxsize=256)
def _zarr_data_type(data_type: DataType) -> Any:
    document = data_type.to_json()
    try:
        return get_data_type_from_json(document, zarr_format=3)
    except (ValueError, TypeError, KeyError) as exc:
        raise MetadataError(
            f"zarr-python has no data type {document!r} ({exc}); a zarr-python "
            "codec cannot be given chunks of it",
            field="data_type",
            value=document,
        ) from exc


def to_zarr(spec: ChunkSpec, like: ArraySpec | None = None) -> ArraySpec:
    """``spec`` for zarr-python; ``like`` lends its array configuration and buffer prototype."""
    zdtype = _zarr_data_type(spec.data_type)
    fill = zdtype.from_json_scalar(spec.data_type.fill_value_to_json(spec.fill_value), zarr_format=3)
    if like is None:
        order: Literal["C", "F"] = "F" if spec.layout.name == "F" else "C"
        config, prototype = ArrayConfig.from_dict({"order": order}), default_buffer_prototype()
    else:
        config, prototype = like.config, like.prototype
    return ArraySpec(
        shape=tuple(spec.shape), dtype=zdtype, fill_value=fill, config=config, prototype=prototype
    )


def regular_grid(chunk_shape: tuple[int, ...]) -> Any:
    """zarr-python's regular chunk grid of ``chunk_shape`` (what its codecs' ``validate``
    is given)."""
    return _RegularGrid(chunk_shape=tuple(chunk_shape))


def bytes_spec(size: int) -> ArraySpec:
    """What a zarr-python ``bytes -> bytes`` codec is told about ``size`` bytes: one ``uint8``
    item per byte (zarrforge's bytes codecs are given no array description)."""
    return ArraySpec(
        shape=(size,),
        dtype=get_data_type_from_json("uint8", zarr_format=3),
        fill_value=0,
        config=ArrayConfig.from_dict({}),
        prototype=default_buffer_prototype(),
    )


def data_type_of(zdtype: Any) -> DataType:
    """zarrforge's data type for zarr-python's ``ZDType``."""
    return data_type_from_json(zdtype.to_json(zarr_format=3))


def from_zarr(spec: ArraySpec) -> ChunkSpec:
    data_type = data_type_of(spec.dtype)
    fill = data_type.fill_value_from_json(spec.dtype.to_json_scalar(spec.fill_value, zarr_format=3))
    return ChunkSpec(
        shape=tuple(spec.shape), data_type=data_type, fill_value=fill, layout=memory_layout(spec.order)
    )
