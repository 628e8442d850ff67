"""This package's zarrforge codecs as zarr-python 3 codecs, for its ``zarr.codecs`` entry
points (``pyproject.toml``): zarr-python loads this module only when a document names one
of them, and then reads and writes it with no call (no
``zarrforge_zarr_python.register_with_zarr()``).

Contract: each attribute is :func:`zarrforge_zarr_python.zarr_codec_class` of one codec
this distribution provides to zarrforge, the class such an entry point must name. It needs
``zarrforge-zarr-python`` (the ``zarr`` extra of this distribution).
"""

from __future__ import annotations

from zarrforge_zarr_python import zarr_codec_class

#: ``zf_example.bitround`` in zarr-python (``Zarrforge_zf_example_bitround``)
BitRound: type = zarr_codec_class("zf_example.bitround")
