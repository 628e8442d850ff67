"""Turning the children's records into the table, the JSON file and the chart.

Contract: :func:`rows` joins the records (one per engine and workload, one
per limit) into one row per workload: best seconds, least CPU seconds and
peak RSS per engine, and the ratios of zarrforge to each peer measured
(``zf/zp`` zarr-python, ``zf/ts`` tensorstore, ``zf/zrs`` zarrs-python) and to the
limit (``zf/limit``; above 1 = zarrforge is slower),
for wall time and (engines only) for CPU time. :func:`markdown` renders the
rows and the limits as Markdown tables; :func:`write_chart` draws the ratios
as a PNG bar chart (matplotlib, Agg backend; log scale, a line at 1) and
returns ``False`` if matplotlib is not installed. A failed run shows as
``FAILED`` and has no ratio. :func:`disturbed` names the runs whose best
repetition shared the CPU with other busy processes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .limits import LIMITS, PHASES
from .workloads import WORKLOADS

ENGINE_SHORT = {"zarrforge": "zf", "zarr-python": "zp", "tensorstore": "ts", "zarrs-python": "zrs"}
PEERS = ("zarr-python", "tensorstore", "zarrs-python")  # the order of the ratio columns


def ratio_keys(engines: list[str]) -> list[tuple[str, str]]:
    """``(ratio key, peer)`` for the peers in ``engines``; zarr-python and tensorstore
    always (their columns stay put when a run leaves them out)."""
    peers = [p for p in PEERS if p in engines or p in ("zarr-python", "tensorstore")]
    return [(f"zf/{ENGINE_SHORT[p]}", p) for p in peers]


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _best(record: dict[str, Any] | None, phase: str = "total") -> float | None:
    if not record or record.get("error"):
        return None
    return record["best"].get(phase)


def rows(records: list[dict[str, Any]], engines: list[str], workloads: list[str]) -> list[dict[str, Any]]:
    by_key = {(r["engine"], r["workload"]): r for r in records}
    out = []
    for name in workloads:
        w = WORKLOADS[name]
        row: dict[str, Any] = {"workload": name, "title": w.title, "engines": {}}
        for engine in engines:
            record = by_key.get((engine, name))
            cpu = (record or {}).get("cpu_seconds") if not (record or {}).get("error") else None
            row["engines"][engine] = {
                "seconds": _best(record),
                "cpu_seconds": min(cpu) if cpu else None,
                "peak_rss_mib": (record or {}).get("peak_rss_mib"),
                "size": (record or {}).get("size"),
                "failed": bool(record is None or record.get("error")),
                "error": (record or {}).get("error"),
            }
        zf = row["engines"].get("zarrforge", {}).get("seconds")
        row["size"] = next((e["size"] for e in row["engines"].values() if e["size"]), None)
        row["limit"] = w.limit
        limit_name, _, phase = (w.limit or "").partition("/")
        row["limit_seconds"] = _best(by_key.get(("limits", limit_name)), phase) if w.limit else None
        peers = ratio_keys(engines)
        row["ratios"] = {key: _ratio(zf, row["engines"].get(peer, {}).get("seconds")) for key, peer in peers}
        row["ratios"]["zf/limit"] = _ratio(zf, row["limit_seconds"])
        zf_cpu = row["engines"].get("zarrforge", {}).get("cpu_seconds")
        row["cpu_ratios"] = {
            key: _ratio(zf_cpu, row["engines"].get(peer, {}).get("cpu_seconds")) for key, peer in peers
        }
        out.append(row)
    return out


def limit_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_name = {r["workload"]: r for r in records if r["engine"] == "limits"}
    out = []
    for name, limit in LIMITS.items():
        record = by_name.get(name)
        if record is None:
            continue
        bounds = {
            f"{name}/{p}": [w for w, wl in WORKLOADS.items() if wl.limit == f"{name}/{p}"]
            for p in PHASES[name]
        }
        for phase in PHASES[name]:
            out.append(
                {
                    "limit": f"{name}/{phase}",
                    "title": limit.title,
                    "size": record.get("size"),
                    "seconds": _best(record, phase),
                    "peak_rss_mib": record.get("peak_rss_mib"),
                    "bounds": bounds[f"{name}/{phase}"],
                    "failed": bool(record.get("error")),
                }
            )
    return out


def disturbed(records: list[dict[str, Any]], threshold: float = 0.10) -> list[str]:
    """Runs whose best repetition shared the machine with other busy processes."""
    out = []
    for r in records:
        shares = r.get("others_cpu_share") or []
        if not shares or r.get("error"):
            continue
        phase = next(iter(r["seconds"]))
        best = min(range(len(shares)), key=lambda i: r["seconds"][phase][i])
        if shares[best] > threshold:
            out.append(f"{r['engine']} {r['workload']} ({shares[best]:.0%})")
    return out


def _s(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def _r(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _mib(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def markdown(table: list[dict[str, Any]], limits: list[dict[str, Any]], engines: list[str]) -> str:
    keys = [key for key, _ in ratio_keys(engines)]
    head = (
        ["workload", "size"]
        + [f"{e} s" for e in engines]
        + [f"{e} MiB" for e in engines]
        + keys
        + ["limit", "limit s", "zf/limit"]
    )
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|"]
    for row in table:
        cells = [f"{row['workload']}", row["size"] or "-"]
        for e in engines:
            info = row["engines"][e]
            cells.append("FAILED" if info["failed"] else _s(info["seconds"]))
        for e in engines:
            info = row["engines"][e]
            cells.append("-" if info["failed"] else _mib(info["peak_rss_mib"]))
        cells += [_r(row["ratios"].get(key)) for key in keys]
        cells += [row["limit"] or "-", _s(row["limit_seconds"]), _r(row["ratios"]["zf/limit"])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "CPU seconds (user + system, all threads; least over the repetitions):",
        "",
        "| workload | " + " | ".join(f"{e} CPU s" for e in engines) + " | " + " | ".join(keys) + " |",
        "|---|" + "---:|" * (len(engines) + len(keys)),
    ]
    for row in table:
        cells = [row["workload"]] + [_s(row["engines"][e]["cpu_seconds"]) for e in engines]
        cells += [_r(row["cpu_ratios"].get(key)) for key in keys]
        lines.append("| " + " | ".join(cells) + " |")
    if limits:
        lines += ["", "| limit | what | size | s | peak MiB | bounds |", "|---|---|---|---:|---:|---|"]
        for row in limits:
            lines.append(
                f"| {row['limit']} | {row['title']} | {row['size']} | "
                f"{'FAILED' if row['failed'] else _s(row['seconds'])} | "
                f"{_mib(row['peak_rss_mib'])} | {', '.join(row['bounds']) or '-'} |"
            )
    return "\n".join(lines) + "\n"


def write_chart(table: list[dict[str, Any]], path: Path, title: str) -> bool:
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    names = [row["workload"] for row in table]
    fig, ax = plt.subplots(figsize=(9, 4.2), dpi=90)
    series = [
        (key, peer)
        for key, peer in ratio_keys(list(PEERS))
        if any(row["ratios"].get(key) is not None for row in table)
    ]
    series.append(("zf/limit", "limit"))
    width = 0.8 / len(series)
    colors = {"zf/zp": "#4c72b0", "zf/ts": "#dd8452", "zf/zrs": "#8172b3", "zf/limit": "#55a868"}
    for k, (key, label) in enumerate(series):
        xs, ys = [], []
        for i, row in enumerate(table):
            value = row["ratios"].get(key)
            if value is not None:
                xs.append(i + (k - (len(series) - 1) / 2) * width)
                ys.append(value)
        bars = ax.bar(xs, ys, width, label=f"zarrforge / {label}", color=colors[key])
        for bar, value in zip(bars, ys):
            ax.annotate(
                f"{value:.2g}",
                (bar.get_x() + bar.get_width() / 2, value),
                ha="center",
                va="bottom",
                fontsize=6,
            )
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(
        matplotlib.ticker.FuncFormatter(
            lambda v, _: f"{v:g}" if v > 0 and round(v / 10 ** math.floor(math.log10(v))) in (2, 5) else ""
        )
    )
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("time ratio (> 1: zarrforge slower)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(axis="y", which="both", linewidth=0.3, alpha=0.5)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return True
