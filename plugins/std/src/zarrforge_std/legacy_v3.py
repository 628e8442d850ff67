"""Legacy spellings in Zarr v3 array documents, rewritten to the spec's before parsing.

Older writers (zarrita, early zarr-python 3, tools built on them) left
spellings the final spec does not have, and zarr-python 3 or tensorstore still
read them. The parsers of the registered extensions accept only the spec's
spelling, and several legacy forms need the array's rank or data type to be
understood, which a codec's ``from_json`` does not see; so the v3 format
rewrites them here, where the whole document is known. The model never holds
a legacy form, so a document read with one is written back in the spec's
spelling.

Contract: :func:`normalized(document, ndim=..., has_endianness=...)` returns
``document`` unchanged when it has no legacy spelling, else a new document
(the input is never modified) with:

* ``chunk_key_encoding`` ``{"name": N, "separator": S}`` (the flat form
  zarr-python 3 accepts) -> ``{"name": N, "configuration": {"separator": S}}``;
* a ``transpose`` codec with ``order`` ``"C"`` or ``"F"`` (tensorstore reads
  them) -> the identity or the reversed permutation of the chunk's rank;
* a ``bytes`` codec without ``endian`` for a data type with endianness
  (zarr-python 3 reads it in the machine's byte order, little-endian on every
  platform it supports) -> ``"endian": "little"``. The data type is the one
  that reaches the ``bytes`` codec: after a ``cast_value`` codec it is that
  codec's ``data_type`` (``endianness_of`` tells whether a data type document
  has endianness; without it the array's type is used throughout), so
  ``float64`` cast to ``uint8`` keeps ``{"name": "bytes"}``, as zarr-python 3.4
  writes it.

Codecs nested in a ``sharding_indexed`` configuration are rewritten the same
way (``codecs`` at the array's rank, ``index_codecs`` at rank + 1 with the
index's ``uint64``). Anything that is neither the spec's spelling nor one of
these is left alone for the parsers to refuse with their own messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

LEGACY_ORDERS = ("C", "F")


def key_encoding(value: Any) -> Any:
    """A ``chunk_key_encoding`` in the flat form rewritten to the spec's; any other
    value unchanged (the same object)."""
    if (
        isinstance(value, dict)
        and "separator" in value
        and "configuration" not in value
        and isinstance(value.get("name"), str)
    ):
        rest = {k: v for k, v in value.items() if k not in ("name", "separator")}
        return {"name": value["name"], "configuration": {"separator": value["separator"]}, **rest}
    return value


def _codec(value: Any, ndim: int, has_endianness: bool) -> Any:
    if value == "bytes" and has_endianness:  # the short-hand name: no configuration at all
        return {"name": "bytes", "configuration": {"endian": "little"}}
    if not isinstance(value, dict):
        return value
    name = value.get("name")
    config = value.get("configuration")
    if name == "bytes" and has_endianness and not (isinstance(config, dict) and "endian" in config):
        if config is None or isinstance(config, dict):
            return {**value, "configuration": {**(config or {}), "endian": "little"}}
        return value
    if not isinstance(config, dict):
        return value
    if name == "transpose" and config.get("order") in LEGACY_ORDERS:
        identity = list(range(ndim))
        order = identity if config["order"] == "C" else identity[::-1]
        return {**value, "configuration": {**config, "order": order}}
    if name == "sharding_indexed":
        new = dict(config)
        if isinstance(config.get("codecs"), list):
            new["codecs"] = codecs(config["codecs"], ndim, has_endianness)
        if isinstance(config.get("index_codecs"), list):
            new["index_codecs"] = codecs(config["index_codecs"], ndim + 1, True)
        if new != config:
            return {**value, "configuration": new}
    return value


def _cast_target(value: Any) -> Any:
    """The ``data_type`` document of a ``cast_value`` codec, else None."""
    if isinstance(value, dict) and value.get("name") == "cast_value":
        config = value.get("configuration")
        if isinstance(config, dict):
            return config.get("data_type")
    return None


def codecs(
    value: list[Any], ndim: int, has_endianness: bool, endianness_of: Callable[[Any], bool] | None = None
) -> list[Any]:
    """A ``codecs`` list with every legacy codec spelling rewritten."""
    out = []
    for entry in value:
        out.append(_codec(entry, ndim, has_endianness))
        target = _cast_target(entry)
        if target is not None and endianness_of is not None:
            try:
                has_endianness = endianness_of(target)
            except Exception:  # noqa: BLE001  # an invalid data_type: the codec's parser reports it
                pass
    return out


def normalized(
    document: dict[str, Any],
    *,
    ndim: int,
    has_endianness: bool,
    endianness_of: Callable[[Any], bool] | None = None,
) -> dict[str, Any]:
    """``document`` with the legacy spellings listed in the module docstring rewritten."""
    changes: dict[str, Any] = {}
    encoding = key_encoding(document.get("chunk_key_encoding"))
    if encoding is not document.get("chunk_key_encoding"):
        changes["chunk_key_encoding"] = encoding
    if isinstance(document.get("codecs"), list):
        rewritten = codecs(document["codecs"], ndim, has_endianness, endianness_of)
        if rewritten != document["codecs"]:
            changes["codecs"] = rewritten
    return {**document, **changes} if changes else document
