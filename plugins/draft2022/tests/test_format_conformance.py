"""The 2022 editor's draft of v3 against the format conformance suite."""

from __future__ import annotations

from zarrforge.testing import FormatConformance


class TestDraft2022Format(FormatConformance):
    format_name = "draft-2022"

    def document_keys(self, path):
        return [f"meta/root/{path}.array.json"]
