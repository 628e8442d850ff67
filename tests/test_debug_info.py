"""zarrforge.print_debug_info (zarrforge.user_api.debug_info): versions for a bug report."""

from __future__ import annotations

import importlib_metadata

import zarrforge
from zarrforge.user_api import debug_info


def test_it_names_zarrforge_its_plugins_and_the_libraries(capsys, monkeypatch):
    monkeypatch.setattr(debug_info, "LIBRARIES", ("numpy", "no-such-library-zarrforge"))
    zarrforge.print_debug_info()
    out = capsys.readouterr().out
    assert f"zarrforge: {zarrforge.__version__}" in out
    assert f"zarrforge-std: {importlib_metadata.version('zarrforge-std')}" in out
    assert f"numpy: {importlib_metadata.version('numpy')}" in out
    assert out.rstrip().endswith("**Not Installed:**\nno-such-library-zarrforge")


def test_a_third_party_plugin_is_listed_as_a_plugin():
    names = [name for name, _ in debug_info.plugin_distributions()]
    assert "zarrforge-example-thirdparty" in names and "numpy" not in names
