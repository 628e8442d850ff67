"""zarrforge-extensions against the conformance kit's generic extension suite."""

from __future__ import annotations

from zarrforge.testing import ExtensionConformance


class TestOffset(ExtensionConformance):
    extension_documents = [
        {"name": "zarrforge.offset", "configuration": {"offset": [2, -1]}},
        {"name": "zarrforge.offset", "configuration": {"offset": [0, 0]}},
    ]
    invalid_extension_documents = [
        ({"name": "zarrforge.offset", "configuration": {"offset": "2"}}, "configuration.offset"),
        ({"name": "zarrforge.offset", "configuration": {}}, "configuration"),
    ]
    max_examples = 40


class TestArrayStatistics(ExtensionConformance):
    extension_documents = [
        {"name": "zarrforge.array-statistics", "configuration": {"min": None, "max": None, "count": 0}},
        {"name": "zarrforge.array-statistics", "configuration": {"min": -3, "max": 9, "count": 7}},
    ]
    invalid_extension_documents = [
        (
            {"name": "zarrforge.array-statistics", "configuration": {"min": None, "max": None, "count": -1}},
            "configuration.count",
        ),
        (
            {"name": "zarrforge.array-statistics", "configuration": {"min": "low", "max": None, "count": 0}},
            "configuration.min",
        ),
    ]
    max_examples = 25
