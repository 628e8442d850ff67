"""A recorded chunk memory layout as the first step of an array's codec chain.

A format that records a memory layout (the 2022 draft's ``chunk_memory_layout``)
puts a :class:`MemoryLayoutCodec` first in the model's codecs, so the chunk engine
needs to know nothing of layouts: encoding hands the next codec
``layout.for_codecs(chunk)``, shaped ``layout.codec_shape(chunk shape)``;
decoding gives the chunk back with ``layout.from_codecs``
(:mod:`zarrforge.abc.memory_layout`). The format writes the codec as its layout
field, never as a codec entry; it is in no codec registry, and a format that
records no layout refuses it (the final v3 format says so by name).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..abc.codec import ArrayArrayCodec, ChunkSpec
from ..abc.memory_layout import MemoryLayout
from ..errors import MetadataError
from ..registries.resolution import memory_layout


class MemoryLayoutCodec(ArrayArrayCodec):
    """A recorded memory layout as an ``array -> array`` codec (see the module docstring):
    encoding hands on the chunk in ``layout``'s order, decoding restores it. Constructing
    one from a layout raises nothing; ``encode`` and ``decode`` raise what the layout
    raises.

    Parameters
    ----------
    layout : zarrforge.abc.memory_layout.MemoryLayout
        The layout (:func:`memory_layout` gives the one registered under a name).

    Raises
    ------
    zarrforge.errors.MetadataError
        ``from_json``: the configuration's ``layout`` is not a string.
    zarrforge.errors.UnknownExtensionError
        ``from_json``: no layout is registered under that name.
    zarrforge.errors.PluginFailureError
        ``from_json``: the layout's plugin failed unexpectedly while constructing it.

    Examples
    --------
    >>> codec = MemoryLayoutCodec(memory_layout("F"))
    >>> codec.to_json()
    {'name': 'zarrforge.memory_layout', 'configuration': {'layout': 'F'}}
    >>> spec = ChunkSpec((2, 3), data_type_from_json("int16"), 0, memory_layout("C"))
    >>> chunk = np.arange(6, dtype="int16").reshape(2, 3)
    >>> encoded = codec.encode(chunk, spec)
    >>> encoded.shape == codec.resolve(spec).shape
    True
    >>> np.array_equal(codec.decode(encoded, spec), chunk)
    True
    """

    name = "zarrforge.memory_layout"

    def __init__(self, layout: MemoryLayout) -> None:
        self.layout = layout

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> MemoryLayoutCodec:
        layout = (configuration or {}).get("layout")
        if not isinstance(layout, str):
            raise MetadataError(
                f"needs the layout's registered name, got {layout!r}",
                field="configuration.layout",
                value=layout,
            )
        return cls(memory_layout(layout, field="configuration.layout"))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"layout": self.layout.name}}

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return ChunkSpec(
            tuple(self.layout.codec_shape(spec.shape)), spec.data_type, spec.fill_value, spec.layout
        )

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return self.layout.for_codecs(chunk)

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return self.layout.from_codecs(chunk, spec.shape)
