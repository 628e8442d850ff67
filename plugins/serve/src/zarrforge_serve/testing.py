"""A served hierarchy on a thread of its own, for tests (this package's and yours).

:class:`RunningServer` runs :func:`zarrforge_serve.make_app` on an event loop in a daemon
thread, bound to 127.0.0.1 on a free port; :attr:`RunningServer.url` is its base URL and
:meth:`RunningServer.close` stops it. :class:`Servers` starts several and stops them
together (a test fixture's body: ``servers.start(source, **options)`` returns the URL). :func:`request` sends one HTTP request with
``http.client`` exactly as given (no path normalising, no redirects).
"""

from __future__ import annotations

import asyncio
import http.client
import threading
import urllib.parse
from typing import Any

from aiohttp import web

from .app import make_app
from .hierarchy import ServedHierarchy

#: the keywords of :meth:`Servers.start` that go to the application, not the hierarchy
APP_OPTIONS = ("cors_origins", "threads", "warm", "fast_reads")


class RunningServer:
    """``hierarchy`` served by :func:`make_app` (``app_options``) on 127.0.0.1, in a thread."""

    def __init__(self, hierarchy: ServedHierarchy, app_options: dict[str, Any]) -> None:
        self.hierarchy = hierarchy
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._stop: asyncio.Event | None = None
        self.port = 0
        self._thread = threading.Thread(target=self._run, args=(app_options,), daemon=True)
        self._thread.start()
        if not self._started.wait(30):
            raise RuntimeError("the test server did not start")

    def _run(self, app_options: dict[str, Any]) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main(app_options))

    async def _main(self, app_options: dict[str, Any]) -> None:
        runner = web.AppRunner(make_app(self.hierarchy, **app_options), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self.port = runner.addresses[0][1]
        self._stop = asyncio.Event()
        self._started.set()
        await self._stop.wait()
        await runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


class Servers:
    """Servers started by :meth:`start`, all stopped by :meth:`close`; :attr:`last` is the
    hierarchy the last one serves."""

    def __init__(self) -> None:
        self._running: list[RunningServer] = []
        self.last: ServedHierarchy | None = None

    def start(self, source: Any, **options: Any) -> str:
        """Serve ``source`` (keywords: :class:`ServedHierarchy`'s, and :data:`APP_OPTIONS`
        for :func:`make_app`); the base URL."""
        app_options = {k: options.pop(k) for k in APP_OPTIONS if k in options}
        server = RunningServer(ServedHierarchy(source, **options), app_options)
        self._running.append(server)
        self.last = server.hierarchy
        return server.url

    def close(self) -> None:
        for server in self._running:
            server.close()


def request(
    method: str, url: str, headers: dict[str, str] | None = None, path: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request to ``url`` (``path``: sent as the request target exactly as given)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)
    try:
        connection.request(method, path if path is not None else parts.path or "/", headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        connection.close()
