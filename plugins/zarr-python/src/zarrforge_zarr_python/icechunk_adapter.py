"""The ``icechunk:`` URL adapter: an Icechunk repository named by the segments before it.

Syntax (as tensorstore writes it), after a segment that names the repository's
directory::

    file:/data/repo|icechunk:                       branch main, the root
    file:/data/repo|icechunk:group/array            branch main, a node
    s3://bucket/repo|icechunk:@branch.dev/group     branch dev
    s3://bucket/repo|icechunk:@tag.v1/group         a tag
    file:/data/repo|icechunk:@1CECHNKREP0F1RSTCMT0/  a snapshot id

The path after the version is the node inside the repository (joined with the
caller's ``path=``, like any pipeline path); the format is Zarr v3, the only one
Icechunk holds.

Where the repository is: the store the segments before resolve to. A local
directory (``file:`` roots and bare paths: zarrforge-std's local store) becomes
Icechunk's local filesystem storage; ``s3://bucket/prefix`` (zarrforge-fsspec's
store over s3fs) becomes Icechunk's S3 storage, taking from ``storage_options``
the endpoint (``endpoint_url``, or ``client_kwargs["endpoint_url"]``, with path-style
addressing and plain HTTP allowed when it starts with ``http://``), the region
(``client_kwargs["region_name"]``), the credentials (``key``/``secret``/``token``,
else ``anon=True`` for anonymous access, else the environment's, as boto3 finds
them). Other bases are refused, naming the segment.

**Read-only.** An Icechunk write only exists once a session commits it, and a URL
leaves no session to commit: a write through an ``icechunk:`` URL would be lost
without a word. So the adapter opens a read-only session and refuses
``read_only=False`` with a message saying how to write (open a writable session,
pass ``session.store``, then ``session.commit``). icechunk is imported on first use;
without it the error names the package.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any
from urllib.parse import unquote

from zarrforge.abc.url_adapter import PipelineState, Segment, URLAdapter, join_path

from .store import ZarrPythonStore

EXAMPLE = "file:/data/repo|icechunk:@branch.main/group/array"


def _icechunk(segment: Segment) -> Any:
    try:
        import icechunk
    except ImportError:
        raise segment.error(
            "needs the icechunk package (pip install icechunk, or zarrforge-zarr-python[icechunk])"
        ) from None
    return icechunk


def version_and_path(segment: Segment) -> tuple[dict[str, str], str]:
    """The session's version (``readonly_session`` keywords) and the node path of the
    segment's body (see the module docstring for the syntax)."""
    body = segment.body
    if not body.startswith("@"):
        return {"branch": "main"}, segment.path()
    ref, _, rest = body[1:].partition("/")
    ref = unquote(ref)
    path = dataclasses.replace(segment, body=rest).path()
    for kind in ("branch", "tag"):
        if ref.startswith(kind + "."):
            name = ref[len(kind) + 1 :]
            if not name:
                raise segment.error(f"'@{kind}.' needs a {kind} name, e.g. '@{kind}.main'")
            return {kind: name}, path
    if not ref or not ref.isalnum():
        raise segment.error(
            f"{ref!r} is not a version: valid are '@branch.<name>', "
            "'@tag.<name>' or '@<snapshot id>' (letters and digits)"
        )
    return {"snapshot_id": ref}, path


def _s3_storage(icechunk: Any, bucket_and_prefix: str, options: dict[str, Any]) -> Any:
    bucket, _, prefix = bucket_and_prefix.strip("/").partition("/")
    client = options.get("client_kwargs") or {}
    endpoint = options.get("endpoint_url") or client.get("endpoint_url")
    settings: dict[str, Any] = {
        "bucket": bucket,
        "prefix": prefix or None,
        "region": client.get("region_name") or options.get("region"),
    }
    if endpoint:
        settings.update(
            endpoint_url=endpoint, force_path_style=True, allow_http=str(endpoint).startswith("http://")
        )
    if options.get("key") and options.get("secret"):
        settings.update(
            access_key_id=options["key"],
            secret_access_key=options["secret"],
            session_token=options.get("token"),
        )
    elif options.get("anon"):
        settings["anonymous"] = True
    else:
        settings["from_env"] = True
    return icechunk.s3_storage(**settings)


def storage_for(base: PipelineState, segment: Segment, options: dict[str, Any]) -> Any:
    """Icechunk's storage for the repository directory ``base`` names."""
    icechunk = _icechunk(segment)
    store = base.store
    directory = store.local_directory()
    if directory is not None:
        return icechunk.local_filesystem_storage(
            os.path.join(directory, *base.path.split("/")) if base.path else directory
        )
    url = store.root_url() or ""
    if url.startswith("s3://"):
        return _s3_storage(icechunk, join_path(url[len("s3://") :].rstrip("/"), base.path), options)
    raise segment.error(
        f"the repository must be a local directory (file:) or an S3 prefix "
        f"(s3://bucket/prefix); {base.url!r} is neither"
    )


class IcechunkAdapter(URLAdapter):
    name = "icechunk"

    @classmethod
    def resolve(
        cls, base: PipelineState | None, segment: Segment, *, read_only: bool, storage_options: dict[str, Any]
    ) -> PipelineState:
        segment.not_first(EXAMPLE)
        assert base is not None
        version, path = version_and_path(segment)
        if not read_only:
            raise segment.error(
                "icechunk: URLs open a read-only session (open with mode='r'): a write "
                "through a URL would never be committed. To write, open a session and pass "
                "its store: session = icechunk.Repository.open(storage).writable_session("
                "'main'); zf.open_group(session.store, mode='a'); ...; session.commit(...)"
            )
        icechunk = _icechunk(segment)
        storage = storage_for(base, segment, storage_options)
        try:
            session = icechunk.Repository.open(storage).readonly_session(**version)
        except (icechunk.IcechunkError, ValueError) as exc:
            what = ", ".join(f"{k} {v!r}" for k, v in version.items())
            raise segment.error(
                f"cannot open the Icechunk repository at {base.url!r} ({what}): {exc}"
            ) from None
        return PipelineState(ZarrPythonStore(session.store, read_only=True), path=path, zarr_format="3")
