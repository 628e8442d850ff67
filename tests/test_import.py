"""Importing zarrforge must not import any plugin."""

import pickle
import subprocess
import sys

import zarrforge as zf


def test_import_zarrforge_imports_no_plugin_module():
    code = (
        "import sys, zarrforge; "
        "print(sorted(m for m in sys.modules if m.startswith('zarrforge_') or m == 'numcodecs'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_using_an_array_imports_only_what_its_metadata_names():
    code = (
        "import sys, zarrforge as zf; "
        "a = zf.create_array(None, shape=(3,), dtype='int8', compressors=None); a[:] = 1; "
        "print(sorted(m for m in sys.modules if m.startswith('zarrforge_')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = eval(out.stdout.strip())
    assert "zarrforge_numcodecs" not in " ".join(loaded)
    assert "zarrforge_std.data_types" in loaded


def test_a_node_pickled_here_unpickles_in_a_fresh_interpreter(tmp_path):
    """``import zarrforge`` loads the node classes lazily: a pickled array (a dask task's
    argument), a staged handle with a shape no document holds yet, and a group unpickle in
    a process that imported nothing of zarrforge (it failed with KeyError 'array')."""
    array = zf.create_array(str(tmp_path / "d.zarr"), "a", shape=(4,), dtype="int8", fill_value=3)
    staged = array._with_shape((6,))
    group = zf.open_group(str(tmp_path / "d.zarr"), mode="r")
    (tmp_path / "nodes.pkl").write_bytes(pickle.dumps([array, staged, group]))
    code = (
        "import pickle, sys\n"
        f"a, s, g = pickle.loads(open({str(tmp_path / 'nodes.pkl')!r}, 'rb').read())\n"
        "print(a[...].tolist(), s.shape, sorted(g.array_keys()))"
    )
    assert _fresh_interpreter(code) == "[3, 3, 3, 3] (6,) ['a']"


def test_a_group_opened_through_the_hierarchy_api_in_a_fresh_interpreter(tmp_path):
    """The node classes register themselves when their modules are imported, which
    ``import zarrforge`` no longer does: opening through ``zarrforge.hierarchy_api`` (as
    the command line does) failed with KeyError 'group'."""
    zf.create_group(str(tmp_path / "g.zarr")).create_array("a", shape=(2,), dtype="int8")
    code = (
        "import zarrforge.hierarchy_api as api\n"
        f"g = api.open_node({str(tmp_path / 'g.zarr')!r}, '')\n"
        "print(type(g).__name__, type(g['a']).__name__)"
    )
    assert _fresh_interpreter(code) == "Group Array"


def _fresh_interpreter(code: str) -> str:
    """What ``code`` prints, run in a new Python process (nothing of zarrforge imported)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()
