"""Reads of one array asked for by many coroutines, gathered into one engine call.

Contract: :meth:`ReadGatherer.read` queues a ``(kind, selection)`` read and waits for it.
Every read queued on one event loop before that loop's next pass over its ready
callbacks (all the coroutines an ``asyncio.gather`` starts, say) goes in one batch, read
with one call of ``Array._read_gathered`` on the pool for blocking calls: their chunks
reach the store as the large concurrent ``get_many`` batches of one large read, not one
thread per request. Batches may run at once (a new one forms while one is in flight).
Each read gets its own result or its own error. Cancelling a read drops its result; the
batch goes on for the others, so a cancelled read stops no work.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from typing import Any

from ..engine import parallel

Pending = list[tuple[str, Any, asyncio.Future]]


class ReadGatherer:
    def __init__(self, array: Any) -> None:
        self._array = array
        self._pending: dict[asyncio.AbstractEventLoop, Pending] = {}

    async def read(self, kind: str, selection: Any) -> Any:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        pending = self._pending.get(loop)
        if pending is None:
            pending = self._pending[loop] = []
            loop.call_soon(self._dispatch, loop)
        pending.append((kind, selection, future))
        return await future

    def _dispatch(self, loop: asyncio.AbstractEventLoop) -> None:
        batch = [entry for entry in self._pending.pop(loop) if not entry[2].done()]
        if not batch:
            return
        requests = [(kind, selection) for kind, selection, _ in batch]
        submitted = parallel.async_call_pool().submit(
            contextvars.copy_context().run, self._array._read_gathered, requests
        )

        def finished(done: concurrent.futures.Future) -> None:
            try:
                loop.call_soon_threadsafe(_deliver, batch, done)
            except RuntimeError:  # the loop was closed meanwhile: nobody waits any more
                pass

        submitted.add_done_callback(finished)


def _deliver(batch: Pending, done: concurrent.futures.Future) -> None:
    failure = done.exception()
    results = [(None, failure)] * len(batch) if failure is not None else done.result()
    for (_, _, future), (values, error) in zip(batch, results):
        if future.done():  # cancelled by its coroutine
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(values)
