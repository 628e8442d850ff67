"""Opening a node whose attributes document is large (many small values).

Issue #32's case: ``python benchmarks/large_attributes_open.py [--entries 1500000]
[--dir DIR]`` writes a group whose ``zarr.json`` holds that many attributes
(``"key<i>": [i, i/2, "v"]``, about 58 MB for the default), then times opening it and
reports the peak RSS the open added, as a multiple of the document's size, and the
time of the first attribute read (when the attributes are parsed). zarrforge only.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import zarrforge as zf

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import memory  # noqa: E402  # the suite's peak-memory sections


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1_500_000)
    parser.add_argument("--dir", default=None, help="where the group is kept")
    args = parser.parse_args()
    directory = args.dir or os.path.join(tempfile.gettempdir(), f"zf-attrs-{args.entries}.zarr")
    key = os.path.join(directory, "zarr.json")
    if not os.path.exists(key):
        zf.create_group(directory)
        with open(key) as f:
            document = json.load(f)
        document["attributes"] = {f"key{i}": [i, i / 2, "v"] for i in range(args.entries)}
        with open(key, "w") as f:
            json.dump(document, f)
    zf.create_group("memory://warm-up").create_array("w", shape=(2,), dtype="i1")
    gc.collect()
    before = memory.start_section()
    start = time.perf_counter()
    group = zf.open_group(directory, mode="r")
    opened = time.perf_counter() - start
    added = memory.section_peak() - before
    start = time.perf_counter()
    group.attrs["key5"]
    first = time.perf_counter() - start
    size = os.path.getsize(key)
    print(
        f"attributes document {size / 1e6:.1f} MB: open {opened:.2f} s, peak RSS +"
        f"{added / 1e6:.0f} MB ({added / size:.1f}x the document); first attribute read "
        f"{first:.2f} s"
    )


if __name__ == "__main__":
    main()
