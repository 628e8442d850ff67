"""The repository's root conftest: loaded by every pytest run here, whichever directory or
file it was given, and by xdist's controller too (which loads only the conftests of the
directories it was given and their parents, never those of plugins/*/tests).

It holds one hook: the count of xarray's own Zarr tests run through zarrforge
(plugins/xarray/tests/test_xarray_own_suite.py) at the end of the run, from the
``xarray_own_suite`` user property each of those items records (reports carry it from
xdist workers)."""

from __future__ import annotations

from typing import Any

OWN_SUITE = "xarray_own_suite"


def _own_suite_outcomes(stats: dict[str, list[Any]]) -> dict[str, dict[str, str]]:
    """``{nodeid: {"outcome": ..., "via": "zarrforge" | "elsewhere" | "deselected"}}`` for
    the items that recorded the property: the outcome is the call's (or the setup's, for
    an item skipped or erroring there), pytest's words (``xfailed`` for an expected
    failure)."""
    items: dict[str, dict[str, str]] = {}
    for reports in stats.values():
        for report in reports:
            recorded = [v for k, v in getattr(report, "user_properties", ()) if k == OWN_SUITE]
            if not recorded or getattr(report, "when", None) not in ("setup", "call"):
                continue
            entry = items.setdefault(report.nodeid, {"outcome": "", "via": "elsewhere"})
            if "deselected" in recorded:
                entry["via"] = "deselected"
            elif any(v in ("save", "open") for v in recorded):
                entry["via"] = "zarrforge"
            if report.when == "call" or report.outcome != "passed":
                outcome = "xfailed" if hasattr(report, "wasxfail") and report.skipped else \
                    "xpassed" if hasattr(report, "wasxfail") else report.outcome
                entry["outcome"] = outcome
    return items


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Lines counting xarray's own Zarr tests: through zarrforge by outcome, those that ran
    without reaching zarrforge, and those deselected (with their reasons in the module)."""
    items = _own_suite_outcomes(terminalreporter.stats)
    if not items:
        return
    groups: dict[str, dict[str, int]] = {}
    for entry in items.values():
        by_outcome = groups.setdefault(entry["via"], {})
        by_outcome[entry["outcome"]] = by_outcome.get(entry["outcome"], 0) + 1
    terminalreporter.write_sep("-", "xarray's own Zarr tests (test_xarray_own_suite.py)")
    for via, label in (("zarrforge", "through zarrforge"),
                       ("elsewhere", "ran without reaching zarrforge"),
                       ("deselected", "skipped on purpose, never reaching zarrforge (reasons in the module)")):
        counts = groups.get(via, {})
        detail = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        terminalreporter.write_line(f"{label}: {sum(counts.values())}"
                                    + (f" ({detail})" if detail else ""))
