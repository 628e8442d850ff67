"""Fixtures of the serve tests; every server binds 127.0.0.1 only.

* ``serve``: ``serve(source, **options)`` starts :func:`zarrforge_serve.make_app` over
  a :class:`~zarrforge_serve.ServedHierarchy` of ``source`` on a free port, on an event
  loop of its own thread, and returns the base URL (``http://127.0.0.1:PORT/``); every
  server started is stopped when the test ends. ``options`` are the hierarchy's
  (``path``, ``storage_options``, ``options``, ``cache_bytes``) and the app's
  (``cors_origins``, ``threads``).
* ``http``: ``http(method, url_path_or_url, headers=None)`` sends one request with
  ``http.client`` exactly as given (no path normalising, no redirects) and returns
  ``(status, headers, body)``.
"""

from __future__ import annotations

import asyncio
import http.client as http_client
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiohttp import web

from zarrforge_serve import ServedHierarchy, make_app

_APP_OPTIONS = ("cors_origins", "threads")


class RunningServer:
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


@pytest.fixture
def serve() -> Iterator[Callable[..., str]]:
    servers: list[RunningServer] = []

    def start(source: Any, **options: Any) -> str:
        app_options = {k: options.pop(k) for k in _APP_OPTIONS if k in options}
        server = RunningServer(ServedHierarchy(source, **options), app_options)
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        server.close()


def request(
    method: str, url: str, headers: dict[str, str] | None = None, path: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request to ``url`` (``path``: sent as the request target exactly as given)."""
    parts = urllib.parse.urlsplit(url)
    connection = http_client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        connection.request(method, path if path is not None else parts.path or "/", headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        connection.close()


@pytest.fixture
def http() -> Callable[..., tuple[int, dict[str, str], bytes]]:
    return request
