"""zarrforge's asyncio API: zarr-python 3's ``zarr.api.asynchronous``, ``AsyncArray`` and
``AsyncGroup`` on the zarrforge engine::

    import zarrforge.asyncio as zfa

    arr = await zfa.open_array("s3://bucket/data.zarr", "temperature")
    tiles = await asyncio.gather(*(arr.getitem((i, slice(None))) for i in range(500)))

Contract (docs/asyncio.md has the threading model and its limits):

* No store request, codec call or indexing runs on the event loop's thread: blocking
  work runs on zarrforge's pool for blocking calls
  (``zarrforge.engine.parallel.async_call_pool``), and the engine spreads its chunk work
  over its own pools as for any caller.
* Reads of one array asked for in the same pass of the loop are gathered into one engine
  call, so the store sees them as the large concurrent batches of one large read
  (``zarrforge.asyncio.gathering``).
* Cancelling a coroutine stops its call at the call's next store request, leaving every
  chunk old or new, as a failed call does, and returns only once nothing of the call
  runs any more (``zarrforge.asyncio.offload``).

Importing ``zarrforge`` does not import this module. One of the faces on top of the core
(tests/test_layers.py): it may import the user API and every layer below it.
"""

from .api import create_array, create_group, open, open_array, open_group  # noqa: A004
from .arrays import AsyncArray, AsyncSelector
from .groups import AsyncGroup, from_node

__all__ = [
    "AsyncArray",
    "AsyncGroup",
    "AsyncSelector",
    "create_array",
    "create_group",
    "from_node",
    "open",
    "open_array",
    "open_group",
]
