"""zarr-python's dotted configuration keys, read and written as zarrforge settings.

zarr-python users write ``zarr.config.set({"array.order": "F"})`` and
``zarr.config.get("default_zarr_format")``; :mod:`zarrforge.config` takes the same keys.
Each key here is one of three kinds:

* **translated** (:data:`TRANSLATED`): the key names a zarrforge setting; setting it
  changes that setting (``"array.order"`` is ``order``) and getting it reads it back in
  zarr-python's terms (``default_zarr_format`` as an int where the format is a number);
* **recorded** (:data:`RECORDED`): zarr-python options that choose among zarr-python's own
  implementations (its codec pipeline, buffer classes, JSON indentation, event-loop
  timeout...). zarrforge has no counterpart, so a value set is kept and read back, and
  changes nothing; docs/coming-from-zarr-python.md lists them;
* **refused** (:data:`REFUSED_VALUES`): a value whose meaning zarrforge does not provide and
  whose silent omission would be unsafe (``array.read_missing_chunks=False`` asks for an
  error on a missing chunk): setting it raises :class:`NotImplementedError` naming it.

Any other key is refused with a :class:`KeyError` naming the closest known keys.
This module imports nothing of zarrforge: :mod:`zarrforge.config` (a leaf) uses it.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from typing import Any

UNSAFE_PICKLE = "numcodecs.pickle"


@dataclasses.dataclass(frozen=True)
class Translation:
    """How one zarr-python key reads and writes a zarrforge setting."""

    setting: str
    to_setting: Callable[[Any, Any], Any]  # (value, settings in force) -> the setting's value
    from_setting: Callable[[Any], Any]  # settings in force -> zarr-python's value


def _format_to_setting(value: Any, _settings: Any) -> Any:
    return value


def _format_from_setting(settings: Any) -> Any:
    name = settings.default_format
    return int(name) if name.isdigit() else name


def _threads_to_setting(value: Any, _settings: Any) -> Any:
    if value is None:
        from os import cpu_count

        return max(1, cpu_count() or 1)
    return value


def _pickle_to_setting(value: Any, settings: Any) -> Any:
    if not isinstance(value, bool):
        raise ValueError(f"config 'array.allow_unsafe_pickle_decode' must be True or False, got {value!r}")
    allowed = set(settings.allow_unsafe_codecs)
    if value:
        allowed.add(UNSAFE_PICKLE)
    else:
        allowed.discard(UNSAFE_PICKLE)
    return frozenset(allowed)


def _shard_to_setting(value: Any, _settings: Any) -> Any:
    return 64 << 20 if value is None else value


def _same(value: Any, _settings: Any) -> Any:
    return value


def _read(setting: str) -> Callable[[Any], Any]:
    return lambda settings: getattr(settings, setting)


#: zarr-python keys that name a zarrforge setting, with how each reads and writes it
TRANSLATED: dict[str, Translation] = {
    "array.order": Translation("order", _same, _read("order")),
    "array.write_empty_chunks": Translation("write_empty_chunks", _same, _read("write_empty_chunks")),
    "array.target_shard_size_bytes": Translation(
        "auto_shard_bytes", _shard_to_setting, _read("auto_shard_bytes")
    ),
    "array.allow_unsafe_pickle_decode": Translation(
        "allow_unsafe_codecs",
        _pickle_to_setting,
        lambda settings: UNSAFE_PICKLE in settings.allow_unsafe_codecs,
    ),
    "default_zarr_format": Translation("default_format", _format_to_setting, _format_from_setting),
    # zarrforge has one bound on work in flight for a call: its worker threads
    "threading.max_workers": Translation("threads", _threads_to_setting, _read("threads")),
    "async.concurrency": Translation("threads", _threads_to_setting, _read("threads")),
}

#: zarr-python's defaults for the keys that choose among its own implementations
RECORDED: dict[str, Any] = {
    "array.read_missing_chunks": True,
    "array.rectilinear_chunks": False,
    "array.sharding_coalesce_max_gap_bytes": 1 << 20,
    "array.sharding_coalesce_max_bytes": 16 << 20,
    "async.timeout": None,
    "json_indent": 2,
    "codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline",
    "codec_pipeline.batch_size": 1,
    "codec_pipeline.max_workers": None,
    "buffer": "zarr.buffer.cpu.Buffer",
    "ndbuffer": "zarr.buffer.cpu.NDBuffer",
}
# zarr-python's "codecs.<name>" keys name the class implementing a codec; any name is taken
RECORDED_PREFIXES = ("codecs.",)

#: values refused, by key, with why zarrforge cannot honour each
REFUSED_VALUES: dict[str, tuple[Any, str]] = {
    "array.read_missing_chunks": (
        False,
        "zarrforge reads a missing chunk as the fill value, as the Zarr specification "
        "says; it has no mode that fails on one",
    ),
}


def is_recorded(key: str) -> bool:
    return key in RECORDED or key.startswith(RECORDED_PREFIXES)


def check_recorded(key: str, value: Any) -> None:
    refused = REFUSED_VALUES.get(key)
    if refused is not None and value == refused[0]:
        raise NotImplementedError(f"config {key!r}={value!r} is not supported: {refused[1]}")


def unknown_key(key: str, settings_names: list[str]) -> KeyError:
    """The error for a key neither zarrforge nor zarr-python defines, naming the closest."""
    known = sorted([*settings_names, *TRANSLATED, *RECORDED])
    close = difflib.get_close_matches(key, known, n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    return KeyError(
        f"unknown config option {key!r}{hint} (zarrforge's settings: "
        f"{', '.join(settings_names)}; zarr-python's keys: "
        f"{', '.join(sorted([*TRANSLATED, *RECORDED]))}, codecs.<name>)"
    )
