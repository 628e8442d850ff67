"""A real browser reads served arrays with zarrita.js and draws them to a canvas.

A headless Chromium loads ``browser/index.html`` from a static server on 127.0.0.1 (one
origin) with zarrita.js bundled beside it (``browser/setup.sh``, run by ``make
test-setup``); the page reads a 2-D array from the zarrforge server (another origin,
allowed by ``cors_origins``), draws it in grey levels to a canvas, reads the canvas
back and writes values and pixels into the page, which the browser dumps
(``--dump-dom``, with a virtual time budget that waits for the page's requests). The
test compares the page's numbers with the source as zarrforge reads it, and the pixels
with the same grey levels computed here. Two arrays: Zarr v2 with zlib (re-encoded with
zstd, which zarrita decodes with its WebAssembly codecs) and a sharded v3 array (passed
through: zarrita reads the shard index and inner chunks by byte range). A third page
load from an origin the server does not allow must fail.

Where no browser or no zarrita bundle is installed (``make test-setup`` installs both
where it can: the system's ``chromium`` through apt-get, zarrita.js from npm), the tests
skip and say which is missing; ``ZARRFORGE_BROWSER`` names a Chromium or Chrome binary,
``ZARRFORGE_ZARRITA`` the bundle.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import zarrforge as zf

PAGE = Path(__file__).with_name("browser") / "index.html"
REPOSITORY = Path(__file__).resolve().parents[3]
_RESULT = re.compile(r'<pre id="result">(.*?)</pre>', re.S)


def browser_binary() -> str | None:
    named = os.environ.get("ZARRFORGE_BROWSER")
    if named:
        return named
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def zarrita_bundle() -> Path | None:
    named = os.environ.get("ZARRFORGE_ZARRITA")
    path = Path(named) if named else REPOSITORY / ".browser" / "zarrita.bundle.js"
    return path if path.is_file() else None


@pytest.fixture(scope="module")
def page_site(tmp_path_factory) -> Iterator[str]:
    binary, bundle = browser_binary(), zarrita_bundle()
    if binary is None:
        pytest.skip("no Chromium or Chrome on PATH (apt-get install chromium, or set ZARRFORGE_BROWSER)")
    if bundle is None:
        pytest.skip("no zarrita.js bundle (make browser, or set ZARRFORGE_ZARRITA)")
    site = tmp_path_factory.mktemp("page")
    shutil.copy(PAGE, site / "index.html")
    shutil.copy(bundle, site / "zarrita.bundle.js")
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript"}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  # the base class names it
        pass


def load_page(origin: str, store_url: str, array: str, tmp_path: Path) -> str:
    """What the page wrote into #result after reading ``array`` from ``store_url``."""
    query = urllib.parse.urlencode({"store": store_url, "array": array})
    done = subprocess.run(
        [
            str(browser_binary()),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=30000",
            "--dump-dom",
            f"{origin}/index.html?{query}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = _RESULT.search(done.stdout)
    assert found is not None, f"the page was not dumped: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return html.unescape(found.group(1))


def grey_levels(values: np.ndarray) -> list[int]:
    """The page's grey levels: round half up of 255 (v - min) / (max - min), in doubles."""
    flat = values.ravel().astype("float64")
    lo, hi = flat.min(), flat.max()
    if hi == lo:
        return [0] * flat.size
    return [int(np.floor(x + 0.5)) for x in (255 * (flat - lo)) / (hi - lo)]


@pytest.fixture
def sources(tmp_path) -> dict[str, Path]:
    v2 = tmp_path / "v2.zarr"
    a = zf.create_array(
        str(v2),
        shape=(23, 31),
        chunks=(8, 8),
        dtype="<i4",
        zarr_format=2,
        compressors=[{"id": "zlib", "level": 1}],
    )
    a[:] = (np.arange(23 * 31, dtype="<i4").reshape(23, 31) * 37) % 1009 - 300
    v3 = tmp_path / "v3.zarr"
    s = zf.create_array(str(v3), shape=(40, 24), chunks=(5, 6), shards=(20, 12), dtype="uint16")
    s[:30] = (np.arange(30 * 24, dtype="uint16").reshape(30, 24) * 13) % 4001
    return {"v2-zlib": v2, "v3-sharded": v3}


@pytest.mark.parametrize(("name", "passthrough"), [("v2-zlib", False), ("v3-sharded", True)])
def test_a_browser_reads_and_draws_a_served_array(name, passthrough, page_site, sources, serve, tmp_path):
    url = serve.start(str(sources[name]), cors_origins=[page_site])
    assert serve.last.node("").passthrough is passthrough
    text = load_page(page_site, url, "/", tmp_path)
    assert not text.startswith("ERROR"), text
    page = json.loads(text)
    source = zf.open_array(str(sources[name]), mode="r")[...]
    assert tuple(page["shape"]) == source.shape
    assert page["values"] == source.ravel().tolist()
    assert page["pixels"] == grey_levels(source)


def test_a_page_from_an_origin_the_server_does_not_allow_cannot_read(page_site, sources, serve, tmp_path):
    url = serve.start(str(sources["v3-sharded"]), cors_origins=["http://127.0.0.1:1"])
    text = load_page(page_site, url, "/", tmp_path)
    assert text.startswith("ERROR"), text
