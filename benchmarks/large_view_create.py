"""Creating one array under a root whose consolidated view holds many members.

Issue #32's scale case: ``python benchmarks/large_view_create.py [--members 50000]
[--format 3|2] [--dir DIR]`` builds the hierarchy once (kept in DIR for later runs), then
times one ``create_array`` under the root and reports the peak RSS it added, as a
multiple of the size of the document holding the view (v3: the root ``zarr.json``; v2:
``.zmetadata``). A warm-up first loads the plugins, so imports are not counted.
zarrforge only: neither peer updates a consolidated view when a node is created.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import zarrforge as zf

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import memory  # noqa: E402  # the suite's peak-memory sections


def build(directory: str, members: int, zarr_format: str) -> None:
    group = zf.create_group(directory, zarr_format=zarr_format)
    for i in range(members):
        group.create_array(f"a{i}", shape=(4,), chunks=(4,), dtype="i4", attributes={"i": i})
    zf.consolidate_metadata(directory)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=50_000)
    parser.add_argument("--format", choices=("3", "2"), default="3")
    parser.add_argument("--dir", default=None, help="where the hierarchy is kept")
    args = parser.parse_args()
    suffix = "" if args.format == "3" else f"-v{args.format}"
    directory = args.dir or os.path.join(tempfile.gettempdir(), f"zf-view-{args.members}{suffix}.zarr")
    view = os.path.join(directory, "zarr.json" if args.format == "3" else ".zmetadata")
    if not os.path.exists(view):
        build(directory, args.members, args.format)
    zf.create_group("memory://warm-up").create_array("w", shape=(4,), chunks=(4,), dtype="i4")
    zf.open_group(directory, use_consolidated=False)
    gc.collect()
    before = memory.start_section()
    start = time.perf_counter()
    zf.create_array(
        directory, f"new-{uuid.uuid4().hex[:8]}", shape=(4,), chunks=(4,), dtype="i4", zarr_format=args.format
    )
    elapsed = time.perf_counter() - start
    added = memory.section_peak() - before
    size = os.path.getsize(view)
    print(
        f"v{args.format}, members {args.members}, {os.path.basename(view)} {size / 1e6:.1f} MB: "
        f"create_array "
        f"{elapsed:.2f} s, peak RSS +{added / 1e6:.0f} MB ({added / size:.1f}x the document)"
    )


if __name__ == "__main__":
    main()
