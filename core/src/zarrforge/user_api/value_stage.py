"""The extensions' value stage: what a user reads and writes, from what is stored.

An extension may override ``encode_values`` / ``decode_values``
(:class:`~zarrforge.abc.extension.Extension`). Every element an :class:`~zarrforge.Array`
writes goes through :func:`stored_values` before the engine stores it, every element it
reads through :func:`read_values` after the engine read it: the basic, orthogonal,
coordinate, mask and block selections, ``append``, ``get_chunk`` and the gathered reads of
the asyncio API all pass here (``Array._read``, ``_write``, ``_read_gathered``,
``get_chunk``), so the engine and the codecs see stored values only. The document's
``fill_value`` is one: an element never written reads as its decoded value, and a chunk
is "all fill" when its stored values are.

Entries decode in document order and encode in reverse. Each must return a numpy array
of the dtype and shape it was given (a numpy scalar for a single element, as numpy's
arithmetic on a 0-d array gives, is taken as one); anything else, or an exception that is not a
zarrforge error, is the plugin's bug, reported as a
:class:`~zarrforge.errors.PluginFailureError` naming the extension.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..abc.extension import Extension, has_value_stage
from ..registries import plugin_failures
from ..registries.registry import extensions as extension_registry


def value_stages(metadata: Any) -> tuple[Extension, ...]:
    """The entries of ``metadata`` (an array's model) that change values, in document order."""
    entries = metadata.extensions
    if not entries:
        return ()
    return tuple(e for e in entries if has_value_stage(e))


def read_values(array: Any, stages: tuple[Extension, ...], values: np.ndarray) -> np.ndarray:
    """The values a reader of ``array`` gets for the stored ``values``."""
    for extension in stages:
        values = _staged(extension, extension.decode_values, "decode_values", array, values)
    return values


def stored_values(array: Any, stages: tuple[Extension, ...], values: np.ndarray) -> np.ndarray:
    """The values to store for what a user writes to ``array``."""
    for extension in reversed(stages):
        values = _staged(extension, extension.encode_values, "encode_values", array, values)
    return values


def _staged(
    extension: Extension, method: Callable[[Any, Any], Any], stage: str, array: Any, values: np.ndarray
) -> np.ndarray:
    doing = f"{stage} of a {'write to' if stage == 'encode_values' else 'read of'} {array.name!r}"
    try:
        result = method(array, values)
    except Exception as exc:
        if not plugin_failures.unexpected(exc):
            raise
        raise _failure(extension, exc, doing) from exc
    if isinstance(result, np.generic):  # numpy's arithmetic on a 0-d array (one element)
        result = np.asarray(result)
    if not isinstance(result, np.ndarray) or result.shape != values.shape or result.dtype != values.dtype:
        got = (
            f"an array of dtype {result.dtype} and shape {result.shape}"
            if isinstance(result, np.ndarray)
            else type(result).__name__
        )
        wrong = TypeError(
            f"{stage} returned {got}; it must return an array of dtype {values.dtype} and shape {values.shape}"
        )
        raise _failure(extension, wrong, doing)
    return result


def _failure(extension: Extension, exc: BaseException, doing: str) -> Exception:
    return plugin_failures.failure(
        "extension", extension.name, extension_registry.origin(extension.name), exc, doing
    )
