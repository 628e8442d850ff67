"""A real S3-compatible server on 127.0.0.1 for store tests: moto's server mode,
with its conditional writes made atomic the way S3's are.

``loopback_s3_server()`` is a context manager that starts the server on a free
port of 127.0.0.1 and yields its endpoint URL; it stops the server on exit.

Why the patch: moto's ``PutObject`` and ``DeleteObject`` check ``If-Match`` /
``If-None-Match`` and then write in two steps, and its server answers requests on
several threads, so two writers holding the same ETag can both pass the check and
the second silently replaces the first. S3 itself decides a conditional write
atomically (one succeeds, the rest get ``412``). A test of lost updates against
the unpatched server therefore fails now and then for the server's sake, not the
store's. :func:`make_conditional_writes_atomic` serialises those two handlers of
this process's moto under one lock, which is all the atomicity S3 promises.

Needs ``moto[server]`` (a test dependency, not one of zarrforge's).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator

_LOCK = threading.Lock()
_PATCHED = "_zarrforge_atomic"


def make_conditional_writes_atomic() -> None:
    """Run moto's S3 ``put_object`` and ``delete_object`` handlers one at a time in this
    process (idempotent)."""
    from moto.s3.responses import S3Response

    for name in ("put_object", "delete_object"):
        handler = getattr(S3Response, name)
        if getattr(handler, _PATCHED, False):
            continue

        @functools.wraps(handler)
        def one_at_a_time(self, *args, _handler=handler, **kwargs):
            with _LOCK:
                return _handler(self, *args, **kwargs)

        setattr(one_at_a_time, _PATCHED, True)
        setattr(S3Response, name, one_at_a_time)


@contextlib.contextmanager
def loopback_s3_server() -> Iterator[str]:
    """Start moto's S3 server on 127.0.0.1 (atomic conditional writes); yield
    ``http://127.0.0.1:<port>``; stop it on exit."""
    import moto.server as moto_server

    make_conditional_writes_atomic()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        _, port = server.get_host_and_port()
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
