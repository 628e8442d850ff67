"""The ``blosc`` codec of the Zarr v3 core spec (``bytes -> bytes``).

Contract:

* configuration keys (spec names and ranges):

  - ``cname``: one of ``lz4``, ``lz4hc``, ``blosclz``, ``zstd``, ``snappy``,
    ``zlib`` (default ``zstd``). A name the installed numcodecs blosc build
    lacks (numcodecs ships without ``snappy``) is accepted in metadata but
    encoding with it raises :class:`~zarrforge.errors.CodecError`;
  - ``clevel``: integer 0..9 (default 5);
  - ``shuffle``: ``"noshuffle"``, ``"shuffle"`` or ``"bitshuffle"``;
  - ``typesize``: positive integer, the shuffle stride in bytes; required by
    the spec unless ``shuffle`` is ``"noshuffle"``;
  - ``blocksize``: integer >= 0, 0 meaning automatic (default 0).

  A key left out takes its default; unknown keys are refused.
* the constructor takes zarr-python's keywords and defaults,
  ``BloscCodec(*, typesize=None, cname="zstd", clevel=5, shuffle=None, blocksize=0)``;
  ``cname`` and ``shuffle`` may be enum members whose values are those strings
  (``zarrforge.codecs.BloscShuffle.bitshuffle``, zarr-python's enums).
* ``evolve(spec)`` (array creation) fills a missing ``typesize`` from the
  array's item size (1 for variable-length types). When ``shuffle`` was not
  given, it becomes ``"bitshuffle"`` for 1-byte items (byte-shuffling a
  1-byte stride does nothing) and ``"shuffle"`` otherwise -- the same choice
  zarr-python makes -- and the chosen mode is what ``to_json`` records.
* ``to_json()`` writes all five keys in zarr-python's order, e.g.
  ``{"typesize": 8, "cname": "zstd", "clevel": 5, "shuffle": "shuffle",
  "blocksize": 0}`` (``typesize`` only once it is known).
* decoding reads everything it needs from the blosc header; before
  decompressing it checks the header against the chunk size
  (see :mod:`zarrforge_numcodecs._bounds`), so truncated or garbage input
  raises :class:`~zarrforge.errors.CorruptChunkError` without allocating the
  size a bad header claims. Bytes after the stream the header declares (z5py
  pads chunks with 16 zero bytes) are ignored, as zarr-python does; fewer
  bytes than declared is corruption. Encoding a codec whose ``typesize`` is still
  unknown uses a stride of 1 (the data stays correct, only less compressible).
* the encoded size depends on the data: ``encoded_size`` is ``None``.
"""

from __future__ import annotations

import functools
from typing import Any

from numcodecs import blosc as _blosc
from numcodecs.compat import ensure_bytes

from zarrforge.abc.codec import BytesBytesCodec, ChunkSpec, Codec
from zarrforge.errors import CodecError

from . import _bounds, _inflate, _validate
from ._configured import KeywordConfigured
from ._failures import decoding, encoding

CNAMES = ("lz4", "lz4hc", "blosclz", "zstd", "snappy", "zlib")
SHUFFLES = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}  # numcodecs' integer codes
KEYS = ("typesize", "cname", "clevel", "shuffle", "blocksize")  # zarr-python's order

DEFAULT_CNAME = "zstd"
DEFAULT_CLEVEL = 5


@functools.cache
def available_cnames() -> tuple[str, ...]:
    """The internal compressors compiled into the installed numcodecs blosc."""
    return tuple(_blosc.list_compressors())


class BloscCodec(KeywordConfigured, BytesBytesCodec):
    name = "blosc"
    _config_keys = KEYS

    def __init__(
        self,
        *,
        typesize: int | None = None,
        cname: str = DEFAULT_CNAME,
        clevel: int = DEFAULT_CLEVEL,
        shuffle: str | None = None,
        blocksize: int = 0,
    ) -> None:
        self._cname = _validate.choice(self.name, "cname", cname, CNAMES)
        self._clevel = _validate.integer(self.name, "clevel", clevel, minimum=0, maximum=9)
        # ``None``: not chosen by the user; picked from the typesize (see module docstring).
        self._requested_shuffle = (
            None if shuffle is None else _validate.choice(self.name, "shuffle", shuffle, SHUFFLES)
        )
        self._typesize = (
            None if typesize is None else _validate.integer(self.name, "typesize", typesize, minimum=1)
        )
        self._blocksize = _validate.integer(self.name, "blocksize", blocksize, minimum=0)

    # --- configuration ----------------------------------------------------------

    @property
    def cname(self) -> str:
        return self._cname

    @property
    def clevel(self) -> int:
        return self._clevel

    @property
    def shuffle(self) -> str:
        if self._requested_shuffle is not None:
            return self._requested_shuffle
        return "bitshuffle" if self._typesize == 1 else "shuffle"

    @property
    def typesize(self) -> int | None:
        return self._typesize

    @property
    def blocksize(self) -> int:
        return self._blocksize

    def _configuration(self) -> dict[str, Any]:
        config: dict[str, Any] = {}
        if self._typesize is not None:
            config["typesize"] = self._typesize
        config.update(cname=self._cname, clevel=self._clevel, shuffle=self.shuffle, blocksize=self._blocksize)
        return config

    def evolve(self, spec: ChunkSpec) -> BloscCodec:
        # Record both choices explicitly, so the stored codec never depends on
        # a default picked again later.
        typesize = self._typesize or spec.data_type.item_size or 1
        shuffle = self._requested_shuffle or ("bitshuffle" if typesize == 1 else "shuffle")
        return BloscCodec(
            cname=self._cname,
            clevel=self._clevel,
            shuffle=shuffle,
            typesize=typesize,
            blocksize=self._blocksize,
        )

    def __eq__(self, other: object) -> bool:
        # Two codecs that print alike but would pick different shuffles at
        # creation are different codecs. Another library's codec object (zarr-python's
        # BloscCodec) is compared by its JSON, as the base class compares it.
        if not isinstance(other, Codec):
            return super().__eq__(other)
        if not isinstance(other, BloscCodec) or type(other) is not type(self):
            return False
        return other.to_json() == self.to_json() and other._requested_shuffle == self._requested_shuffle

    def __hash__(self) -> int:
        return hash((repr(self.to_json()), self._requested_shuffle))

    # --- data ---------------------------------------------------------------------

    def encode(self, data: bytes | memoryview) -> bytes:
        if self._cname not in available_cnames():
            raise CodecError(
                f"codec 'blosc': cname {self._cname!r} is not compiled into the installed "
                f"numcodecs blosc library; available: {', '.join(available_cnames())}"
            )
        with encoding(self.name):
            result: bytes = ensure_bytes(
                _blosc.compress(
                    data,
                    self._cname.encode("ascii"),
                    self._clevel,
                    SHUFFLES[self.shuffle],
                    self._blocksize,
                    self._typesize or 1,
                )
            )
            return result

    def decode(self, data: bytes | memoryview) -> bytes:
        data = _bounds.byte_view(data)
        if _bounds.blosc_decoded_size(data) == 0:
            return b""  # numcodecs' blosc reports an error for empty chunks
        with decoding(self.name):
            result: bytes = ensure_bytes(_blosc.decompress(_bounds.blosc_stream(data)))
            return result

    def decode_sized(self, data: bytes | memoryview, expected_size: int) -> bytes:
        data = _bounds.byte_view(data)
        _inflate.check_declared(self.name, _bounds.blosc_decoded_size(data), expected_size)
        return self.decode(data)
