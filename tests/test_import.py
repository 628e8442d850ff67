"""Importing zarrforge must not import any plugin."""

import subprocess
import sys


def test_import_zarrforge_imports_no_plugin_module():
    code = ("import sys, zarrforge; "
            "print(sorted(m for m in sys.modules if m.startswith('zarrforge_') or m == 'numcodecs'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_using_an_array_imports_only_what_its_metadata_names():
    code = ("import sys, zarrforge as zf; "
            "a = zf.create_array(None, shape=(3,), dtype='int8', compressors=None); a[:] = 1; "
            "print(sorted(m for m in sys.modules if m.startswith('zarrforge_')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = eval(out.stdout.strip())
    assert "zarrforge_numcodecs" not in " ".join(loaded)
    assert "zarrforge_std.data_types" in loaded
