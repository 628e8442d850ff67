"""The ``zarr2:`` format segment (this plugin's) against the URL adapter conformance suite."""

from __future__ import annotations

from zarrforge.testing import PipelineCase, URLAdapterConformance


class TestZarr2Segment(URLAdapterConformance):
    scheme = "zarr2"
    invalid_bodies = ["a//b", "../up", "x?query", "%ZZ"]

    def pipelines(self, tmp_path):
        return [
            PipelineCase(f"memory:zarr2-{tmp_path.name}|zarr2:"),
            PipelineCase(f"file:{tmp_path}/v2.zarr|zarr2:g"),
        ]
