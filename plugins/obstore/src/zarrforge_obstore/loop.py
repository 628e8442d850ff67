"""One asyncio event loop per process, on a daemon thread, for obstore's coroutines.

zarrforge's store contract is synchronous; a batch of requests is many obstore
coroutines gathered on this loop, so they overlap as the async API intends. The loop
is started on first use and again in a child process after ``fork`` (a forked child
inherits the loop object but not its thread).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_owner_pid: int | None = None


def _running_loop() -> asyncio.AbstractEventLoop:
    global _loop, _owner_pid
    with _lock:
        if _loop is None or _owner_pid != os.getpid():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="zarrforge-obstore", daemon=True)
            thread.start()
            _loop, _owner_pid = loop, os.getpid()
        return _loop


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on the loop and wait for its result (or its exception)."""
    loop = _running_loop()
    try:
        current = asyncio.get_running_loop()
    except RuntimeError:  # called from synchronous code, as expected
        current = None
    if current is loop:
        raise RuntimeError("an obstore store was called from its own event loop")
    return asyncio.run_coroutine_threadsafe(coroutine, loop).result()
