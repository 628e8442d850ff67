"""Turning what the user passed as a store into a :class:`~zarrforge.abc.store.Store`.

Accepted: a ``Store`` instance (used as is), a
:class:`~zarrforge.storing.store_path.StorePath` (its store, with the node below its path:
:func:`resolve_location` joins the caller's path below it; :func:`resolve_store` takes one
whose path is ``""``), ``None`` (a new in-memory store),
a filesystem path (``str`` or ``os.PathLike``), a URL ``scheme://...``, a URL
pipeline (a ``str`` holding ``|``: ``file:/d/data.zip|zip:|zarr3:group/array``), or
another library's store object that a plugin adapts (the ``zarrforge_adapt_store``
hook).

For strings without ``|``: a plain local path (no ``://`` and no ``::``) goes
straight to the ``file`` store of the ``zarrforge.stores`` registry, except one
that starts with a store's scheme and a ``:`` without ``//`` (``s3:x``, ``s3:/x``,
``memory:x``, ``gs:bucket/x``): the scheme of a store in the ``zarrforge.stores``
registry or one of :data:`REMOTE_SCHEMES` (remote services, served by a plugin or
not). That is refused with an :class:`~zarrforge.errors.InvalidPathError` naming the
URL probably meant (``s3://x``), before anything is created, instead of making a
local directory named ``s3:x``. Other local names with a colon (``data:2024.zarr``,
``a:b``, ``C:\\x``) stay paths, and a directory of a refused name is reached as
``./s3:x`` or a :class:`pathlib.Path` (an ``os.PathLike`` is always a path). A URL is
offered to the ``zarrforge_resolve_store`` hook first (so plugins can claim URLs
a scheme does not identify, such as fsspec's ``zip::s3://...`` chains), then its
scheme is looked up in the ``zarrforge.stores`` registry.

URL pipelines (:mod:`zarrforge.storing.url_pipeline` parses them) resolve through the
``zarrforge.url_adapters`` registry, in this order:

1. every segment's scheme is looked up first, so an unknown scheme fails (with
   the close names) before anything is opened;
2. the root: the URL adapter of its scheme, for the roots that read their body
   their own way (``file:relative/path``, ``memory:NAME``); else, for a bare path
   or a ``scheme://`` URL, the resolution above (hook, then ``zarrforge.stores``).
   So every scheme a store declares in ``zarrforge.stores`` is a pipeline root
   with no second entry point (``s3://b/x.zip|zip:``, ``obstore+s3://b|zarr3:a``,
   a third party's scheme), and so are fsspec chains (``zip::s3://b/x.zip|zarr3:a``).
   A store's or remote scheme without ``//`` (``s3:b/x``) is refused, naming the
   URL meant (``s3://b/x``);
3. each following segment's adapter, left to right, on the state so far
   (:class:`~zarrforge.abc.url_adapter.PipelineState`: store, path, format).

:func:`resolve_location` gives the store, the node path (the pipeline's path
joined with the caller's ``path=``, pipeline first) and the format a format
segment chose; a format segment contradicting ``zarr_format=`` is an error
naming both. :func:`resolve_store` takes only a store, so a pipeline that ends
in a path or a format is refused there rather than silently cut short.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import MutableMapping
from typing import Any

from ..abc.store import EnvironmentalErrors, Store
from ..abc.url_adapter import PipelineState, Segment, URLAdapter
from ..errors import InvalidPathError, StoreArgumentError, StoreError, UnknownExtensionError, URLPipelineError
from ..metadata import paths
from ..registries import hooks, plugin_failures, registry
from . import url_pipeline
from .store_path import StorePath

# a mapping (a dict of keys to bytes) is adapted by the zarrforge_adapt_store hook, as other
# objects of other libraries are (zarr-python's stores, with zarrforge-zarr-python)
StoreLike = Store | StorePath | str | os.PathLike[str] | MutableMapping[str, Any] | None

# Schemes of remote services (fsspec's and obstore's protocols for them) whose URLs name
# their location after "//": "gs:bucket/x" means "gs://bucket/x", never a local directory
# of that name, whether or not a plugin serving the scheme is installed. Not "data"
# (RFC 2397 data URLs have no "//", and "data:2024.zarr" is a fine directory name).
REMOTE_SCHEMES = frozenset(
    {
        "s3",
        "s3a",
        "gs",
        "gcs",
        "az",
        "abfs",
        "abfss",
        "adl",
        "oci",
        "oss",
        "r2",
        "hf",
        "http",
        "https",
        "ftp",
        "sftp",
        "ssh",
        "smb",
        "webdav",
        "webhdfs",
        "hdfs",
        "dbfs",
        "lakefs",
        "box",
        "dropbox",
        "gdrive",
        "github",
        "reference",
    }
)
# "scheme:" at the start of a string, the scheme two characters or more (one letter is a
# Windows drive), not an fsspec chain "name::"
_SCHEME_HEAD = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]+):(?!:)")


@dataclasses.dataclass(frozen=True)
class Location:
    """Where a node is: the store, its normalised path there, and the format a URL
    pipeline chose (``None``: not chosen; the caller's argument or detection decides)."""

    store: Store
    path: str
    zarr_format: str | None = None


def scheme_of(url: str) -> str:
    head, sep, _ = url.partition("://")
    return head.lower() if sep else "file"


def is_plain_path(url: str) -> bool:
    """Whether ``url`` is a local path rather than a URL: no ``scheme://`` and no ``::`` chain."""
    return "://" not in url and "::" not in url


def store_scheme_without_slashes(text: str) -> tuple[str, str] | None:
    """``(scheme, meant)`` when ``text`` (a root without ``//``) starts with a store's or a
    remote scheme and a ``:`` (``s3:x`` gives ``("s3", "s3://x")``); else ``None``.
    ``meant`` is the URL probably meant; for ``file:`` the local path itself."""
    match = _SCHEME_HEAD.match(text)
    if match is None or "://" in text:
        return None
    scheme = match.group(1).lower()
    if scheme not in REMOTE_SCHEMES and scheme not in registry.stores:
        return None
    body = text[match.end() :]
    if scheme == "file":
        return scheme, body
    return scheme, f"{scheme}://{body.lstrip('/')}"


def _refuse_scheme_without_slashes(url: str) -> None:
    found = store_scheme_without_slashes(url)
    if found is None:
        return
    scheme, meant = found
    if scheme == "file":
        advice = (
            f"write the local path {meant!r}, or an absolute file URL "
            f"('file:///{os.path.abspath(meant or '.').lstrip('/')}')"
        )
    else:
        advice = f"write {meant!r} for the {scheme} location"
    raise InvalidPathError(
        f"the store {url!r} starts with the scheme {scheme!r} but has no '//' after "
        f"'{scheme}:', so it would be read as a local directory named {url!r}; {advice}, or "
        f"'./{url}' (or a pathlib.Path) for a local directory of that name"
    )


def _store_for_url(url: str, read_only: bool, options: dict[str, Any]) -> Store:
    if not is_plain_path(url):
        claimed = hooks.first_result(
            "zarrforge_resolve_store",
            f"asked whether it claims {url!r}",
            url=url,
            options=options,
            read_only=read_only,
        )
        if claimed is not None:
            return claimed
    scheme = scheme_of(url)
    implementation = registry.stores.get(scheme, field="store")
    with plugin_failures.named(
        "store",
        scheme,
        lambda: registry.stores.origin(scheme),
        f"opening {url!r}",
        answers=(OSError,),
        url=url,
        environmental_errors=implementation.environmental_errors,
    ):
        store = implementation.from_url(url, read_only=read_only, **options)
    if not isinstance(store, Store):
        raise plugin_failures.failure(
            "store",
            scheme,
            registry.stores.origin(scheme),
            TypeError(f"from_url returned {type(store).__qualname__}, not a Store"),
            f"opening {url!r}",
        )
    return store


def resolve_store(
    store: StoreLike, *, read_only: bool = False, storage_options: dict[str, Any] | None = None
) -> Store:
    if isinstance(store, Store):
        return store
    if isinstance(store, StorePath):
        if store.path:
            raise StoreArgumentError(
                f"{store!r} names the node {store.path!r} inside its store, but only a store is "
                f"taken here; pass StorePath({store.store!r}) or the store itself"
            )
        return store.store
    if url_pipeline.is_pipeline(store):
        state = resolve_pipeline(store, read_only=read_only, storage_options=storage_options)
        if state.path or state.zarr_format is not None:
            raise URLPipelineError(
                f"the URL pipeline {store!r} names a node (path {state.path!r}, format "
                f"{state.zarr_format!r}), but only a store is taken here; end the pipeline "
                "at the store (drop the format segment) and pass the path separately",
                url=store,
            )
        return state.store
    options = dict(storage_options or {})
    if store is None:
        store = "memory://"
    if isinstance(store, str) and is_plain_path(store):
        _refuse_scheme_without_slashes(store)
    if isinstance(store, os.PathLike):
        store = os.fspath(store)
    if not isinstance(store, str):
        adapted = hooks.first_result(
            "zarrforge_adapt_store",
            f"asked whether it adapts a {type(store).__qualname__}",
            obj=store,
            options=options,
            read_only=read_only,
        )
        if adapted is not None:
            return adapted
        kind = f"{type(store).__module__}.{type(store).__qualname__}"
        raise StoreArgumentError(
            f"expected a Store, a path, a URL or a mapping, got {kind} {store!r} (no "
            "installed plugin adapts it: zarr-python stores need zarrforge-zarr-python)"
        )
    return _store_for_url(store, read_only, options)


def _adapter(segment: Segment) -> type[URLAdapter]:
    try:
        return registry.url_adapters.get(segment.scheme)
    except UnknownExtensionError as exc:
        where = f"segment {segment.position + 1} {segment.raw!r} of the URL pipeline {segment.url!r}"
        raise UnknownExtensionError(exc.point, exc.name, exc.installed, exc.provider, note=where) from None


def _root_adapter(root: Segment) -> type[URLAdapter] | None:
    """The adapter for the root, or ``None`` when the store resolution takes it (a bare
    path or fsspec chain, or a ``scheme://`` URL no adapter claims)."""
    if root.scheme in registry.url_adapters:
        return _adapter(root)
    if root.scheme == "" or "://" in root.raw:
        return None
    found = store_scheme_without_slashes(root.raw)
    if found is not None:
        # the store would read "s3:x" some way of its own (fsspec: as the local path "s3:x")
        example = f"{root.scheme}://bucket/data.zip|zip:|zarr3:group/array"
        raise root.error(
            f"a {root.scheme!r} root names its location after '//' (e.g. "
            f"{example!r}); {root.raw!r} has none: write {found[1]!r}"
        )
    return _adapter(root)  # "fiel:/x": an unknown scheme, with the close names


def resolve_pipeline(
    url: str, *, read_only: bool = False, storage_options: dict[str, Any] | None = None
) -> PipelineState:
    """What the URL pipeline ``url`` names (see the module docstring for the order)."""
    segments = url_pipeline.parse(url)
    options = dict(storage_options or {})
    root, rest = segments[0], segments[1:]
    root_adapter = _root_adapter(root)
    adapters = [_adapter(s) for s in rest]
    if root_adapter is None:
        state = PipelineState(_store_for_url(root.raw, read_only, options), url=root.raw)
    else:
        state = _apply(root_adapter, None, root, read_only, options)
    chosen_by: Segment | None = None
    for adapter, segment in zip(adapters, rest):
        previous = state.zarr_format
        state = _apply(adapter, state, segment, read_only, options)
        if state.zarr_format is not None and state.zarr_format != previous:
            if previous is not None and chosen_by is not None:
                raise segment.error(
                    f"chooses zarr_format {state.zarr_format!r}, but the "
                    f"segment {chosen_by.raw!r} before it chose {previous!r}"
                )
            chosen_by = segment
    if read_only and not state.store.read_only:
        raise URLPipelineError(
            f"the URL pipeline {url!r} was opened read-only, but its last "
            f"store {state.store!r} is writable: an adapter ignored "
            "read_only=True",
            url=url,
        )
    return state


def _environmental_errors(adapter: type[URLAdapter], base: PipelineState | None) -> EnvironmentalErrors:
    """What the libraries an adapter's ``resolve`` meets declare environmental: its own, and
    those of the store it reads from (``zip:`` on an S3 root meets botocore's errors)."""
    if base is None:
        return adapter.environmental_errors
    stores = {type(base.store), type(base.store.base_store())}
    return adapter.environmental_errors + tuple(
        error for store in stores for error in store.environmental_errors
    )


def _apply(
    adapter: type[URLAdapter],
    base: PipelineState | None,
    segment: Segment,
    read_only: bool,
    options: dict[str, Any],
) -> PipelineState:
    scheme = segment.scheme
    with plugin_failures.named(
        "URL adapter",
        scheme,
        lambda: registry.url_adapters.origin(scheme),
        f"resolving {segment.raw!r} of {segment.url!r}",
        answers=(StoreError,),
        url=segment.url,
        environmental_errors=_environmental_errors(adapter, base),
    ):
        state = adapter.resolve(base, segment, read_only=read_only, storage_options=dict(options))
    if not isinstance(state, PipelineState) or not isinstance(state.store, Store):
        raise URLPipelineError(
            f"the URL adapter {scheme!r} ({registry.url_adapters.origin(scheme)}) "
            f"returned {state!r} for {segment.raw!r}, not a PipelineState holding a Store",
            url=segment.url,
            segment=segment.raw,
        )
    url = segment.raw if base is None else f"{base.url}{url_pipeline.SEPARATOR}{segment.raw}"
    return dataclasses.replace(state, url=url)


def resolve_location(
    store: StoreLike,
    path: str | None = "",
    *,
    zarr_format: Any = None,
    read_only: bool = False,
    storage_options: dict[str, Any] | None = None,
) -> Location:
    """The store, node path and format for the API's ``store``, ``path=`` and
    ``zarr_format=`` arguments (``zarr_format``: ``None`` when not given)."""
    if isinstance(store, StorePath):
        return Location(
            store.store,
            paths.normalize_path(paths.join(store.path, paths.normalize_path(path))),
            None if zarr_format is None else str(zarr_format),
        )
    if not url_pipeline.is_pipeline(store):
        return Location(
            resolve_store(store, read_only=read_only, storage_options=storage_options),
            paths.normalize_path(path),
            None if zarr_format is None else str(zarr_format),
        )
    state = resolve_pipeline(store, read_only=read_only, storage_options=storage_options)
    wanted = None if zarr_format is None else str(zarr_format)
    if wanted is not None and state.zarr_format is not None and wanted != state.zarr_format:
        raise URLPipelineError(
            f"the URL pipeline {store!r} chooses zarr_format {state.zarr_format!r} with a "
            f"format segment, but zarr_format={zarr_format!r} was passed; drop one of them "
            "or make them agree",
            url=store,
        )
    try:
        joined = paths.normalize_path(
            paths.join(paths.normalize_path(state.path), paths.normalize_path(path))
        )
    except InvalidPathError as exc:
        raise URLPipelineError(f"the URL pipeline {store!r} with path={path!r}: {exc}", url=store) from exc
    return Location(state.store, joined, wanted or state.zarr_format)
