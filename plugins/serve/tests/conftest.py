"""Fixtures of the serve tests; every server binds 127.0.0.1 only.

* ``serve``: :class:`zarrforge_serve.testing.Servers`; ``serve.start(source, **options)``
  serves ``source`` on a free port and returns the base URL (``http://127.0.0.1:PORT/``),
  ``serve.last`` is the hierarchy it serves; every server is stopped when the test ends.
* ``http``: :func:`zarrforge_serve.testing.request`, one request sent exactly as given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from zarrforge_serve.testing import Servers, request


@pytest.fixture
def serve() -> Iterator[Servers]:
    servers = Servers()
    yield servers
    servers.close()


@pytest.fixture
def http() -> Callable[..., tuple[int, dict[str, str], bytes]]:
    return request
