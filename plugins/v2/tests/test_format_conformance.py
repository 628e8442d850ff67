"""The Zarr v2 format against the format conformance suite."""

from __future__ import annotations

from zarrforge.testing import FormatConformance


class TestV2Format(FormatConformance):
    format_name = "2"

    def document_keys(self, path):
        return [f"{path}/.zarray", f"{path}/.zattrs"]
