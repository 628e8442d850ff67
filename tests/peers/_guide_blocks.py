"""Runs the executable Python blocks of one zarr-python user-guide page, in order.

    python _guide_blocks.py PAGE.md {zarr-python,zarrforge}

Run by ``zarr_python_user_guide.py`` in the side environment, in an empty working
directory of its own. The page's blocks (fenced ``python exec="true"``) share one
namespace, as the documentation build runs them in one session per page. With
``zarrforge``, every import of ``zarr`` in a block means zarrforge (:func:`redirected`):
``import zarr`` is ``import zarrforge as zarr``, ``from zarr.storage import X`` is ``from
zarrforge.storage import X``. A block that reaches a network service
(:data:`NETWORK`) is not run and is counted as such. Prints one JSON list: ``[block
number, "passed" | "failed" | "network", first line of the failure]``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys

BLOCK = re.compile(r'^```python[^\n]*exec="true"[^\n]*\n(.*?)^```', re.S | re.M)
# public buckets of the guide's remote examples: s3:// URLs, obstore's S3Store, s3fs
NETWORK = re.compile(r"s3://|S3Store\(|filesystem\(\s*['\"]s3['\"]")
IMPORT = re.compile(r"^(\s*)import zarr(\.[\w.]+)?(\s+as\s+\w+)?\s*$", re.M)
FROM = re.compile(r"^(\s*)from zarr(\.[\w.]+)? import ", re.M)


def redirected(source: str) -> str:
    """``source`` with each import of ``zarr`` or a ``zarr.<module>`` naming zarrforge's."""

    def plain_import(match: re.Match[str]) -> str:
        indent, module, alias = match.group(1), match.group(2) or "", match.group(3)
        if not module:
            return f"{indent}import zarrforge{alias or ' as zarr'}"
        # ``import zarr.storage`` binds ``zarr``: keep it bound to zarrforge
        return f"{indent}import zarrforge{module}{alias or ''}" + (
            "" if alias else "; import zarrforge as zarr"
        )

    source = IMPORT.sub(plain_import, source)
    return FROM.sub(lambda m: f"{m.group(1)}from zarrforge{m.group(2) or ''} import ", source)


def run_page(page: str, mode: str) -> list[tuple[int, str, str]]:
    with open(page, encoding="utf-8") as handle:
        blocks = BLOCK.findall(handle.read())
    namespace: dict[str, object] = {"__name__": "__main__"}
    results: list[tuple[int, str, str]] = []
    for number, block in enumerate(blocks, 1):
        if NETWORK.search(block):
            results.append((number, "network", ""))
            continue
        source = redirected(block) if mode == "zarrforge" else block
        shown = io.StringIO()
        try:
            code = compile(source, f"<{os.path.basename(page)} block {number}>", "exec")
            with contextlib.redirect_stdout(shown):
                exec(code, namespace)  # noqa: S102  # the peer's own documentation
        except BaseException as error:  # noqa: BLE001  # every failure is counted
            first = str(error).splitlines()[0] if str(error) else ""
            results.append((number, "failed", f"{type(error).__name__}: {first}"[:240]))
        else:
            results.append((number, "passed", ""))
    return results


if __name__ == "__main__":
    page_path, run_mode = sys.argv[1], sys.argv[2]
    print(json.dumps(run_page(page_path, run_mode)))
