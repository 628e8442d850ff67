"""zarr-python's array config: the ``config=`` argument and ``Array.config``.

zarr-python gives an array runtime settings as ``config={"order": ..., "write_empty_chunks":
..., "read_missing_chunks": ...}`` (a mapping, or its own ``ArrayConfig``); zarrforge's
functions take ``order=`` and ``write_empty_chunks=`` as keywords. :func:`config_options`
turns the first into the second, for ``create_array``, ``open_array``, ``open``, ``create``
and a group's ``create_array``/``require_array``: a key given in both places is refused, an
unknown key is a ``TypeError`` naming it, a value of the wrong type a ``ValueError``.
``read_missing_chunks=True`` is what zarrforge always does (a missing chunk reads as the
fill value, as the specification says); ``False`` asks for an error zarrforge does not
raise, and is refused rather than ignored.

:class:`ArrayConfig` is what ``Array.config`` returns: the settings in force for the
handle, with zarr-python's field names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

CONFIG_KEYS = ("order", "write_empty_chunks", "read_missing_chunks")
# zarr-python's settings of its own shard reads (zarr-python 3.4's ArrayConfig carries them):
# accepted and without effect, as the global keys ``array.sharding_coalesce_*`` are
# (docs/coming-from-zarr-python.md); zarrforge's sharding merges reads by its own rules
IGNORED_KEYS = ("sharding_coalesce_max_gap_bytes", "sharding_coalesce_max_bytes")


@dataclasses.dataclass(frozen=True, eq=False)
class ArrayConfig:
    """An array handle's runtime settings, as zarr-python names them.

    Equal to another settings object holding these fields with the same values,
    zarr-python's ``ArrayConfig`` included (its dataclass equality defers to this one);
    fields only the other has (zarr-python's ``sharding_coalesce_*``, which tune its own
    shard reads) are not compared."""

    order: str
    write_empty_chunks: bool
    read_missing_chunks: bool = True

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, field.name) for field in dataclasses.fields(self))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ArrayConfig):
            return self._values() == other._values()
        if dataclasses.is_dataclass(other) and not isinstance(other, type):
            names = [field.name for field in dataclasses.fields(self)]
            if set(names) <= {field.name for field in dataclasses.fields(other)}:
                return self._values() == tuple(getattr(other, name) for name in names)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())


def config_options(function: str, config: Any, keywords: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``config`` (``None``, a mapping or an ``ArrayConfig`` of zarrforge or zarr-python) as
    array options; ``keywords`` are the options the call gave as keywords."""
    if config is None:
        return {}
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        config = {field.name: getattr(config, field.name) for field in dataclasses.fields(config)}
    if not isinstance(config, Mapping):
        raise TypeError(
            f"{function}(): config must be a mapping of {list(CONFIG_KEYS)} or an "
            f"ArrayConfig, got {type(config).__name__} {config!r}"
        )
    config = {key: value for key, value in config.items() if key not in IGNORED_KEYS}
    unknown = sorted(key for key in config if key not in CONFIG_KEYS)
    if unknown:
        raise TypeError(
            f"{function}(): Unknown array config keys: {unknown}; config takes {list(CONFIG_KEYS)}"
        )
    options: dict[str, Any] = {}
    for key, value in config.items():
        if key in ("write_empty_chunks", "read_missing_chunks") and not isinstance(value, bool):
            raise ValueError(
                f"{function}(): config {key!r}={value!r}: Expected instance of bool (True or False)"
            )
        if key == "order" and not isinstance(value, str):
            raise ValueError(
                f"{function}(): config 'order'={value!r}: give a memory layout name ('C', 'F' or a plugin's)"
            )
        if key == "read_missing_chunks":
            if not value:
                raise NotImplementedError(
                    f"{function}(): config read_missing_chunks=False is not supported: "
                    "zarrforge reads a missing chunk as the fill value, as the Zarr "
                    "specification says"
                )
            continue
        given = (keywords or {}).get(key)
        if given is not None and given != value:
            raise TypeError(
                f"{function}(): {key} given as a keyword ({given!r}) and in config ({value!r}); give one"
            )
        options[key] = value
    return options
