"""What the run of xarray's own Zarr tests needs beyond the test module
(``tests/peers/xarray_suite.py``, run by ``make peer-suites``):

* at collection, the items none of whose kind reaches zarrforge are deselected, each
  counted with its reason: the module's ``NOT_THROUGH_ZARRFORGE`` test functions, and the
  items xarray's own marks skip in this environment (``skip``, ``skipif`` with a true
  condition, and xarray's ``skip_if_param``, which only xarray's repository conftest
  implements), and those the module's ``skipped_in_body`` names (an inherited test that
  skips some of its cases from inside its body), so the run skips nothing;
* at the end, the count of the items that wrote or read through zarrforge, by outcome,
  from the ``xarray_own_suite`` user property each item records, and of those that ran
  without reaching zarrforge.
"""

from __future__ import annotations

import collections
from typing import Any

import pytest

OWN_SUITE = "xarray_own_suite"
_DESELECTED = pytest.StashKey[collections.Counter]()


def _xarray_skips(item: pytest.Item) -> str | None:
    """The reason xarray's own marks skip ``item`` here, or ``None``."""
    for mark in item.iter_markers("skip"):
        return mark.kwargs.get("reason", "xarray skips it")
    for mark in item.iter_markers("skipif"):
        conditions = mark.args or (mark.kwargs.get("condition"),)
        if any(isinstance(c, bool) and c for c in conditions):
            return mark.kwargs.get("reason", "xarray skips it here")
    params = getattr(getattr(item, "callspec", None), "params", {})
    for mark in item.iter_markers("skip_if_param"):
        wanted = {k: v for k, v in mark.kwargs.items() if k not in ("reason", "condition")}
        if mark.kwargs.get("condition", True) and all(
            k in params and params[k] == v for k, v in wanted.items()
        ):
            return mark.kwargs.get("reason", f"xarray skips {wanted}")
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept, dropped = [], []
    reasons: collections.Counter = collections.Counter()
    for item in items:
        module = getattr(item, "module", None)
        not_through = getattr(module, "NOT_THROUGH_ZARRFORGE", None)
        if not_through is None:
            kept.append(item)
            continue
        name = getattr(item, "originalname", item.name)
        in_body = getattr(module, "skipped_in_body", None)
        reason = (
            f"never reaches zarrforge: {not_through[name]}"
            if name in not_through
            else _xarray_skips(item) or (in_body(item) if in_body else None)
        )
        if reason is None:
            kept.append(item)
        else:
            dropped.append(item)
            reasons[reason] += 1
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    config.stash[_DESELECTED] = reasons


def _own_suite_outcomes(stats: dict[str, list[Any]]) -> dict[str, dict[str, str]]:
    """``{nodeid: {"outcome": ..., "via": "zarrforge" | "elsewhere"}}`` for the items
    that recorded the property: the outcome is the call's (or the setup's, for an item
    erroring there), in pytest's words (``xfailed`` for an expected failure)."""
    items: dict[str, dict[str, str]] = {}
    for reports in stats.values():
        for report in reports:
            recorded = [v for k, v in getattr(report, "user_properties", ()) if k == OWN_SUITE]
            if not recorded or getattr(report, "when", None) not in ("setup", "call"):
                continue
            entry = items.setdefault(report.nodeid, {"outcome": "", "via": "elsewhere"})
            if any(v in ("save", "open") for v in recorded):
                entry["via"] = "zarrforge"
            if report.when == "call" or report.outcome != "passed":
                entry["outcome"] = (
                    "xfailed"
                    if hasattr(report, "wasxfail") and report.skipped
                    else "xpassed"
                    if hasattr(report, "wasxfail")
                    else report.outcome
                )
    return items


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Lines counting xarray's own Zarr tests: through zarrforge by outcome, those that
    ran without reaching zarrforge, and those deselected, by reason."""
    items = _own_suite_outcomes(terminalreporter.stats)
    if not items:
        return
    groups: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for entry in items.values():
        groups[entry["via"]][entry["outcome"]] += 1
    terminalreporter.write_sep("-", "xarray's own Zarr tests (tests/peers/xarray_suite.py)")
    for via, label in (("zarrforge", "through zarrforge"), ("elsewhere", "ran without reaching zarrforge")):
        counts = groups.get(via, collections.Counter())
        detail = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        terminalreporter.write_line(f"{label}: {sum(counts.values())}" + (f" ({detail})" if detail else ""))
    deselected = config.stash.get(_DESELECTED, collections.Counter())
    terminalreporter.write_line(f"deselected: {sum(deselected.values())}")
    for reason, count in deselected.most_common():
        terminalreporter.write_line(f"  {count:>4}  {reason}")
