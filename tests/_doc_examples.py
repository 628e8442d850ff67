"""Run every fenced ``python``, ``sh`` and ``console`` block of one Markdown document, in
order (``python _doc_examples.py DOC [--one]``), and print a JSON report of what ran,
what was skipped on purpose and what failed. Given several documents, it runs each in
turn (a new working directory and namespace for each, one interpreter for all) and prints
``{document: report}`` (``--several`` asks for that form for one document too).

* ``python`` blocks run in one namespace, top to bottom. A block's expected output is
  written as comments right after the ``print`` that makes it (``print(x)`` then
  ``# 42``); the block passes when it runs without an exception and prints those lines,
  where ``...`` in an expected line stands for any text (a temporary path, a long
  listing); blocks without such comments need only run.
* ``sh`` blocks run as one bash script (``set -e``); comments are comments.
* ``console`` blocks are ``$ command`` lines, each followed by the output it prints
  (stdout and stderr together); a line ``...`` stands for any number of lines and
  ``...`` inside a line for any text. A command with output shown may exit non-zero
  (``$ echo $?`` shows the status where it matters); one without must exit 0.

A marker comment right before a block says it is not run here:

* ``<!-- fragment: <reason> -->``: a fragment on purpose (placeholder credentials of a
  real service, a file of a package shown piece by piece); reported as skipped.
* ``<!-- run by: <path> <what> -->``: an install or long-running block that ``<path>``
  (a file of the repository: a test, ``.ci/run``, the benchmark) runs instead; the path
  must exist.

Shell commands find ``python`` and ``zarrforge`` of the interpreter running this script.
The S3 examples' server is the one ``AWS_ENDPOINT_URL`` names (set by the caller), and
``https://example.org`` stands for the HTTP server at ``$ZARRFORGE_DOC_HTTP`` when set.
The working directory is a new temporary one, so examples may write ``data.zarr``.
With ``--one``, only the first block that is run at all runs (a smoke test of an
installation).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"<!--\s*(fragment|run by|not run)\s*:\s*(.*?)\s*-->", re.S)
BLOCK = re.compile(
    r"(?:<!--\s*(?P<mark>fragment|run by)\s*:\s*(?P<note>.*?)\s*-->[ \t]*\n(?:[ \t]*\n)*)?"
    r"^(?P<indent>[ \t]*)```(?P<lang>python|sh|console)\n(?P<code>.*?)^(?P=indent)```",
    re.S | re.M,
)
EXAMPLE_HOST = "https://example.org"


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


def _line_matches(expected: str, got: str) -> bool:
    return (
        re.fullmatch(".*".join(re.escape(part) for part in expected.rstrip().split("...")), got) is not None
    )


def matches(expected: list[str], got: list[str]) -> bool:
    """Line by line; a line that is only ``...`` matches any number of lines."""
    if not expected:
        return not got
    if expected[0].strip() == "...":
        return any(matches(expected[1:], got[i:]) for i in range(len(got) + 1))
    return bool(got) and _line_matches(expected[0], got[0]) and matches(expected[1:], got[1:])


def _with_servers(code: str) -> str:
    http = os.environ.get("ZARRFORGE_DOC_HTTP")
    return code.replace(EXAMPLE_HOST, http) if http else code


def _shell_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    # the pages show the output a pipe gets (100 columns), whatever terminal runs the tests
    env.pop("COLUMNS", None)
    return env


def run_python(code: str, where: str, namespace: dict) -> str | None:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(_with_servers(code), where, "exec"), namespace)  # noqa: S102  # the documentation's own blocks
    except BaseException:  # noqa: BLE001  # reported
        return traceback.format_exc(limit=6)[-3000:]
    expected = expected_output(code)
    got = [line.rstrip() for line in out.getvalue().splitlines()]
    if expected and not matches(expected, got):
        return "output differs:\nexpected:\n" + "\n".join(expected) + "\ngot:\n" + "\n".join(got)
    return None


def run_sh(code: str) -> str | None:
    done = subprocess.run(
        ["bash", "-e", "-c", _with_servers(code)],
        capture_output=True,
        text=True,
        env=_shell_env(),
        timeout=300,
    )
    if done.returncode:
        return f"exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return None


def console_commands(code: str) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` of each ``$ `` line of a console block."""
    commands: list[tuple[str, list[str]]] = []
    continued = False
    for line in code.splitlines():
        if continued:
            commands[-1] = (commands[-1][0] + "\n" + line, [])
        elif line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line.rstrip())
        else:
            raise ValueError(f"console block output before any command: {line!r}")
        continued = line.endswith("\\") and not commands[-1][1]
    return commands


def run_console(code: str) -> str | None:
    status = 0
    for command, expected in console_commands(code):
        done = subprocess.run(
            ["bash", "-c", f"(exit {status}); {_with_servers(command)}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=_shell_env(),
            timeout=300,
        )
        status = done.returncode
        got = [line.rstrip() for line in done.stdout.splitlines()]
        if expected and not matches(expected, got):
            return (
                f"$ {command}\noutput differs:\nexpected:\n"
                + "\n".join(expected)
                + "\ngot:\n"
                + "\n".join(got)
            )
        if not expected and status:
            return f"$ {command}\nexited {status}:\n" + "\n".join(got[-40:])
    return None


def run(document: str, only_one: bool = False) -> dict[str, list]:
    """``{"ran": [...], "fragment": [...], "run_by": [...], "failures": [...]}``, each a
    list of ``{"line": ..., ...}``."""
    text = open(document, encoding="utf-8").read()
    report: dict[str, list] = {"ran": [], "fragment": [], "run_by": [], "failures": []}
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    used = set()
    blocks = list(BLOCK.finditer(text))
    for match in blocks:
        if match.group("mark"):
            used.add(match.start())
    for marker in MARKER.finditer(text):
        if marker.start() not in used:
            report["failures"].append(
                {
                    "line": text.count("\n", 0, marker.start()) + 1,
                    "error": f"the marker {marker.group(0)!r} is not right before a python, sh "
                    "or console block (or is not one of 'fragment:', 'run by:')",
                }
            )
    for match in blocks:
        line = text.count("\n", 0, match.start("code")) + 1
        mark, note = match.group("mark"), match.group("note")
        if mark == "fragment":
            report["fragment"].append({"line": line, "reason": note})
            continue
        if mark == "run by":
            report["run_by"].append({"line": line, "by": note})
            if not os.path.exists(os.path.join(ROOT, note.split()[0])):
                report["failures"].append(
                    {"line": line, "error": f"'run by: {note}' names no file of the repository"}
                )
            continue
        code = textwrap.dedent(match.group("code"))
        language = match.group("lang")
        if language == "python":
            error = run_python(code, f"{document}:{line}", namespace)
        elif language == "sh":
            error = run_sh(code)
        else:
            error = run_console(code)
        report["ran"].append({"line": line, "language": language})
        if error:
            report["failures"].append({"line": line, "error": error})
        if only_one:
            break
    return report


if __name__ == "__main__":
    flags = {"--one", "--several"}
    documents = [os.path.abspath(arg) for arg in sys.argv[1:] if arg not in flags]
    reports = {}
    for document in documents:  # each in a new working directory and a new namespace
        os.chdir(tempfile.mkdtemp(prefix="doc-examples-"))
        reports[document] = run(document, only_one="--one" in sys.argv[1:])
    several = len(documents) > 1 or "--several" in sys.argv[1:]
    print(json.dumps(reports if several else reports[documents[0]]))
