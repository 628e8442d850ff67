"""What is written to a selection: its shape checked against the selection's, and a
scalar or broadcastable value expanded to it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from zarrforge.errors import SelectionError


def _value_core_shape(value_shape: tuple[int, ...], out_shape: tuple[int, ...]) -> tuple[int, ...]:
    vs = value_shape
    while len(vs) > len(out_shape) and vs[0] == 1:
        vs = vs[1:]
    if len(vs) > len(out_shape) or any(v != 1 and v != o for v, o in zip(reversed(vs), reversed(out_shape))):
        raise SelectionError(
            f"cannot assign a value of shape {value_shape} to a selection of shape {out_shape}"
        )
    return vs


def check_value_shape(value_shape: Sequence[int], out_shape: Sequence[int]) -> None:
    """Raise SelectionError unless numpy could assign ``value_shape`` into ``out_shape``."""
    _value_core_shape(tuple(value_shape), tuple(out_shape))


def broadcast_value(value: Any, out_shape: Sequence[int], dtype: Any = None) -> np.ndarray:
    """``value`` as a read-only array view of exactly ``out_shape``."""
    arr = np.asarray(value, dtype=dtype)
    out_shape = tuple(out_shape)
    core = _value_core_shape(arr.shape, out_shape)
    return np.broadcast_to(arr.reshape(core), out_shape)
