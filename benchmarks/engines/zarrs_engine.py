"""zarrs-python: zarr-python 3 with the Rust codec pipeline of the ``zarrs`` package.

The same calls as :mod:`benchmarks.engines.zarr_python_engine`, with zarr-python's
codec pipeline set to ``zarrs.ZarrsCodecPipeline`` (zarrs-python's documented way in).
zarrs needs a newer zarr-python than the benchmark environment's Python has, so the
driver runs this engine's children with the interpreter named by
``$ZARRFORGE_BENCH_ZARRS_PYTHON`` (``make bench`` builds one); see
:data:`benchmarks.engines.INTERPRETERS`.
"""

from __future__ import annotations

from typing import Any

import zarr
import zarrs  # noqa: F401  (the pipeline below is looked up by name; fail here if absent)

from .zarr_python_engine import Engine as ZarrPythonEngine

zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})


class Engine(ZarrPythonEngine):
    name = "zarrs-python"

    def configuration(self) -> dict[str, Any]:
        import importlib.metadata as metadata

        return {**super().configuration(), "zarrs": metadata.version("zarrs")}
