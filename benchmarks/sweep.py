"""The thread sweep (``run.py --threads-sweep 1,2,4``): its thread counts, table, chart.

Contract: the driver runs every (engine, workload, N) of :data:`WORKLOADS` and every
(limit, N) of :data:`LIMITS` in a child of its own with ``--threads N`` (see
``benchmarks/child.py``), and hands the records here. :func:`thread_counts` reads the
option (``auto``: 1, 2, 4, ... below ``os.cpu_count()``, then ``os.cpu_count()``);
:func:`rows` joins the records into one row per (workload, N): best seconds per
engine, the thread count each engine reported in force, the codec floor (the
workload's limit measured with N threads) and the ratios ``zf/floor``, ``zf/ts``,
``zf/zp``, ``zf/zrs`` (above 1: zarrforge slower), plus each engine's speedup over its
time at the smallest N; :func:`markdown` renders them (``sweep.md``) and
:func:`write_chart` draws ``sweep.png`` (one panel per workload, threads on a log2
axis, seconds on a log axis, one line per engine, the floor dashed), returning
``False`` when matplotlib is missing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path
from typing import Any

from .report import ENGINE_SHORT
from .workloads import WORKLOADS as ALL_WORKLOADS

#: The workloads a sweep runs (the array reads and writes, where threads can matter).
WORKLOADS = ("W1", "W2", "W3", "W3r", "W4", "W5", "W5r")
#: The limits they are bounded by (L-files runs on one thread at every N, as documented).
LIMITS = ("L-zstd", "L-zstd-inner", "L-files")

COLORS = {
    "zarrforge": "#c44e52",
    "zarr-python": "#4c72b0",
    "tensorstore": "#dd8452",
    "zarrs-python": "#8172b3",
}


def auto_counts(cpus: int | None = None) -> list[int]:
    """1, 2, 4, ... below ``cpus`` (default ``os.cpu_count()``), then ``cpus`` itself."""
    cpus = max(1, cpus or os.cpu_count() or 1)
    counts, n = [], 1
    while n < cpus:
        counts.append(n)
        n *= 2
    return [*counts, cpus]


def thread_counts(text: str) -> list[int]:
    """``auto`` or comma-separated positive integers; sorted, without repeats."""
    if text.strip() == "auto":
        return auto_counts()
    try:
        counts = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not 'auto' or a list of integers: {text!r}") from None
    if not counts or counts[0] < 1:
        raise argparse.ArgumentTypeError("thread counts must be positive integers")
    return counts


def _best(record: dict[str, Any] | None, phase: str = "total") -> float | None:
    if not record or record.get("error"):
        return None
    return record["best"].get(phase)


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def in_force(record: dict[str, Any] | None) -> Any:
    """The thread count a child reported in force (its configuration's ``threads``)."""
    if not record or record.get("error"):
        return None
    return (record.get("configuration") or {}).get("threads")


def rows(
    records: list[dict[str, Any]], engines: list[str], workloads: list[str], threads: list[int]
) -> list[dict[str, Any]]:
    by_key = {(r["engine"], r["workload"], r.get("threads")): r for r in records}
    out = []
    for name in workloads:
        limit = ALL_WORKLOADS[name].limit
        limit_name, _, phase = (limit or "").partition("/")
        first: dict[str, float | None] = {}
        for n in threads:
            row: dict[str, Any] = {"workload": name, "threads": n, "engines": {}, "floor": limit}
            for engine in engines:
                record = by_key.get((engine, name, n))
                cpu = None if record is None or record.get("error") else record.get("cpu_seconds")
                seconds = _best(record)
                if n == threads[0]:
                    first[engine] = seconds
                row["engines"][engine] = {
                    "seconds": seconds,
                    "cpu_seconds": min(cpu) if cpu else None,
                    "threads_in_force": in_force(record),
                    "speedup": _ratio(first.get(engine), seconds),
                    "failed": bool(record is None or record.get("error")),
                    "error": (record or {}).get("error"),
                }
            floor = by_key.get(("limits", limit_name, n)) if limit else None
            row["floor_seconds"] = _best(floor, phase) if floor else None
            row["floor_threads"] = in_force(floor)
            zf = row["engines"].get("zarrforge", {}).get("seconds")
            row["ratios"] = {"zf/floor": _ratio(zf, row["floor_seconds"])}
            for peer in ("tensorstore", "zarr-python", "zarrs-python"):
                if peer in engines:
                    row["ratios"][f"zf/{ENGINE_SHORT[peer]}"] = _ratio(zf, row["engines"][peer]["seconds"])
            out.append(row)
    return out


def _s(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def _r(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _threads_cell(values: list[Any]) -> str:
    distinct = sorted({"default" if v is None else str(v) for v in values})
    return "/".join(distinct) if distinct else "-"


def title(scale: float, repeat: int, counts: list[int], cpus: int | None, date: str) -> str:
    """The heading of a sweep's table and chart."""
    return (
        f"Thread sweep: scale {scale:g}, best of {repeat}, threads "
        f"{','.join(map(str, counts))}, os.cpu_count() {cpus}, {date[:10]}"
    )


def markdown(
    table: list[dict[str, Any]],
    records: list[dict[str, Any]],
    engines: list[str],
    threads: list[int],
    title: str,
) -> str:
    lines = [
        title,
        "",
        "| workload | threads | "
        + " | ".join(f"{e} s" for e in engines)
        + " | floor | floor s | zf/floor | zf/ts |",
        "|---|---:|" + "---:|" * len(engines) + "---|---:|---:|---:|",
    ]
    for row in table:
        cells = [row["workload"], str(row["threads"])]
        cells += [
            "FAILED" if row["engines"][e]["failed"] else _s(row["engines"][e]["seconds"]) for e in engines
        ]
        floor = row["floor"] or "-"
        if row["floor"] and row["floor_threads"] not in (None, row["threads"]):
            floor += f" ({row['floor_threads']} thread{'s' if row['floor_threads'] != 1 else ''})"
        cells += [
            floor,
            _s(row["floor_seconds"]),
            _r(row["ratios"]["zf/floor"]),
            _r(row["ratios"].get("zf/ts")),
        ]
        lines.append("| " + " | ".join(cells) + " |")

    # What each child reported in force, per requested N (from its configuration).
    lines += [
        "",
        "Threads in force, as each child reported them (its configuration's "
        "`threads`; `default`: the library's own):",
        "",
        "| engine / limit | " + " | ".join(f"N={n}" for n in threads) + " |",
        "|---|" + "---:|" * len(threads),
    ]
    names = [
        *engines,
        *sorted(
            {r["workload"] for r in records if r["engine"] == "limits"},
            key=lambda w: LIMITS.index(w) if w in LIMITS else 99,
        ),
    ]
    for name in names:
        cells = []
        for n in threads:
            if name in engines:
                found = [
                    in_force(r)
                    for r in records
                    if r["engine"] == name and r.get("threads") == n and not r.get("error")
                ]
            else:
                found = [
                    in_force(r)
                    for r in records
                    if r["engine"] == "limits"
                    and r["workload"] == name
                    and r.get("threads") == n
                    and not r.get("error")
                ]
            cells.append(_threads_cell(found))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_chart(table: list[dict[str, Any]], engines: list[str], path: Path, title: str) -> bool:
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    workloads = list(dict.fromkeys(row["workload"] for row in table))
    ncols = min(4, len(workloads)) or 1
    nrows = math.ceil(len(workloads) / ncols) or 1
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 2.9 * nrows), dpi=90, squeeze=False)
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    some = matplotlib.ticker.FuncFormatter(  # label the minor ticks at 2 and 5 only
        lambda v, _: f"{v:g}" if v > 0 and round(v / 10 ** math.floor(math.log10(v))) in (2, 5) else ""
    )
    handles: dict[str, Any] = {}
    for ax, name in zip(axes.flat, workloads):
        part = [row for row in table if row["workload"] == name]
        counts = [row["threads"] for row in part]
        for engine in engines:
            points = [
                (row["threads"], row["engines"][engine]["seconds"])
                for row in part
                if row["engines"][engine]["seconds"] is not None
            ]
            if points:
                (handles[engine],) = ax.plot(
                    *zip(*points), marker="o", label=engine, color=COLORS.get(engine)
                )
        floor = [(row["threads"], row["floor_seconds"]) for row in part if row["floor_seconds"] is not None]
        if floor:
            (handles["floor"],) = ax.plot(
                *zip(*floor),
                linestyle="--",
                marker=".",
                color="black",
                label="codec floor (the workload's limit, at N threads)",
            )
        ax.set_xscale("log", base=2)
        ax.set_xticks(counts, [str(n) for n in counts])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(plain)
        low, high = ax.get_ylim()
        # within one decade label every minor tick (2, 3, ...), else those at 2 and 5 only
        ax.yaxis.set_minor_formatter(plain if high / low < 10 else some)
        ax.tick_params(axis="y", which="both", labelsize=6)
        ax.set_xlabel("threads", fontsize=7)
        ax.set_ylabel("seconds (best)", fontsize=7)
        floor_name = part[0]["floor"] or "no floor"
        ax.set_title(f"{name}: {ALL_WORKLOADS[name].title}\n(floor: {floor_name})", fontsize=7)
        ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    for ax in list(axes.flat)[len(workloads) :]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=9)
    fig.legend(
        list(handles.values()),
        [h.get_label() for h in handles.values()],
        loc="lower center",
        ncol=len(handles),
        fontsize=7,
        frameon=False,
    )
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return True


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One sweep from several ``sweep.json`` files of the same settings, each run with
    its own thread counts (``benchmarks/device_sweep.sh`` runs one N at a time so that a
    run stopped at its time limit keeps the counts it finished). The first part's
    machine and settings stand for all; every part's runs are kept; the table is rebuilt.
    """
    if not parts:
        raise ValueError("no sweep to merge")
    settings = parts[0]["settings"]
    for part in parts[1:]:
        for key in ("scale", "repeat", "engines", "workloads"):
            if part["settings"].get(key) != settings.get(key):
                raise ValueError(
                    f"sweeps differ in {key}: {settings.get(key)!r} and {part['settings'].get(key)!r}"
                )
    records = [record for part in parts for record in part["runs"]]
    counts = sorted({n for part in parts for n in part["settings"]["threads"]})
    merged = {**parts[0], "runs": records, "settings": {**settings, "threads": counts}}
    merged["commands"] = [part.get("command") for part in parts]
    merged["table"] = rows(records, settings["engines"], settings["workloads"], counts)
    return merged


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.sweep OUT PART.json ...``: merge the parts into OUT's
    ``sweep.json``, ``sweep.md`` and (with matplotlib) ``sweep.png``."""
    p = argparse.ArgumentParser(description="Merge thread sweeps run one thread count at a time.")
    p.add_argument("out", type=Path, help="folder for sweep.json, sweep.md, sweep.png")
    p.add_argument("parts", type=Path, nargs="+", help="sweep.json files of one N each")
    args = p.parse_args(argv)
    merged = merge([json.loads(path.read_text()) for path in args.parts])
    settings, counts = merged["settings"], merged["settings"]["threads"]
    heading = title(
        settings["scale"], settings["repeat"], counts, merged.get("cpu_count"), str(merged.get("date", ""))
    )
    text = markdown(merged["table"], merged["runs"], settings["engines"], counts, heading)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sweep.json").write_text(json.dumps(merged, indent=1) + "\n")
    (args.out / "sweep.md").write_text(text)
    write_chart(merged["table"], settings["engines"], args.out / "sweep.png", heading)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
