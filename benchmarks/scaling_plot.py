"""The scaling family (W9): seconds per chunk against the number of chunks, every engine.

``python benchmarks/scaling_plot.py RESULTS_JSON [--out PNG]`` reads the ``latest.json``
of a ``run.py --only W9w-1k,W9r-1k,W9w-16k,W9r-16k,W9w-256k,W9r-256k`` run, prints a
Markdown table (microseconds per chunk, and each engine's growth from the fewest to
the most chunks: 1.0 is flat) and draws the PNG (default
``benchmarks/results/scaling.png``): chunks on a log axis, seconds per chunk, one line
per engine and direction.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import data


def per_chunk(results: dict) -> dict[str, dict[str, dict[int, float]]]:
    """``{direction: {engine: {chunks: seconds per chunk}}}`` from a run's table."""
    scale = results["settings"]["scale"]
    out: dict[str, dict[str, dict[int, float]]] = {"write": {}, "read": {}}
    for row in results["table"]:
        name = row["workload"]
        if not name.startswith("W9"):
            continue
        direction = "write" if name.startswith("W9w") else "read"
        spec = data.spec(data.SCALING[name.split("-", 1)[1]], scale)
        chunks = math.prod(-(-n // c) for n, c in zip(spec.shape, spec.chunks))
        for engine, cell in row["engines"].items():
            if cell.get("failed") or cell.get("seconds") is None:
                continue
            out[direction].setdefault(engine, {})[chunks] = cell["seconds"] / chunks
    return out


def table(curves: dict[str, dict[str, dict[int, float]]]) -> str:
    counts = sorted({n for engines in curves.values() for c in engines.values() for n in c})
    lines = [
        "| direction | engine | " + " | ".join(f"{n:,} chunks (us/chunk)" for n in counts) + " | growth |",
        "|---|---|" + "---:|" * (len(counts) + 1),
    ]
    for direction, engines in curves.items():
        for engine, curve in sorted(engines.items()):
            cells = [f"{curve[n] * 1e6:.1f}" if n in curve else "-" for n in counts]
            known = [curve[n] for n in counts if n in curve]
            growth = f"{known[-1] / known[0]:.2f}" if len(known) > 1 else "-"
            lines.append(f"| {direction} | {engine} | " + " | ".join(cells) + f" | {growth} |")
    return "\n".join(lines)


def draw(curves: dict[str, dict[str, dict[int, float]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=False)
    for ax, (direction, engines) in zip(axes, curves.items()):
        for engine, curve in sorted(engines.items()):
            counts = sorted(curve)
            ax.plot(counts, [curve[n] * 1e6 for n in counts], marker="o", label=engine)
        ax.set_xscale("log")
        ax.set_xlabel("chunks in the 256 MiB array")
        ax.set_ylabel("microseconds per chunk")
        ax.set_title(f"W9: {direction} (flat = cost linear in chunks)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "results" / "scaling.png"
    )
    args = parser.parse_args()
    curves = per_chunk(json.loads(args.results.read_text()))
    print(table(curves))
    draw(curves, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
