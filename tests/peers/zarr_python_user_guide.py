"""zarr-python 3.4.2's user guide, run with ``zarr`` meaning zarrforge: how many blocks run.

    python tests/peers/zarr_python_user_guide.py [--pages arrays groups ...] [--update-floor]

What it does (issue #43; ``make peer-suites`` runs it after the suite,
``tests/peers/zarr_python_suite.py``):

1. takes the side environment and zarr-python's sdist the suite uses (built or fetched
   on first use; nothing of the sdist is kept in this repository);
2. runs the executable Python blocks of the user-guide pages :data:`PAGES` twice, each
   page in a fresh process and an empty working directory (``_guide_blocks.py``): as
   they are (zarr-python), and with every import of ``zarr`` meaning zarrforge
   (``import zarrforge as zarr``, ``from zarrforge.storage import LocalStore``...). Both
   runs set ``ZARR_ARRAY__RECTILINEAR_CHUNKS=True``, the setting the arrays page says its
   rectilinear examples assume. Blocks that reach a network service are not run and are
   counted as such;
3. prints per page: the blocks, those needing the network, those zarr-python runs, those
   zarrforge runs, and each block zarrforge fails with its first error line;
4. exits 1 when zarrforge's count falls below the floor in ``zarr_python_guide_floor.json``
   (beside this file), which only rises (``--update-floor``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from zarr_python_suite import CACHE, VERSION, ensure_zarrsuite_venv, sdist_tree  # noqa: E402

PAGES = ("arrays", "groups", "attributes", "storage", "consolidated_metadata", "config")
FLOOR = HERE / "zarr_python_guide_floor.json"
PAGE_TIMEOUT = 600  # seconds; the arrays page writes a few 400 MB arrays


def run_page(python: Path, page: Path, mode: str) -> list[list]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(ZARR_ARRAY__RECTILINEAR_CHUNKS="True", PYTHONDONTWRITEBYTECODE="1")
    with tempfile.TemporaryDirectory(prefix=f"guide-{page.stem}-") as workdir:
        done = subprocess.run(
            [str(python), str(HERE / "_guide_blocks.py"), str(page), mode],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=PAGE_TIMEOUT,
        )
    if done.returncode != 0:
        sys.exit(
            f"running {page.name} ({mode}) failed (exit {done.returncode}):\n"
            f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def summarise(results: dict[str, dict[str, list[list]]]) -> dict:
    pages = {}
    for name, runs in results.items():
        theirs, ours = runs["zarr-python"], runs["zarrforge"]
        pages[name] = {
            "blocks": len(ours),
            "network": sum(outcome == "network" for _, outcome, _ in ours),
            "zarr-python": sum(outcome == "passed" for _, outcome, _ in theirs),
            "zarrforge": sum(outcome == "passed" for _, outcome, _ in ours),
            "failures": [[number, message] for number, outcome, message in ours if outcome == "failed"],
        }
    totals = {
        key: sum(page[key] for page in pages.values())
        for key in ("blocks", "network", "zarr-python", "zarrforge")
    }
    return {"pages": pages, "totals": totals}


def report(summary: dict) -> None:
    print(f"zarr-python {VERSION}'s user guide with zarr meaning zarrforge (executable blocks)")
    print(f"{'page':<24}{'blocks':>7}{'network':>9}{'zarr-python':>13}{'zarrforge':>11}")
    for name, page in summary["pages"].items():
        print(
            f"{name:<24}{page['blocks']:>7}{page['network']:>9}{page['zarr-python']:>13}"
            f"{page['zarrforge']:>11}"
        )
    t = summary["totals"]
    print(f"{'total':<24}{t['blocks']:>7}{t['network']:>9}{t['zarr-python']:>13}{t['zarrforge']:>11}")
    for name, page in summary["pages"].items():
        for number, message in page["failures"]:
            print(f"  {name}.md block {number}: {message}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", nargs="+", default=list(PAGES), choices=PAGES)
    parser.add_argument("--update-floor", action="store_true")
    args = parser.parse_args(argv)
    python = ensure_zarrsuite_venv()
    guide = sdist_tree(python) / "docs" / "user-guide"
    results = {
        name: {mode: run_page(python, guide / f"{name}.md", mode) for mode in ("zarr-python", "zarrforge")}
        for name in args.pages
    }
    summary = summarise(results)
    (CACHE / "runs").mkdir(parents=True, exist_ok=True)
    (CACHE / "runs" / "guide-summary.json").write_text(json.dumps(summary, indent=1))
    report(summary)
    if args.pages != list(PAGES):
        return 0  # a partial run neither checks nor moves the floor
    floor = json.loads(FLOOR.read_text()) if FLOOR.exists() else {"zarrforge": 0}
    ours = summary["totals"]["zarrforge"]
    if ours < floor["zarrforge"]:
        print(
            f"\nFAILED: {ours} blocks ran on zarrforge, below the floor {floor['zarrforge']} ({FLOOR.name})"
        )
        return 1
    if args.update_floor and ours > floor["zarrforge"]:
        FLOOR.write_text(json.dumps({"zarrforge": ours}, indent=1) + "\n")
        print(f"\nfloor now {ours}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
