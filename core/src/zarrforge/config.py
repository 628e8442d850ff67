"""Process-wide defaults, changeable globally or for a ``with`` block.

* ``threads``: worker threads for encoding and decoding chunks (default: the
  number of CPUs). Arrays may override it.
* ``write_empty_chunks``: store chunks whose every element equals the fill
  value (default ``False``: such chunks are deleted instead, and read back as
  the fill value).
* ``order``: the memory layout name for arrays zarrforge returns (``"C"``).
* ``max_request_bytes``: the most bytes one read or write call may hold as its
  result or value, or as any one chunk it must decode or build whole
  (``None``, the default: no limit). A larger selection fails with
  :class:`~zarrforge.errors.ResourceLimitError` before anything is read or
  written; read it in parts (``Array.blocks``, ``zarrforge.to_dask``). A chunk
  over the limit fails when the call reaches it.
* ``max_chunk_bytes``: the most bytes one chunk (or inner chunk) may take decoded:
  a read or a partial write that would decode or build a larger one fails with
  :class:`~zarrforge.errors.ResourceLimitError` naming its key, before allocating
  anything (default 2 GiB, which no sane chunk reaches: metadata is untrusted,
  and a document declaring 1 TiB chunks must not make a 3-element write allocate
  1 TiB; ``None``: no limit). Raise it to read arrays with larger chunks. A whole
  chunk written from the caller's array is encoded as it is, whatever its size.
* ``max_document_bytes``: the largest metadata document (a ``zarr.json``, a v2
  ``.zattrs`` or ``.zmetadata``) read or written, in bytes (default 64 MiB; ``None``:
  no limit). Reading a larger one fails with
  :class:`~zarrforge.errors.DocumentTooLargeError` before parsing it; writing one
  fails before anything is written, since readers could not reopen it. A v3 group's
  consolidated view is part of its ``zarr.json`` and counts; v2's ``.zmetadata`` is a
  document of its own.
* ``auto_chunk_bytes``: the most bytes a chunk holds when zarrforge picks the chunk
  shape (``chunks=None`` or ``"auto"`` at creation, and the xarray writer): the rule
  of ``zarrforge.engine.chunking`` halves the longest side until a chunk fits (default
  4 MiB).
* ``auto_shard_bytes``: the most bytes a shard holds when ``shards="auto"`` groups the
  chunks into shards (``zarrforge.engine.chunking``; default 64 MiB).
* ``parallel_chunk_bytes``: how large, decoded, a chunk must be for a read or
  write to spread its chunks over several threads when its codecs compute
  (a bytes -> bytes codec, or an array -> bytes codec whose output depends on
  the data, such as sharding); plain chunks too (measured: docs/performance.md, "Scaling
  with cores"). Default 64 KiB. Below it the calling thread does all the
  work: for small chunks, handing Python's GIL between threads costs more than
  the codec and I/O work they could overlap. ``0`` always uses ``threads``. Chunks
  below it whose codecs are slow still get every thread on a low-latency store: their
  cost is measured on a call's first chunks (docs/performance.md, "How a read or a
  write runs").
* ``index_cache``: bytes of the indexes partial codecs remember (the shards read in part:
  the next partial read of a shard fetches its index and inner chunks in one batch; a
  remembered index is checked against the one fetched, so it can only save a round trip),
  in the engine's one process-wide pool (default 32 MiB; 0: none).
* ``chunk_cache``: bytes of decoded chunks kept, in one pool the process shares, for
  arrays opened without ``chunk_cache=`` (default 0: none, as TensorStore's default
  pool holds no chunk data). See docs/lazy-and-cache.md.
* ``conflict_retries``: how many more times a write redoes the read-modify-write
  of a chunk that another writer changed meanwhile, on stores with conditional
  writes (default 64; the pause between tries grows to 0.1 s). Past it the
  write fails with :class:`~zarrforge.errors.ConflictError`. A partial read of a
  shard that changes under it tries at most ``min(3, conflict_retries + 1)`` times,
  then reads the shard whole in one request.
* ``transaction_max_bytes``: the most bytes of values a transaction
  (``zarrforge.storing.transaction``) buffers before it refuses further writes with
  :class:`~zarrforge.errors.ResourceLimitError` (default 1 GiB; ``None``: no limit).
* ``prefer``: which distribution answers a name several installed distributions
  provide, as ``{"<point>:<name>": "<distribution>"}`` (``{"codecs:zstd":
  "zarrforge-numcodecs"}``; ``<point>`` as in ``zarrforge.registry``: ``codecs``,
  ``data_types``, ...). The environment variable ``ZARRFORGE_PREFER`` says the same
  for programs one cannot edit (the command line):
  ``ZARRFORGE_PREFER="codecs:zstd=zarrforge-numcodecs,data_types:x=other"``.
  ``registry.<point>.prefer(name, distribution)`` wins over both, this setting over
  the variable. A choice applies to names not loaded yet in the process.
* ``default_format``: the format new nodes get when nothing names one (no
  ``zarr_format=``, no format segment in a URL): ``"3"`` (Zarr v3) by default; any
  installed format's name (``"2"``, ``"draft-2022"``). Detection asks it first.
* ``non_finite_attributes``: what happens to NaN, Infinity and -Infinity in attribute
  values a caller sets (``attrs[...] = ...``, ``attributes=`` at creation):
  ``"tokens"`` (default) writes them as the bare JSON tokens zarr-python 3 writes
  (xarray's ``missing_value: NaN``); ``"refuse"`` refuses them with a
  :class:`~zarrforge.errors.MetadataError` naming the attribute, for stores meant for
  strict-JSON readers such as tensorstore. Values already stored are kept either way,
  so a document holding them never blocks another change.
* ``skippable_extensions``: where a new ZEP 10 extension entry marked
  ``"must_understand": false`` is written: ``"top-level"`` (default), as a top-level key of
  ``zarr.json`` named after the extension, which zarr-python 3 and tensorstore open and keep;
  or ``"list"``, in the ``extensions`` list ZEP 10 defines, which both refuse. Entries read
  from a document keep the form they were read in (docs/extensions.md, "Where entries are
  written").
* ``reference_targets``: where a storage transformer may read data its metadata refers
  to (a chunk manifest's byte ranges of other files), beyond keys of the array's own store,
  which are always allowed: a list of prefixes of URLs (``"file:///data/raw/"``,
  ``"s3://bucket/"``) or absolute paths (``"/data/raw/"``, meaning ``file://``), matched by
  whole path components, or ``"any"`` for every target (documents the user trusts): the
  syntax of the ``reference_targets`` storage option of kerchunk reference sets
  (``reference://``). Empty by default: a document naming an absolute path or a URL is
  refused, because metadata is untrusted input (docs/zep-playground.md, "Reading other
  data").
* ``allow_unsafe_codecs``: names of codecs that can execute code when they
  decode (e.g. ``numcodecs.pickle``) that the user explicitly allows. Empty by
  default: such codecs are refused, because metadata is untrusted input.

Reading and changing them:

* ``get()``: the :class:`Settings` in force; ``get(name)`` one of them, by its name here
  or by zarr-python's dotted key (``get("array.order")``; ``get("array")`` is the dict of
  the keys under ``array``); ``get(name, default)`` gives ``default`` for an unknown name.
* ``set(threads=2)`` or ``set({"array.order": "F"})`` (both forms at once too) changes
  settings at once; used as ``with set(...):`` it restores, when the block ends, the
  settings it changed (and only those).
* ``update(...)``: the same change, with no ``with`` form.
* ``reset()``: every setting back to its default; ``pprint()`` prints them.

zarr-python's keys (:mod:`zarrforge.config_keys`) are translated to the settings above
(``array.order``, ``array.write_empty_chunks``, ``default_zarr_format``,
``threading.max_workers`` and ``async.concurrency`` as ``threads``...); its keys that choose
among zarr-python's own implementations (``codec_pipeline.path``, ``json_indent``...) are
recorded and read back, with no effect (``recorded``). A name neither defines is refused
naming the closest.

Example::

    with zarrforge.config.set(allow_unsafe_codecs={"numcodecs.pickle"}):
        data = zarrforge.open_array(url)[:]

Raises
------
ValueError
    ``set``/``update``: a value the setting does not take (``threads=0``), the setting
    left unchanged.
KeyError
    ``get``, ``set``, ``update``: a name neither zarrforge nor zarr-python defines (naming
    the closest); ``get(name, default)`` gives ``default`` instead.
TypeError
    ``set``/``update``: a name that is not a string, or changes that are not a mapping.

Examples
--------
>>> with config.set(threads=2, order="F"):
...     config.get("threads"), config.get("array.order")
(2, 'F')
>>> config.get("no_such_setting", "unset")
'unset'
>>> try:
...     config.set(threads=0)
... except ValueError as error:
...     print(error)
config 'threads' must be a positive int, got 0
"""

from __future__ import annotations

import dataclasses
import os
import pprint as _pprint
import threading
from collections.abc import Mapping
from types import TracebackType
from typing import IO, Any

from . import config_keys


@dataclasses.dataclass
class Settings:
    threads: int = max(1, os.cpu_count() or 1)
    write_empty_chunks: bool = False
    order: str = "C"
    allow_unsafe_codecs: frozenset[str] = frozenset()
    max_request_bytes: int | None = None
    max_chunk_bytes: int | None = 2 << 30
    max_document_bytes: int | None = 64 << 20
    parallel_chunk_bytes: int = 64 * 1024
    chunk_cache: int = 0
    index_cache: int = 32 << 20
    auto_chunk_bytes: int = 4 << 20
    auto_shard_bytes: int = 64 << 20
    conflict_retries: int = 64
    transaction_max_bytes: int | None = 1 << 30
    prefer: dict[str, str] = dataclasses.field(default_factory=dict)
    non_finite_attributes: str = "tokens"
    default_format: str = "3"
    skippable_extensions: str = "top-level"
    reference_targets: tuple[str, ...] | str = ()
    # zarr-python's keys that choose among its own implementations: kept, no effect
    recorded: dict[str, Any] = dataclasses.field(default_factory=dict)


_settings = Settings()
_lock = threading.Lock()


def _coerce(name: str, value: Any) -> Any:
    if name == "allow_unsafe_codecs":
        if isinstance(value, str):
            value = {value}
        return frozenset(value)
    if name == "threads" and (not isinstance(value, int) or value < 1):
        raise ValueError(f"config 'threads' must be a positive int, got {value!r}")
    if (
        name in ("max_request_bytes", "max_chunk_bytes", "max_document_bytes")
        and value is not None
        and (not isinstance(value, int) or isinstance(value, bool) or value < 0)
    ):
        raise ValueError(f"config {name!r} must be None or a non-negative int, got {value!r}")
    if (
        name == "transaction_max_bytes"
        and value is not None
        and (not isinstance(value, int) or isinstance(value, bool) or value < 0)
    ):
        raise ValueError(f"config 'transaction_max_bytes' must be None or a non-negative int, got {value!r}")
    if name in ("auto_chunk_bytes", "auto_shard_bytes") and (
        not isinstance(value, int) or isinstance(value, bool) or value < 1
    ):
        raise ValueError(f"config {name!r} must be a positive int, got {value!r}")
    if name in ("chunk_cache", "index_cache") and (
        not isinstance(value, int) or isinstance(value, bool) or value < 0
    ):
        raise ValueError(f"config {name!r} must be a non-negative int of bytes (0: no cache), got {value!r}")
    if name == "parallel_chunk_bytes" and (
        not isinstance(value, int) or isinstance(value, bool) or value < 0
    ):
        raise ValueError(f"config 'parallel_chunk_bytes' must be a non-negative int, got {value!r}")
    if name == "prefer":
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and k.count(":") == 1 and isinstance(v, str) and v for k, v in value.items()
        ):
            raise ValueError(
                "config 'prefer' maps '<point>:<name>' to a distribution name, "
                f"e.g. {{'codecs:zstd': 'zarrforge-numcodecs'}}; got {value!r}"
            )
        return dict(value)
    if name == "default_format":
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value:
            raise ValueError(
                f"config 'default_format' must name a format ('3', '2', 'draft-2022', ...), got {value!r}"
            )
        return value
    if name == "non_finite_attributes" and value not in ("tokens", "refuse"):
        raise ValueError(
            "config 'non_finite_attributes' must be 'tokens' (write NaN/Infinity "
            f"as zarr-python does) or 'refuse' (strict JSON); got {value!r}"
        )
    if name == "skippable_extensions" and value not in ("top-level", "list"):
        raise ValueError(
            "config 'skippable_extensions' must be 'top-level' (a top-level key peers can "
            f"read) or 'list' (ZEP 10's extensions list); got {value!r}"
        )
    if name == "reference_targets":
        return _reference_targets(value)
    if name == "conflict_retries" and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ValueError(f"config 'conflict_retries' must be a non-negative int, got {value!r}")
    return value


def _reference_targets(value: Any) -> tuple[str, ...] | str:
    """The ``reference_targets`` setting: ``"any"``, or a prefix or a sequence of them, each
    a URL with a scheme or an absolute path, with no ``.``/``..`` segment (a prefix that
    climbs out of itself would allow more than it names)."""
    if value == "any":
        return "any"
    prefixes = (value,) if isinstance(value, str) else value
    if not isinstance(prefixes, (list, tuple, frozenset)) or not all(isinstance(p, str) for p in prefixes):
        raise ValueError(
            "config 'reference_targets' must be 'any' or a list of URL prefixes or absolute "
            f"paths (['file:///data/raw/', 's3://bucket/']); got {value!r}"
        )
    for prefix in prefixes:
        scheme, has_scheme, rest = prefix.partition("://")
        if not (has_scheme and scheme) and not prefix.startswith("/"):
            raise ValueError(
                f"config 'reference_targets': {prefix!r} is neither a URL with a scheme "
                "('file:///data/raw/', 's3://bucket/') nor an absolute path ('/data/raw/')"
            )
        if any(part in (".", "..") for part in (rest if has_scheme else prefix).split("/")):
            raise ValueError(f"config 'reference_targets': {prefix!r} has a '.' or '..' segment")
    return tuple(sorted(prefixes))


class set:  # noqa: A001  # a lower-case class: zarr-python's and zarrforge's name: reads as config.set
    """Change settings now; as ``with set(...):``, restore the changed ones afterwards.

    Takes zarrforge's setting names as keywords, or a mapping of them and/or zarr-python's
    dotted keys (nested mappings are read as dotted keys: ``{"array": {"order": "F"}}``).
    A keyword with ``__`` is a dotted key (``array__order="F"``), as in zarr-python.
    """

    def __init__(self, changes: Mapping[str, Any] | None = None, /, **keywords: Any) -> None:
        global _settings
        wanted = _flattened(changes, keywords)
        with _lock:
            self._previous = _settings
            _settings = _updated(_settings, wanted)
            self._changed = [
                f.name
                for f in dataclasses.fields(Settings)
                if getattr(_settings, f.name) is not getattr(self._previous, f.name)
            ]

    def __enter__(self) -> Settings:
        return _settings

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        global _settings
        with _lock:
            _settings = dataclasses.replace(
                _settings, **{name: getattr(self._previous, name) for name in self._changed}
            )


def update(changes: Mapping[str, Any] | None = None, /, **keywords: Any) -> None:
    """Change settings for the rest of the process (``set`` without its ``with`` form)."""
    global _settings
    wanted = _flattened(changes, keywords)
    with _lock:
        _settings = _updated(_settings, wanted)


def reset() -> None:
    """Every setting back to its default."""
    global _settings
    with _lock:
        _settings = Settings()


_NO_DEFAULT: Any = object()


def get(name: str | None = None, default: Any = _NO_DEFAULT) -> Any:
    """The settings in force, or one of them by name (see the module docstring)."""
    settings = _settings
    if name is None:
        return settings
    if name in _FIELDS:
        return getattr(settings, name)
    translation = config_keys.TRANSLATED.get(name)
    if translation is not None:
        return translation.from_setting(settings)
    if config_keys.is_recorded(name):
        if name in settings.recorded:
            return settings.recorded[name]
        if name in config_keys.RECORDED:
            return config_keys.RECORDED[name]
    below = _dotted_view(settings, name + ".")
    if below:
        return below
    if default is not _NO_DEFAULT:
        return default
    raise config_keys.unknown_key(name, sorted(_FIELDS))


def pprint(
    *,
    stream: IO[str] | None = None,
    indent: int = 1,
    width: int = 80,
    depth: int | None = None,
    compact: bool = False,
    sort_dicts: bool = True,
    underscore_numbers: bool = False,
) -> None:
    """Print the settings in force: zarrforge's names, then zarr-python's keys.

    The keywords are those zarr-python's ``config.pprint(**kwargs)`` hands to
    ``pprint.pprint`` (``stream=`` to print into a file or ``io.StringIO``,
    ``width=``...). ``sort_dicts`` applies to zarr-python's keys; zarrforge's names
    keep their documented order."""
    options: dict[str, Any] = {
        "stream": stream,
        "indent": indent,
        "width": width,
        "depth": depth,
        "compact": compact,
        "underscore_numbers": underscore_numbers,
    }
    settings = _settings
    _pprint.pprint(
        {name: getattr(settings, name) for name in _FIELDS if name != "recorded"}, sort_dicts=False, **options
    )
    _pprint.pprint(_dotted_view(settings, ""), sort_dicts=sort_dicts, **options)


def _dotted_view(settings: Settings, prefix: str) -> dict[str, Any]:
    """zarr-python's keys starting with ``prefix`` as a nested dict (prefix removed)."""
    values = {key: translation.from_setting(settings) for key, translation in config_keys.TRANSLATED.items()}
    values.update(config_keys.RECORDED)
    values.update(settings.recorded)
    nested: dict[str, Any] = {}
    for key, value in sorted(values.items()):
        if not key.startswith(prefix):
            continue
        *parents, leaf = key[len(prefix) :].split(".")
        level = nested
        for parent in parents:
            level = level.setdefault(parent, {})
        level[leaf] = value
    return nested


_FIELDS = tuple(f.name for f in dataclasses.fields(Settings))


def _flattened(changes: Mapping[str, Any] | None, keywords: dict[str, Any]) -> dict[str, Any]:
    if changes is not None and not isinstance(changes, Mapping):
        raise TypeError(
            "config.set takes a mapping of names to values and/or keywords, got "
            f"{type(changes).__name__} {changes!r}"
        )
    flat: dict[str, Any] = {}

    def add(key: str, value: Any) -> None:
        if (
            isinstance(value, Mapping)
            and key not in _FIELDS
            and key not in config_keys.TRANSLATED
            and not config_keys.is_recorded(key)
        ):
            for inner, inner_value in value.items():
                add(f"{key}.{inner}", inner_value)
        else:
            flat[key] = value

    for key, value in (changes or {}).items():
        if not isinstance(key, str):
            raise TypeError(f"config names are strings, got {key!r}")
        add(key, value)
    for key, value in keywords.items():
        add(key.replace("__", "."), value)
    return flat


def _updated(base: Settings, changes: dict[str, Any]) -> Settings:
    settings = base
    for key, value in changes.items():
        if key in _FIELDS and key != "recorded":
            settings = dataclasses.replace(settings, **{key: _coerce(key, value)})
        elif key in config_keys.TRANSLATED:
            translation = config_keys.TRANSLATED[key]
            try:
                converted = _coerce(translation.setting, translation.to_setting(value, settings))
            except ValueError as exc:
                raise ValueError(f"config {key!r} (zarrforge's {translation.setting!r}): {exc}") from None
            settings = dataclasses.replace(settings, **{translation.setting: converted})
        elif config_keys.is_recorded(key):
            config_keys.check_recorded(key, value)
            settings = dataclasses.replace(settings, recorded={**settings.recorded, key: value})
        else:
            raise config_keys.unknown_key(key, [f for f in _FIELDS if f != "recorded"])
    return settings
