"""Decoding numcodecs' ``json2`` chunks without trusting what they declare.

numcodecs' ``JSON.decode`` parses the chunk (plain JSON: it never imports or
runs anything) and then allocates ``np.empty(shape, dtype)`` with the shape
and dtype *stored in the chunk*: a chunk declaring a huge shape, or a
sub-array dtype, allocates without bound. This module parses the same layout
itself and accepts a chunk only if it declares exactly the chunk's shape and
numpy's object dtype (``"|O"``, what zarr-python 2 stores for object arrays),
so nothing is allocated beyond the objects the JSON text already holds.

Layout (numcodecs 0.x ``json2``): a JSON list
``[*nested_items, dtype_str, shape]`` where ``nested_items`` is
``np.atleast_1d(array).tolist()`` -- lists nested ``ndim`` deep (one item for
a 0-d array).

Contract: :func:`decode(data, shape, encoding=..., strict=...)` returns an
object array of ``shape`` or raises
:class:`~zarrforge.errors.CorruptChunkError` naming what is wrong.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from zarrforge.errors import CorruptChunkError

OBJECT_DTYPE = "|O"


def _corrupt(message: str) -> CorruptChunkError:
    return CorruptChunkError(f"codec 'numcodecs.json2': {message}")


def _fill(out: np.ndarray, items: Any, shape: Sequence[int], prefix: tuple[int, ...]) -> None:
    if len(prefix) == len(shape):
        out[prefix] = items
        return
    if not isinstance(items, list) or len(items) != shape[len(prefix)]:
        raise _corrupt(
            f"the items at {list(prefix)} do not have the length "
            f"{shape[len(prefix)]} the chunk shape {list(shape)} requires"
        )
    for i, item in enumerate(items):
        _fill(out, item, shape, (*prefix, i))


def decode(
    data: bytes | memoryview, shape: Sequence[int], *, encoding: str = "utf-8", strict: bool = True
) -> np.ndarray:
    shape = tuple(shape)
    try:
        document = json.loads(bytes(data).decode(encoding), strict=strict)
    except (UnicodeDecodeError, LookupError, ValueError, RecursionError) as exc:
        raise _corrupt(f"not a JSON document: {exc}") from None
    if not isinstance(document, list) or len(document) < 3:
        raise _corrupt("expected a JSON list [items..., dtype, shape]")
    *items, dtype, stored_shape = document
    if dtype != OBJECT_DTYPE:
        raise _corrupt(f"declares dtype {dtype!r}; object arrays store {OBJECT_DTYPE!r}")
    if stored_shape != list(shape):
        raise _corrupt(f"declares shape {stored_shape!r}; the chunk's shape is {list(shape)}")
    out = np.empty(shape, dtype=object)
    if not shape:
        if len(items) != 1:
            raise _corrupt(f"a 0-d chunk holds one item, got {len(items)}")
        out[()] = items[0]
        return out
    if math.prod(shape) == 0:
        return out
    _fill(out, items, shape, ())
    return out
