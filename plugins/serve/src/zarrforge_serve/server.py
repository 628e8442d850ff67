"""Running a served hierarchy: bind, print the banner, serve until interrupted.

:func:`serve` is what ``zarrforge serve`` runs. It binds to ``127.0.0.1`` unless told
otherwise (another host is said so in the banner: the data is then readable by anyone
who can reach that address), prints one line with the URL (port 0 picks a free port,
and the banner names it), logs one line per request to the ``aiohttp.access`` logger
unless ``access_log=False``, and stops cleanly on SIGINT or SIGTERM.
"""

from __future__ import annotations

import asyncio
import ipaddress
import signal
from collections.abc import Callable, Sequence

from aiohttp import web

from .app import make_app
from .hierarchy import ServedHierarchy

LOOPBACK = "127.0.0.1"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``.

    Examples
    --------
    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def banner(url: str, hierarchy: ServedHierarchy, host: str, origins: Sequence[str]) -> str:
    """The one line printed when the server is up."""
    root = hierarchy.root
    kind = "group" if hierarchy.is_group else "array"
    where = "" if is_loopback(host) else f" (bound to {host}: reachable from other machines)"
    cors = f"CORS origins {', '.join(origins)}" if origins else "no CORS origins"
    return (
        f"zarrforge serve: the Zarr {root.metadata_model.format_name} {kind} {root.store!r}"
        f"{f' (node {root.name})' if root.path else ''} "
        f"as Zarr v3 at {url}{where}; read-only, {cors}; Ctrl-C stops"
    )


async def _serve(
    hierarchy: ServedHierarchy,
    host: str,
    port: int,
    origins: Sequence[str],
    threads: int | None,
    access_log: bool,
    announce: Callable[[str], None],
    fast_reads: bool,
) -> None:
    app = make_app(hierarchy, cors_origins=origins, threads=threads, fast_reads=fast_reads)
    runner = web.AppRunner(app, access_log=web.access_logger if access_log else None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        bound = runner.addresses[0] if runner.addresses else (host, port)
        shown = host if ":" not in host else f"[{host}]"
        url = f"http://{shown}:{bound[1]}/"
        announce(banner(url, hierarchy, host, origins))
        await stop.wait()
    finally:
        await runner.cleanup()


def serve(
    hierarchy: ServedHierarchy,
    *,
    host: str = LOOPBACK,
    port: int = 8000,
    cors_origins: Sequence[str] = (),
    threads: int | None = None,
    access_log: bool = True,
    announce: Callable[[str], None] = print,
    fast_reads: bool = True,
) -> None:
    """Serve ``hierarchy`` over HTTP until SIGINT or SIGTERM.

    Parameters
    ----------
    hierarchy : ServedHierarchy
        What is served.
    host : str
        The address to bind (loopback by default).
    port : int
        The port; 0 picks a free one (the banner names it).
    cors_origins : Sequence[str]
        Origins whose pages may read the responses.
    threads : int or None
        Worker threads answering requests.
    access_log : bool
        Log one line per request.
    announce : Callable[[str], None]
        Where the banner goes.
    fast_reads : bool
        Read passed-through chunks of low-latency stores on the event loop (see
        :func:`zarrforge_serve.make_app`).
    """
    asyncio.run(_serve(hierarchy, host, port, cors_origins, threads, access_log, announce, fast_reads))
