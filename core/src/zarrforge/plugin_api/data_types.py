"""The surface of a data type plugin (the ``data_types`` extension point).

Contract: :mod:`zarrforge.abc.data_type` (its docstring is the contract): a data type
maps its JSON name and configuration to a numpy dtype and its fill values to JSON and
back; a :class:`VariableLengthDataType` (strings, bytes) also encodes its chunks.

Tools: :func:`data_type_from_json` (a data type nested in another's configuration, or
the one a codec's chunk spec names), the codec tools a variable-length type's chunk
encoding builds on (:class:`ChunkSpec`, :class:`CodecChain`, :func:`codecs_from_json`,
:func:`evolve_codecs`), :data:`registry` and :data:`config`.
"""

from __future__ import annotations

from .. import config
from ..abc.codec import ChunkSpec
from ..abc.data_type import DataType, VariableLengthDataType
from ..engine.codec_chain import CodecChain, evolve_codecs
from ..registries.registry_facade import FACADE as registry
from ..registries.resolution import codecs_from_json, data_type_from_json

__all__ = [
    "ChunkSpec",
    "CodecChain",
    "DataType",
    "VariableLengthDataType",
    "codecs_from_json",
    "config",
    "data_type_from_json",
    "evolve_codecs",
    "registry",
]
