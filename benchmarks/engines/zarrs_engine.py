"""zarrs-python: zarr-python 3 with the Rust codec pipeline of the ``zarrs`` package.

The same calls as :mod:`benchmarks.engines.zarr_python_engine`, with zarr-python's
codec pipeline set to ``zarrs.ZarrsCodecPipeline`` (zarrs-python's documented way in).
zarrs needs a newer zarr-python than the benchmark environment's Python has, so the
driver runs this engine's children with the interpreter named by
``$ZARRFORGE_BENCH_ZARRS_PYTHON`` (``make bench`` builds one); see
:data:`benchmarks.engines.INTERPRETERS`.

``Engine(threads=N)`` (the thread sweep) sets ``threading.max_workers`` to N (zarrs reads it
as its ``num_threads``, the concurrency target of its Rust codec pipeline, and zarr-python
sizes its own pool with it) and ``codec_pipeline.chunk_concurrent_maximum`` to N (the most
chunks zarrs handles at once), with ``codec_pipeline.chunk_concurrent_minimum`` at
``min(4, N)`` (4 is its default; kept no larger than the maximum). These are the names the
installed ``zarrs/pipeline.py`` reads when it makes a ``CodecPipelineImpl``. It also sets
zarr-python 3.4's ``codec_pipeline.max_workers`` to N, the pool of the Python pipeline that
zarrs falls back to for what it cannot do.
"""

from __future__ import annotations

from typing import Any

import zarr
import zarrs  # noqa: F401  # the pipeline below is looked up by name; fail here if absent

from .zarr_python_engine import Engine as ZarrPythonEngine

zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})


class Engine(ZarrPythonEngine):
    name = "zarrs-python"

    def __init__(self, threads: int | None = None) -> None:
        super().__init__(threads)
        if threads is not None:
            zarr.config.set(
                {
                    "codec_pipeline.chunk_concurrent_maximum": threads,
                    "codec_pipeline.chunk_concurrent_minimum": min(4, threads),
                    # zarr-python 3.4's own pool for its Python codec pipeline, which
                    # zarrs falls back to for what it cannot do itself
                    "codec_pipeline.max_workers": threads,
                }
            )

    def configuration(self) -> dict[str, Any]:
        import importlib.metadata as metadata

        # "threads": what zarrs passes as num_threads (None: the Rust side's default, the
        # CPUs); "codec_pipeline" holds the chunk_concurrent_* bounds when set.
        base = super().configuration()
        return {
            **base,
            "zarrs": metadata.version("zarrs"),
            "threads": zarr.config.get("threading.max_workers"),
            "python_pool_threads": base["threads"],
        }
