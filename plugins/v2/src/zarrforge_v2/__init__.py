"""Zarr v2 for zarrforge: the format registered as ``"2"``.

Use it through the ordinary API::

    import zarrforge as zf
    a = zf.create_array("data.zarr", "x", shape=(100,), dtype="<f8", chunks=(10,),
                        zarr_format=2, compressors={"id": "zlib", "level": 1})
    zf.open_array("data.zarr", "x")  # v2 nodes are detected

See the package README for how v2 documents map to the zarrforge model.
"""

from .format import V2Format

__all__ = ["V2Format"]
