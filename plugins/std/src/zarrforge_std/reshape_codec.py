"""The ``reshape`` codec of the zarr-extensions registry (``array -> array``).

Contract:

* configuration: ``{"shape": [...]}`` (required), one entry per dimension of
  the encoded array, each either

  - a positive integer: that dimension's size,
  - a list of input dimension indices: the product of those input sizes
    (``[]`` gives 1),
  - ``-1`` (at most once): whatever size makes the element counts equal.

  The input dimension indices, flattened over all lists, must be strictly
  increasing (a reshape never transposes). These checks need no array and run
  in ``from_json``.
* against a chunk (``validate`` / ``resolve``): every index must name an input
  dimension; the element counts must match; and for an entry ``i`` given as
  ``input_dims`` ``[d0, ..., dk]`` the dimensions before ``i`` must hold as
  many elements as the input dimensions before ``d0``, and those after ``i``
  as many as the input dimensions after ``dk`` (so the coordinates really line
  up). Failures raise :class:`~zarrforge.errors.MetadataError` on
  ``configuration.shape``.
* encoding is ``numpy.reshape`` in C order (a view when the chunk is
  contiguous); decoding reshapes back to the decoded spec's shape. Data type,
  fill value and layout pass through unchanged.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from zarrforge.abc.codec import ArrayArrayCodec, ChunkSpec
from zarrforge.errors import MetadataError

from ._config import check_keys, is_int

Entry = int | tuple[int, ...]
FIELD = "configuration.shape"


def _error(message: str, shape: list[Any]) -> MetadataError:
    return MetadataError(f"codec 'reshape': {message}", field=FIELD, value=shape)


def _parse(shape: Any) -> tuple[Entry, ...]:
    if not isinstance(shape, (list, tuple)):
        raise _error(f"shape must be a list of sizes, input-dimension lists or -1, got {shape!r}", shape)
    entries: list[Entry] = []
    previous = -1
    for index, item in enumerate(shape):
        if is_int(item):
            if item < 1 and item != -1:
                raise _error(
                    f"shape[{index}] is {item}; a size must be a positive integer "
                    "(or -1 for the remaining size)",
                    list(shape),
                )
            entries.append(int(item))
        elif isinstance(item, (list, tuple)) and all(is_int(d) and d >= 0 for d in item):
            for dim in item:
                if dim <= previous:
                    raise _error(
                        f"input dimensions must be strictly increasing over the "
                        f"whole shape; shape[{index}] lists {dim} after {previous}",
                        list(shape),
                    )
                previous = dim
            entries.append(tuple(int(d) for d in item))
        else:
            raise _error(
                f"shape[{index}] is {item!r}; each entry must be a positive integer, "
                "-1, or a list of input dimension indices (integers >= 0)",
                list(shape),
            )
    if sum(1 for e in entries if e == -1) > 1:
        raise _error("-1 may occur at most once in shape", list(shape))
    return tuple(entries)


class ReshapeCodec(ArrayArrayCodec):
    name = "reshape"

    def __init__(self, shape: tuple[Entry, ...]) -> None:
        self.shape = _parse(list(shape))

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ReshapeCodec:
        config = check_keys(name, configuration, {"shape"}, {"shape"})
        return cls(_parse(config["shape"]))

    def to_json(self) -> dict[str, Any]:
        shape = [list(e) if isinstance(e, tuple) else e for e in self.shape]
        return {"name": self.name, "configuration": {"shape": shape}}

    def _document(self) -> list[Any]:
        shape: list[Any] = self.to_json()["configuration"]["shape"]
        return shape

    def encoded_shape(self, decoded: tuple[int, ...]) -> tuple[int, ...]:
        """The encoded shape for a decoded chunk shape; raises ``MetadataError``."""
        sizes: list[int | None] = []
        for index, entry in enumerate(self.shape):
            if isinstance(entry, tuple):
                if entry and entry[-1] >= len(decoded):
                    raise _error(
                        f"shape[{index}] names input dimension {entry[-1]}, but the "
                        f"chunk has {len(decoded)} dimensions {list(decoded)}",
                        self._document(),
                    )
                sizes.append(math.prod(decoded[d] for d in entry))
            else:
                sizes.append(None if entry == -1 else entry)
        total = math.prod(decoded)
        known = math.prod(s for s in sizes if s is not None)
        if None in sizes:
            if known == 0 or total % known:
                raise _error(
                    f"no size for -1 makes {sizes} hold the {total} elements of a "
                    f"chunk of shape {list(decoded)}",
                    self._document(),
                )
            sizes[sizes.index(None)] = total // known
        result = tuple(int(s) for s in sizes)  # type: ignore[arg-type]
        if math.prod(result) != total:
            raise _error(
                f"the encoded shape {list(result)} holds {math.prod(result)} elements, "
                f"the chunk of shape {list(decoded)} holds {total}",
                self._document(),
            )
        for index, entry in enumerate(self.shape):
            if isinstance(entry, tuple) and entry:
                if math.prod(result[:index]) != math.prod(decoded[: entry[0]]) or math.prod(
                    result[index + 1 :]
                ) != math.prod(decoded[entry[-1] + 1 :]):
                    raise _error(
                        f"shape[{index}] = {list(entry)} does not line up with a chunk "
                        f"of shape {list(decoded)}: the dimensions around it must hold "
                        "as many elements as the input dimensions around those it "
                        "lists",
                        self._document(),
                    )
        return result

    def validate(self, spec: ChunkSpec) -> None:
        self.encoded_shape(spec.shape)

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return ChunkSpec(self.encoded_shape(spec.shape), spec.data_type, spec.fill_value, spec.layout)

    def encode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return np.reshape(chunk, self.encoded_shape(spec.shape), order="C")

    def decode(self, chunk: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        return np.reshape(chunk, spec.shape, order="C")
