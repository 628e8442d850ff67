"""The HTTP face of a served hierarchy: an aiohttp application, read-only.

:func:`make_app` returns an :class:`aiohttp.web.Application` answering every path with
:class:`~zarrforge_serve.hierarchy.ServedHierarchy`, for embedding (mount it under a
prefix with ``parent.add_subapp``) or for :func:`zarrforge_serve.server.serve`.

What a reader gets:

* ``GET`` and ``HEAD`` of ``<node>/zarr.json`` and of chunk keys (``<array>/c/i/j``);
  ``OPTIONS`` answers CORS preflight requests; any other method is 405.
* One byte range per request (``Range: bytes=a-b``, ``bytes=a-``, ``bytes=-n``): 206
  with ``Content-Range``; 416 for a range past the end; several ranges, or an
  ``If-Range`` that does not match, get the whole value (RFC 9110 allows both).
* ``ETag`` where the answer has one, and 304 for a matching ``If-None-Match``.
* 404 for a node or chunk that is not there (a reader uses the fill value for an absent
  chunk); 400 for a path that could not name anything served (``..`` segments,
  backslashes, control characters: :mod:`zarrforge_serve.request_paths`).
* ``zarr.json`` compressed (gzip or deflate) when the request accepts it; chunks never
  (they are compressed already, and ranges address their stored bytes).
* CORS: ``Access-Control-Allow-Origin`` for the configured origins only (none by
  default: a page on another origin cannot read a server it was not allowed to);
  ``"*"`` allows every origin. ``Content-Range``, ``ETag`` and ``Content-Length`` are
  exposed to scripts, and ``Range`` and ``If-None-Match`` may be sent.
* A failure while reading the source is 502 (the store failed) or 500 (anything else)
  with a one-line reason in the body; the traceback goes to the server's log only.

Every request's work (store reads, decoding, encoding) runs on a thread pool of
``threads`` workers, off the event loop, so slow reads do not stall other clients; the
one exception is a passed-through chunk of a store that declares its reads fast
(``capabilities.low_latency``: local directories, memory), read on the loop, where a
thread hand-off would cost more than the read (``fast_reads=False`` turns it off).
Request bodies are refused beyond ``MAX_REQUEST_BYTES``; responses are bounded by the
largest stored chunk and, for re-encoded chunks, ``max_chunk_bytes``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiohttp import web

from zarrforge.errors import StoreError

from .answers import Body, part_of
from .byte_ranges import Unsatisfiable, parse_range
from .hierarchy import LATER, ServedHierarchy
from .request_paths import BadPath, ChunkRequest, parse

logger = logging.getLogger("zarrforge_serve")

#: a request body beyond this is refused (the server reads none: it is read-only)
MAX_REQUEST_BYTES = 1024
HIERARCHY = web.AppKey("hierarchy", ServedHierarchy)
POOL = web.AppKey("pool", ThreadPoolExecutor)
ORIGINS = web.AppKey("origins", frozenset)
FAST_READS = web.AppKey("fast_reads", bool)
_READ_METHODS = ("GET", "HEAD")
_EXPOSED = "Content-Range, Content-Length, ETag, Accept-Ranges"
_ALLOWED_HEADERS = "Range, If-None-Match, If-Range"


def default_threads() -> int:
    """Worker threads by default: enough to keep a remote store's reads overlapping."""
    return min(32, 4 * (os.cpu_count() or 1))


def _cors(request: web.Request) -> dict[str, str]:
    origins = request.app[ORIGINS]
    origin = request.headers.get("Origin")
    if not origin or not origins:
        return {}
    if "*" in origins:
        return {"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": _EXPOSED}
    if origin in origins:
        return {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Expose-Headers": _EXPOSED,
            "Vary": "Origin",
        }
    return {}


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else 'no message'}"


def _matches(header: str | None, etag: str | None) -> bool:
    if not header or etag is None:
        return False
    tags = [t.strip() for t in header.split(",")]
    weakless = etag.removeprefix("W/")
    return "*" in tags or any(t.removeprefix("W/") == weakless for t in tags)


def _response(body: Body, ranged: bool, headers: dict[str, str]) -> web.Response:
    headers = {**headers, "Accept-Ranges": "bytes", "Cache-Control": "no-cache"}
    if body.etag is not None:
        headers["ETag"] = body.etag
    status = 200
    if ranged:
        status = 206
        headers["Content-Range"] = f"bytes {body.start}-{body.start + len(body.data) - 1}/{body.size}"
    response = web.Response(status=status, body=body.data, content_type=body.content_type, headers=headers)
    if body.content_type == "application/json" and not ranged:
        headers_vary = response.headers.get("Vary")
        response.headers["Vary"] = f"{headers_vary}, Accept-Encoding" if headers_vary else "Accept-Encoding"
        response.enable_compression()
    return response


async def handle(request: web.Request) -> web.StreamResponse:
    """Answer one request (every path and method of the application).

    Parameters
    ----------
    request : aiohttp.web.Request
        The request.

    Returns
    -------
    aiohttp.web.StreamResponse
        The answer.
    """
    cors = _cors(request)
    if request.method == "OPTIONS":
        preflight = dict(cors)
        if cors:
            preflight.update(
                {
                    "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
                    "Access-Control-Allow-Headers": _ALLOWED_HEADERS,
                    "Access-Control-Max-Age": "600",
                }
            )
        return web.Response(status=204, headers={**preflight, "Allow": "GET, HEAD, OPTIONS"})
    if request.method not in _READ_METHODS:
        return web.Response(
            status=405,
            text="this server is read-only: GET, HEAD and OPTIONS only\n",
            headers={**cors, "Allow": "GET, HEAD, OPTIONS"},
        )
    if request.content_length and request.content_length > MAX_REQUEST_BYTES:
        return web.Response(status=413, text="a request body is not read by this server\n", headers=cors)
    hierarchy = request.app[HIERARCHY]
    try:
        parsed = parse(request.path)
    except BadPath as exc:
        return web.Response(status=400, text=f"{exc}\n", headers=cors)
    if parsed is None:
        return web.Response(status=404, text="nothing is stored here\n", headers=cors)
    wanted = None
    if isinstance(parsed, ChunkRequest):
        wanted = parse_range(request.headers.get("Range"))
        if wanted is not None and "If-Range" in request.headers:
            whole = await _run(request, lambda: hierarchy.chunk(parsed), cors)
            if isinstance(whole, web.StreamResponse) or whole is None:
                return whole or web.Response(status=404, text="no chunk here\n", headers=cors)
            if whole.etag is None or whole.etag != request.headers["If-Range"].strip():
                wanted = None
            return _finish(request, whole, wanted, cors)
        chunk_request = parsed
        if request.app[FAST_READS]:
            now = _now(request, lambda: hierarchy.chunk_now(chunk_request, wanted), cors)
            if now is not LATER:
                return _answered(request, now, wanted, cors)
        work: Callable[[], Body | None] = lambda: hierarchy.chunk(chunk_request, wanted)  # noqa: E731
    else:
        node_path = parsed.node_path
        work = lambda: hierarchy.document(node_path)  # noqa: E731
    return _answered(request, await _run(request, work, cors), wanted, cors)


def _answered(request: web.Request, answer: Any, wanted: Any, cors: dict[str, str]) -> web.StreamResponse:
    if isinstance(answer, web.StreamResponse):
        return answer
    if answer is None:
        return web.Response(status=404, text="nothing is stored here\n", headers=cors)
    if _matches(request.headers.get("If-None-Match"), answer.etag):
        return web.Response(status=304, headers={**cors, "ETag": answer.etag or ""})
    return _response(answer, wanted is not None, cors)


def _finish(request: web.Request, whole: Body, wanted: Any, cors: dict[str, str]) -> web.StreamResponse:
    """Answer with the part of ``whole`` that ``wanted`` asks for (all of it for ``None``)."""
    try:
        part = part_of(whole, wanted)
    except Unsatisfiable as exc:
        return _unsatisfiable(exc, cors)
    return _answered(request, part, wanted, cors)


def _unsatisfiable(exc: Unsatisfiable, cors: dict[str, str]) -> web.Response:
    return web.Response(status=416, text=f"{exc}\n", headers={**cors, "Content-Range": f"bytes */{exc.size}"})


async def _run(
    request: web.Request, work: Callable[[], Body | None], cors: dict[str, str]
) -> Body | web.StreamResponse | None:
    try:
        return await asyncio.get_running_loop().run_in_executor(request.app[POOL], work)
    except Exception as exc:  # noqa: BLE001  # every failure becomes a response (_failed)
        return _failed(request, exc, cors)


def _now(request: web.Request, work: Callable[[], Any], cors: dict[str, str]) -> Any:
    try:
        return work()
    except Exception as exc:  # noqa: BLE001  # every failure becomes a response (_failed)
        return _failed(request, exc, cors)


def _failed(request: web.Request, exc: Exception, cors: dict[str, str]) -> web.Response:
    """The response to a failure answering ``request``: 416, 502, or a one-line 500; the
    traceback goes to the log, never to the client."""
    if isinstance(exc, Unsatisfiable):
        return _unsatisfiable(exc, cors)
    if isinstance(exc, StoreError):
        logger.error("the source's store failed answering %s", request.path, exc_info=exc)
        return web.Response(status=502, text=f"the source's store failed: {_one_line(exc)}\n", headers=cors)
    logger.error("failed answering %s", request.path, exc_info=exc)
    return web.Response(status=500, text=f"{_one_line(exc)}\n", headers=cors)


def make_app(
    hierarchy: ServedHierarchy,
    *,
    cors_origins: Sequence[str] = (),
    threads: int | None = None,
    warm: bool = True,
    fast_reads: bool = True,
) -> web.Application:
    """An aiohttp application serving ``hierarchy`` read-only as Zarr v3.

    Parameters
    ----------
    hierarchy : ServedHierarchy
        What is served.
    cors_origins : Sequence[str]
        Origins whose pages may read the responses (``"*"``: every origin; none by default).
    threads : int or None
        Worker threads answering requests (default :func:`default_threads`).
    warm : bool
        Build the root's ``zarr.json`` on a worker thread as the application starts
        (:meth:`ServedHierarchy.warm`), so the first reader does not wait for every member's
        translation.
    fast_reads : bool
        Read passed-through chunks of low-latency stores (local directories, memory) on the
        event loop (:meth:`ServedHierarchy.chunk_now`): a thread hand-off costs more than
        such a read. ``False`` sends every request to the threads (a local path on a slow
        network file system).

    Returns
    -------
    aiohttp.web.Application
        The application; its thread pool starts and stops with it.
    """
    app = web.Application(client_max_size=MAX_REQUEST_BYTES)
    app[HIERARCHY] = hierarchy
    app[ORIGINS] = frozenset(cors_origins)
    app[FAST_READS] = fast_reads

    async def pool(app: web.Application) -> AsyncIterator[None]:
        app[POOL] = ThreadPoolExecutor(
            max_workers=threads or default_threads(), thread_name_prefix="zarrforge-serve"
        )
        yield
        app[POOL].shutdown(wait=False, cancel_futures=True)

    app.cleanup_ctx.append(pool)
    app.router.add_route("*", "/{tail:.*}", handle)
    return app
