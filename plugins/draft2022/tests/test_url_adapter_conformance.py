"""The ``zarr-draft-2022:`` format segment against the URL adapter conformance suite."""

from __future__ import annotations

from zarrforge.testing import PipelineCase, URLAdapterConformance


class TestDraft2022Segment(URLAdapterConformance):
    scheme = "zarr-draft-2022"
    invalid_bodies = ["a//b", "../up", "x?query"]

    def pipelines(self, tmp_path):
        return [
            PipelineCase(f"memory:draft-{tmp_path.name}|zarr-draft-2022:"),
            PipelineCase(f"file:{tmp_path}/d.zarr|zarr-draft-2022:g"),
        ]
