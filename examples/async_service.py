"""An aiohttp service serving slices of a Zarr array with zarrforge's asyncio API.

    python examples/async_service.py STORE PATH [--port 8080]

``GET /rows/{start}/{stop}`` answers the rows ``start:stop`` as JSON. Each request awaits
``AsyncArray.getitem``: the event loop never blocks on the store, and the reads of
requests that arrive together reach the store as one batched read
(docs/asyncio.md). ``GET /info`` answers the array's shape, dtype and chunks.
"""

from __future__ import annotations

import argparse

from aiohttp import web

import zarrforge.asyncio as zfa

ARRAY = web.AppKey("array", zfa.AsyncArray)


async def rows(request: web.Request) -> web.Response:
    arr = request.app[ARRAY]
    try:
        start, stop = int(request.match_info["start"]), int(request.match_info["stop"])
    except ValueError:
        raise web.HTTPBadRequest(text="start and stop are integers") from None
    if not 0 <= start <= stop <= arr.shape[0]:
        raise web.HTTPBadRequest(text=f"rows {start}:{stop} are outside 0:{arr.shape[0]}")
    values = await arr.getitem(slice(start, stop))
    return web.json_response({"start": start, "stop": stop, "values": values.tolist()})


async def info(request: web.Request) -> web.Response:
    arr = request.app[ARRAY]
    return web.json_response({"shape": arr.shape, "dtype": str(arr.dtype), "chunks": arr.chunks})


def make_app(arr: zfa.AsyncArray) -> web.Application:
    app = web.Application()
    app[ARRAY] = arr
    app.router.add_get("/rows/{start}/{stop}", rows)
    app.router.add_get("/info", info)
    return app


async def app_for(store: str, path: str) -> web.Application:
    return make_app(await zfa.open_array(store, path, mode="r"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("path", nargs="?", default="")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    web.run_app(app_for(args.store, args.path), port=args.port)


if __name__ == "__main__":
    main()
