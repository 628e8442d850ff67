"""Run the Python examples of one Markdown document, in order, in one namespace
(``python _doc_examples.py DOC``), and print a JSON report of what failed.

A block's expected output is written as comments right after the ``print`` that makes
it (``print(x)`` then ``# 42``); the block passes when it runs without an exception and
prints those lines, where ``...`` in an expected line stands for any text (a temporary
path, a long listing); blocks without such comments need only run. A block that
follows ``<!-- not run: <reason> -->`` is skipped (file listings of a package that is
not installed, examples that need a server). The working directory is a new
temporary one, so examples may write ``data.zarr``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import tempfile
import traceback

BLOCK = re.compile(r"(<!-- not run: (?P<reason>.*?) -->\s*)?```python\n(?P<code>.*?)```", re.S)


def expected_output(code: str) -> list[str]:
    """The comment lines that follow a ``print(...)`` line (with any further comment
    lines right after them), without their ``# ``."""
    expected: list[str] = []
    collecting, depth = False, 0
    for line in code.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            if collecting and depth == 0:
                expected.append(stripped[2:] if stripped.startswith("# ") else stripped[1:])
            continue
        code_part = line.split("  #")[0]
        if depth > 0:  # a continuation line of the print
            depth += code_part.count("(") - code_part.count(")")
            continue
        collecting = "print(" in code_part
        depth = code_part.count("(") - code_part.count(")") if collecting else 0
    return expected


def matches(expected: list[str], got: list[str]) -> bool:
    if len(expected) != len(got):
        return False
    return all(re.fullmatch(".*".join(re.escape(part) for part in e.rstrip().split("...")), g)
               for e, g in zip(expected, got))


def run(document: str) -> list[dict[str, str]]:
    text = open(document, encoding="utf-8").read()
    failures = []
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    for number, match in enumerate(BLOCK.finditer(text), 1):
        line = text.count("\n", 0, match.start("code")) + 1
        if match.group("reason"):
            continue
        code = match.group("code")
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{document}:{line}", "exec"), namespace)
        except BaseException:  # noqa: BLE001 - reported
            failures.append({"block": number, "line": line,
                             "error": traceback.format_exc(limit=6)[-3000:]})
            continue
        expected = expected_output(code)
        got = [l.rstrip() for l in out.getvalue().splitlines()]
        if expected and not matches(expected, got):
            failures.append({"block": number, "line": line,
                             "error": "output differs:\nexpected:\n" + "\n".join(expected)
                                      + "\ngot:\n" + "\n".join(got)})
    return failures


if __name__ == "__main__":
    document = os.path.abspath(sys.argv[1])
    os.chdir(tempfile.mkdtemp(prefix="doc-examples-"))
    print(json.dumps(run(document)))
