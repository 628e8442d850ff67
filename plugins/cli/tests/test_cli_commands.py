"""The zarrforge command, end to end.

Most tests run the command in this process, through click's test runner (``run``): the
same ``main`` with its arguments, environment, standard input and output, without the
second or so each new interpreter takes to start and load the plugins. The tests of the
installed console script itself, of what it does when --traceback shows a failure, of
a piped and of a terminal's output run it in a subprocess (``run_script``), as the
packaging tests do from a fresh install (tests/test_packaging.py).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import zarrforge as zf

SCRIPT = pathlib.Path(sys.executable).with_name("zarrforge")
assert SCRIPT.exists(), f"the zarrforge command is not installed at {SCRIPT}"


TERMINAL_VARIABLES = ("TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE")


def run_script(
    *args: str, env: dict[str, str] | None = None, cwd: str | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """The installed console script, in a subprocess."""
    full_env = {k: v for k, v in os.environ.items() if k not in TERMINAL_VARIABLES}
    full_env.update({"COLUMNS": "200", **(env or {})})
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, env=full_env, cwd=cwd, input=stdin, timeout=120
    )


def run(
    *args: str, env: dict[str, str] | None = None, cwd: str | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """The command's ``main`` in this process (see the module docstring); its exit code and
    outputs as a subprocess would give them."""
    from click.testing import CliRunner

    from zarrforge_cli.main import cli

    variables: dict[str, str | None] = dict.fromkeys(TERMINAL_VARIABLES)
    variables.update({"COLUMNS": "200", **(env or {})})
    previous = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = CliRunner().invoke(cli, list(args), input=stdin, env=variables, prog_name="zarrforge")
    finally:
        os.chdir(previous)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a bug: the traceback, here, not a bare exit code 1
    return subprocess.CompletedProcess(["zarrforge", *args], result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def hierarchy(tmp_path) -> pathlib.Path:
    path = tmp_path / "data.zarr"
    root = zf.create_group(str(path), attributes={"title": "cli test"})
    t = root.create_array(
        "temperature",
        shape=(40, 60),
        dtype="float32",
        chunks=(10, 20),
        compressors=["gzip", "crc32c"],
        dimension_names=["y", "x"],
        fill_value=float("nan"),
        attributes={"units": "K"},
    )
    t[:20] = np.zeros((20, 60), dtype="float32")  # compresses well; half the chunks written
    s = root.create_array("obs/counts", shape=(64,), dtype="int16", chunks=(4,), shards=(16,))
    s[:] = np.arange(64, dtype="int16")
    root.create_group("obs/empty")
    return path


# --- help, version, usage errors -----------------------------------------------------------


def test_help_lists_builtin_and_contributed_commands():
    result = run_script("--help")  # the installed console script itself
    assert result.returncode == 0
    for name in ("info", "tree", "check", "copy", "consolidate", "plugins", "zom"):
        assert re.search(rf"^\s+{name}\s", result.stdout, re.M), name
    assert "Exit codes: 0 success, 1 problems found" in result.stdout
    assert run("--version").stdout.strip().endswith(zf.__version__)


def test_usage_errors_exit_2(hierarchy):
    assert run("info").returncode == 2
    assert run("no-such-command").returncode == 2
    bad = run("copy", str(hierarchy), "x.zarr", "--chunks", "ten")
    assert bad.returncode == 2 and "--chunks" in bad.stderr
    assert run("copy", str(hierarchy), "x.zarr", "--progress", "loud").returncode == 2


def test_failures_exit_1_with_a_message_and_traceback_on_request(tmp_path):
    missing = run("info", str(tmp_path / "nothing.zarr"))
    assert missing.returncode == 1
    assert "Error: no array or group at path '/'" in missing.stderr
    assert "Traceback" not in missing.stderr
    assert not (tmp_path / "nothing.zarr").exists()
    loud = run_script("--traceback", "info", str(tmp_path / "nothing.zarr"))
    assert loud.returncode == 1 and "Traceback" in loud.stderr


# --- info and tree -------------------------------------------------------------------------


def test_info_of_an_array(hierarchy):
    result = run("info", str(hierarchy), "--path", "temperature", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["format"] == "3" and report["shape"] == [40, 60]
    assert report["dtype"] == "float32" and report["chunks"] == [10, 20]
    assert report["shards"] is None and report["nchunks"] == 12
    assert report["chunks_written"] == 6
    assert report["fill_value"] == "NaN"
    assert [c["name"] for c in report["codecs"]] == ["bytes", "gzip", "crc32c"]
    stored = sum(p.stat().st_size for p in (hierarchy / "temperature" / "c").rglob("*") if p.is_file())
    assert report["stored_bytes"] == stored
    assert report["raw_bytes"] == 6 * 10 * 20 * 4
    assert report["compression_ratio"] == round(4800 / stored, 3) and report["compression_ratio"] > 5

    text = run("info", str(hierarchy / "temperature"))
    assert text.returncode == 0
    for fragment in (
        "Format             Zarr v3",
        "Chunks written     6 of 12 (50.0%)",
        '{"name": "gzip", "configuration": {"level": 5}}',
        "Compression ratio",
        'Dimension names    ["y", "x"]',
        'Fill value         "NaN"',
    ):
        assert fragment in text.stdout, fragment


def test_info_of_a_sharded_array_and_a_group(hierarchy):
    report = json.loads(run("info", str(hierarchy), "--path", "obs/counts", "--json").stdout)
    assert report["chunks"] == [4] and report["shards"] == [16]
    assert report["nchunks"] == 4 and report["chunks_written"] == 4
    group = run("info", str(hierarchy))
    assert group.returncode == 0
    assert "Type                   group" in group.stdout
    assert "Below it               2 arrays, 2 groups" in group.stdout


def test_info_shows_storage_transformers(tmp_path):
    transformer = {
        "name": "https://purl.org/zarr/spec/storage_transformers/sharding/1.0",
        "configuration": {"type": "indexed", "chunks_per_shard": [2]},
    }
    path = tmp_path / "t.zarr"
    zf.create_array(str(path), shape=(8,), chunks=(2,), dtype="int8", storage_transformers=[transformer])[
        :
    ] = 1
    report = json.loads(run("info", str(path), "--json").stdout)
    assert report["storage_transformers"] == [transformer]
    text = run("info", str(path)).stdout
    assert re.search(
        r"^Storage transformers +\{\"name\": \"https://purl.org/zarr/spec/"
        r"storage_transformers/sharding/1.0\", \"configuration\"",
        text,
        re.M,
    ), text
    zf.create_array(str(tmp_path / "plain.zarr"), shape=(2,), dtype="i1")
    plain = run("info", str(tmp_path / "plain.zarr"))
    assert (
        json.loads(run("info", str(tmp_path / "plain.zarr"), "--json").stdout)["storage_transformers"] == []
    )
    assert "Storage transformers" not in plain.stdout and plain.returncode == 0


def test_info_of_an_array_without_one_chunk_shape_reports_its_grid(tmp_path):
    grid = {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[2, 3]]}}
    zf.create_array(str(tmp_path / "r.zarr"), shape=(5,), dtype="int8", chunks=grid)
    result = run("info", str(tmp_path / "r.zarr"), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["chunks"] == grid


def test_tree(hierarchy):
    result = run("tree", str(hierarchy))
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "/"
    assert any(re.search(r"[└├]── obs$", line) for line in lines)
    assert any("counts (64,) int16" in line for line in lines)
    assert any("temperature (40, 60) float32" in line for line in lines)
    shallow = run("tree", str(hierarchy), "--depth", "1").stdout
    assert "counts" not in shallow and "obs" in shallow
    document = json.loads(run("tree", str(hierarchy), "--json").stdout)
    assert document["members"]["obs"]["members"]["counts"] == {
        "node_type": "array",
        "shape": [64],
        "dtype": "int16",
    }


# --- check ---------------------------------------------------------------------------------


def test_check_a_sound_hierarchy(hierarchy):
    shallow = run("check", str(hierarchy))
    assert shallow.returncode == 0 and "checked 5 nodes: no problems" in shallow.stdout
    deep = run("check", str(hierarchy), "--deep")
    assert deep.returncode == 0 and "checked 5 nodes and 10 chunks: no problems" in deep.stdout


def test_check_lists_every_problem_with_its_key(hierarchy):
    chunk = hierarchy / "temperature" / "c" / "1" / "2"
    data = bytearray(chunk.read_bytes())
    data[5] ^= 0xFF
    chunk.write_bytes(bytes(data))
    shard = hierarchy / "obs" / "counts" / "c" / "2"
    shard.write_bytes(shard.read_bytes()[:-3])
    (hierarchy / "broken").mkdir()
    (hierarchy / "broken" / "zarr.json").write_text('{"zarr_format": 3, "node_type": ')
    document = json.loads((hierarchy / "temperature" / "zarr.json").read_text())
    document["codecs"][1] = {"name": "lz5"}
    (hierarchy / "unknown").mkdir()
    (hierarchy / "unknown" / "zarr.json").write_text(json.dumps(document))
    document["codecs"][1] = {"name": "gzip", "configuration": {"level": 5}}
    document["codecs"].append({"name": "future-checksum", "must_understand": False})
    (hierarchy / "skippable").mkdir()
    (hierarchy / "skippable" / "zarr.json").write_text(json.dumps(document))

    shallow = run("check", str(hierarchy))
    assert shallow.returncode == 1
    assert re.search(r"^error: broken/zarr.json: not valid JSON", shallow.stdout, re.M)
    assert re.search(r"^error: unknown/zarr.json: .*unknown codec 'lz5'", shallow.stdout, re.M)
    assert re.search(r"^warning: /skippable: .*future-checksum", shallow.stdout, re.M)
    assert "temperature/c/1/2" not in shallow.stdout
    assert "checked 8 nodes: 2 errors, 1 warning" in shallow.stdout

    deep = run("check", str(hierarchy), "--deep", "--json")
    assert deep.returncode == 1
    report = json.loads(deep.stdout)
    keys = {(p["severity"], p["key"]) for p in report["problems"]}
    assert keys == {
        ("error", "broken/zarr.json"),
        ("error", "unknown/zarr.json"),
        ("warning", "/skippable"),
        ("error", "temperature/c/1/2"),
        ("error", "obs/counts/c/2"),
    }
    by_key = {p["key"]: p["message"] for p in report["problems"]}
    assert "ChecksumError" in by_key["temperature/c/1/2"]
    assert report["errors"] == 4 and report["warnings"] == 1


def test_check_only_warnings_exits_0(hierarchy):
    document = json.loads((hierarchy / "temperature" / "zarr.json").read_text())
    document["codecs"].append({"name": "future-checksum", "must_understand": False})
    (hierarchy / "temperature" / "zarr.json").write_text(json.dumps(document))
    result = run("check", str(hierarchy))
    assert result.returncode == 0 and "0 errors, 1 warning" in result.stdout


def _with_optional_extensions(hierarchy) -> None:
    document = json.loads((hierarchy / "temperature" / "zarr.json").read_text())
    document["extensions"] = [
        {"name": "acme.provenance", "configuration": {"by": "x"}, "must_understand": False}
    ]
    document["acme.note"] = {"must_understand": False}
    (hierarchy / "temperature" / "zarr.json").write_text(json.dumps(document))


def test_check_warns_about_ignored_optional_extensions_and_fields(hierarchy):
    """Before: a node whose extension or field readers silently ignore checked clean."""
    _with_optional_extensions(hierarchy)
    result = run("check", str(hierarchy))
    assert result.returncode == 0, result.stderr
    assert (
        "warning: /temperature: extension 'acme.provenance' is not installed and is "
        "ignored (must_understand: false)"
    ) in result.stdout
    assert "warning: /temperature: field 'acme.note' is not understood and is ignored" in result.stdout
    assert "0 errors, 2 warnings" in result.stdout


def test_info_shows_the_extensions(hierarchy):
    """Before: info left an array's extensions out."""
    _with_optional_extensions(hierarchy)
    report = json.loads(run("info", str(hierarchy), "--path", "temperature", "--json").stdout)
    assert report["extensions"] == [
        {
            "extension": {"name": "acme.provenance", "configuration": {"by": "x"}, "must_understand": False},
            "ignored": "not installed; must_understand is false",
        }
    ]
    assert report["ignored_fields"] == ["acme.note"]
    table = run("info", str(hierarchy), "--path", "temperature").stdout
    assert re.search(r"^Extensions\s+\{\"extension\": \{\"name\": \"acme.provenance\"", table, re.M)
    assert re.search(r"^Ignored fields\s+acme.note", table, re.M)
    plain = json.loads(run("info", str(hierarchy), "--path", "obs/counts", "--json").stdout)
    assert plain["extensions"] == [] and plain["ignored_fields"] == []


def test_check_stale_consolidated_metadata(hierarchy):
    zf.consolidate_metadata(str(hierarchy))
    assert run("check", str(hierarchy)).returncode == 0
    shutil.rmtree(hierarchy / "obs" / "empty")
    (hierarchy / "late").mkdir()
    (hierarchy / "late" / "zarr.json").write_text(
        json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}})
    )
    result = run("check", str(hierarchy))
    assert result.returncode == 1
    assert "error: zarr.json: consolidated metadata lists '/obs/empty', which does not exist" in result.stdout
    assert "error: zarr.json: '/late' is missing from the consolidated metadata" in result.stdout


def _killed_while_marked(store_path: pathlib.Path, path: str, operation: str) -> None:
    """The state a write killed inside its marked block leaves: its marker stays."""
    from zarrforge.hierarchy_api import marking_unfinished, resolve_store

    with marking_unfinished(resolve_store(str(store_path)), path, operation) as mark:
        mark.keep()


def test_check_reports_unfinished_write_markers(hierarchy):
    """Before: a killed write's marker checked clean."""
    _killed_while_marked(hierarchy, "obs", "to_zarr adding 'wind'")
    _killed_while_marked(hierarchy, "new/deep", "create_array")  # no node written there yet
    result = run("check", str(hierarchy))
    assert result.returncode == 1
    assert re.search(
        r"^error: obs/__zarrforge_unfinished.json: '/obs' holds what an unfinished "
        r"write \(\"to_zarr adding 'wind'\" by process \d+",
        result.stdout,
        re.M,
    )
    assert "Run the same write again" in result.stdout and "overwrite=True" in result.stdout
    assert re.search(
        r"^error: new/deep/__zarrforge_unfinished.json: '/new/deep' holds what an "
        r"unfinished write \('create_array'",
        result.stdout,
        re.M,
    )
    assert "checked 5 nodes: 2 errors, 0 warnings" in result.stdout
    report = json.loads(run("check", str(hierarchy), "--json").stdout)
    assert {(p["severity"], p["key"]) for p in report["problems"]} == {
        ("error", "obs/__zarrforge_unfinished.json"),
        ("error", "new/deep/__zarrforge_unfinished.json"),
    }
    repaired = run("check", str(hierarchy), "--repair")  # never removes a marker
    assert repaired.returncode == 1 and (hierarchy / "obs" / "__zarrforge_unfinished.json").exists()
    only = run("check", str(hierarchy), "--path", "new")  # no node there: the marker is found
    assert only.returncode == 1 and "error: new/deep/__zarrforge_unfinished.json" in only.stdout


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_check_reports_and_repairs_chunks_outside_the_shape(tmp_path, zarr_format):
    """Before: chunks a killed append left beyond the shape checked clean, and stayed."""
    path = tmp_path / "grown.zarr"
    a = zf.create_array(str(path), "a", shape=(10, 4), chunks=(2, 2), dtype="i4", zarr_format=zarr_format)
    a[:] = np.arange(40, dtype="i4").reshape(10, 4)
    staged = a.stage_resize(16, 4)  # an append killed before it committed its shape
    staged.array[10:] = 7
    outside = [a.chunk_key((row, col)) for row in (5, 6, 7) for col in (0, 1)]
    assert all(s.exists(k) for s in [a.store] for k in outside)

    result = run("check", str(path))
    assert result.returncode == 0, result.stdout
    assert re.search(
        r"^warning: /a: 6 chunks stored outside its shape \(10, 4\) \(" + re.escape(outside[0]),
        result.stdout,
        re.M,
    )
    assert "check --repair" in result.stdout and "0 errors, 1 warning" in result.stdout

    repaired = run("check", str(path), "--repair", "--json")
    assert repaired.returncode == 0
    report = json.loads(repaired.stdout)
    assert report["warnings"] == 0 and [r["key"] for r in report["repaired"]] == ["/a"]
    assert "removed 6 chunks" in report["repaired"][0]["message"]
    assert not any(a.store.exists(k) for k in outside)
    assert (zf.open_array(str(path), "a", mode="r")[:] == np.arange(40, dtype="i4").reshape(10, 4)).all()
    assert "no problems" in run("check", str(path)).stdout


def test_check_repair_keeps_shards_that_reach_inside_the_shape(hierarchy):
    counts = zf.open_array(str(hierarchy), "obs/counts", mode="r+")
    counts.resize(40)  # shards of 16: shard 2 still holds rows 32..39
    (hierarchy / "obs" / "counts" / "c" / "3").write_bytes(b"left by a killed append")
    result = run("check", str(hierarchy), "--repair")
    assert result.returncode == 0
    assert (
        "repaired: /obs/counts: removed 1 chunk stored outside its shape (40,): "
        "obs/counts/c/3" in result.stdout
    )
    assert sorted(p.name for p in (hierarchy / "obs" / "counts" / "c").iterdir()) == ["0", "1", "2"]
    np.testing.assert_array_equal(
        zf.open_array(str(hierarchy), "obs/counts")[:], np.arange(40, dtype="int16")
    )


# --- copy ----------------------------------------------------------------------------------


@pytest.fixture
def long_array(tmp_path) -> pathlib.Path:
    path = tmp_path / "long.zarr"
    root = zf.create_group(str(path))
    a = root.create_array("series", shape=(200, 32), dtype="int32", chunks=(1, 32))
    a[:] = np.arange(200 * 32, dtype="int32").reshape(200, 32)
    return path


def test_copy_prints_plain_progress_with_increasing_counts(long_array, tmp_path):
    dest = tmp_path / "copy.zarr"
    # one chunk's worth of bytes per step: a progress line per chunk
    result = run("copy", str(long_array), str(dest), "--progress", "plain", "--step-bytes", "1")
    assert result.returncode == 0, result.stderr
    lines = re.findall(
        r"^copy /series: (\d+)/(\d+) chunks, ([\d.]+ \w+) of 25.0 KiB, "
        r"[\d.]+ \w+/s$",
        result.stderr,
        re.M,
    )
    counts = [(int(done), int(total)) for done, total, _ in lines]
    assert len(counts) >= 10
    assert lines[-1][2] == "25.0 KiB"  # 200 x 32 int32: all the bytes at the end
    assert all(total == 200 for _, total in counts)
    done = [d for d, _ in counts]
    assert done == sorted(done) and len(set(done)) == len(done) and done[-1] == 200
    assert "copied / to" in result.stdout and "1 array, 1 group" in result.stdout
    np.testing.assert_array_equal(
        zf.open_array(str(dest), "series")[:], zf.open_array(str(long_array), "series")[:]
    )
    # auto is plain when standard error is not a terminal
    auto = run("copy", str(long_array), str(tmp_path / "auto.zarr"))
    assert auto.returncode == 0 and "copy /series: 200/200 chunks, 25.0 KiB" in auto.stderr


def test_copy_rich_progress(long_array, tmp_path):
    result = run("copy", str(long_array), str(tmp_path / "rich.zarr"), "--progress", "rich")
    assert result.returncode == 0
    assert "copy /series" in result.stderr
    assert re.search(r"200/200 chunks, 25.0 KiB of 25.0 KiB, [\d.]+ \w+/s", result.stderr)
    live = run(
        "copy",
        str(long_array),
        str(tmp_path / "live.zarr"),
        "--progress",
        "rich",
        env={"TTY_COMPATIBLE": "1"},
    )
    assert live.returncode == 0 and "\x1b[" in live.stderr and "200/200" in live.stderr


def test_copy_converts_format_chunks_shards_and_compressor(hierarchy, tmp_path):
    v2 = tmp_path / "v2.zarr"
    result = run(
        "copy",
        str(hierarchy),
        str(v2),
        "--format",
        "2",
        "--shards",
        "none",
        "--compressor",
        "zstd:level=3",
        "--progress",
        "none",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # --progress none
    assert (v2 / ".zgroup").exists() and (v2 / "temperature" / ".zarray").exists()
    zarray = json.loads((v2 / "temperature" / ".zarray").read_text())
    assert zarray["compressor"] == {"id": "zstd", "level": 3}
    counts = zf.open_array(str(v2), "obs/counts")
    assert counts.chunks == (4,) and counts.shards is None
    np.testing.assert_array_equal(counts[:], np.arange(64))

    resharded = tmp_path / "sharded.zarr"
    result = run(
        "copy",
        str(hierarchy),
        str(resharded),
        "--src-path",
        "temperature",
        "--dst-path",
        "t",
        "--chunks",
        "5,10",
        "--shards",
        "20,20",
        "--compressor",
        "none",
        "--progress",
        "none",
    )
    assert result.returncode == 0, result.stderr
    t = zf.open_array(str(resharded), "t")
    assert t.chunks == (5, 10) and t.shards == (20, 20)
    assert [c["name"] for c in t.metadata["codecs"][0]["configuration"]["codecs"]] == ["bytes"]
    source = zf.open_array(str(hierarchy), "temperature")[:]
    np.testing.assert_array_equal(t[:], source)


def test_copy_refuses_an_existing_destination(hierarchy, tmp_path):
    dest = tmp_path / "dest.zarr"
    assert run("copy", str(hierarchy), str(dest), "--progress", "none").returncode == 0
    again = run("copy", str(hierarchy), str(dest), "--progress", "none")
    assert again.returncode == 1 and "already exists" in again.stderr
    assert run("copy", str(hierarchy), str(dest), "--overwrite", "--progress", "none").returncode == 0
    impossible = run("copy", str(hierarchy), str(tmp_path / "v2.zarr"), "--format", "2", "--progress", "none")
    assert impossible.returncode == 1  # sharding cannot be stored in Zarr v2
    assert "obs/counts" in impossible.stderr
    assert not (tmp_path / "v2.zarr").exists()


# --- zom -----------------------------------------------------------------------------------


def test_zom_dump_apply_validate(hierarchy, tmp_path):
    spec = tmp_path / "spec.json"
    dumped = run("zom", "dump", str(hierarchy), "-o", str(spec))
    assert dumped.returncode == 0
    document = json.loads(spec.read_text())
    assert document["members"]["temperature"]["data_type"] == "float32"
    assert run("zom", "validate", str(spec)).returncode == 0
    assert run("zom", "validate", str(spec), str(hierarchy)).returncode == 0

    target = tmp_path / "fresh.zarr"
    applied = run("zom", "apply", str(spec), str(target))
    assert applied.returncode == 0 and "created 5 nodes" in applied.stdout
    assert run("zom", "apply", str(spec), str(target)).returncode == 1
    assert run("zom", "apply", str(spec), str(target), "--overwrite").returncode == 0
    assert run("zom", "diff", str(spec), str(target)).returncode == 0

    root = zf.open_group(str(target), mode="r+")
    root["temperature"].attrs["extra"] = 1
    del root["obs/empty"]
    result = run("zom", "validate", str(spec), str(target))
    assert result.returncode == 1
    assert "/temperature: attributes.extra not in the model (found 1)" in result.stdout
    assert "/obs/empty: group missing (expected by the model)" in result.stdout
    as_json = json.loads(run("zom", "validate", str(spec), str(target), "--json").stdout)
    assert {(d["path"], d["kind"]) for d in as_json} == {("/temperature", "extra"), ("/obs/empty", "missing")}

    document["members"]["temperature"]["shape"] = "wide"
    spec.write_text(json.dumps(document))
    bad = run("zom", "validate", str(spec))
    assert bad.returncode == 1 and "/temperature shape" in bad.stderr
    piped = run(
        "zom",
        "validate",
        "-",
        stdin=json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}, "members": {}}),
    )
    assert piped.returncode == 0
    schema = json.loads(run("zom", "schema", "--format", "2", "--verbatim").stdout)
    assert "attributess" in schema["definitions"]["Array"]["required"]


# --- plugins -------------------------------------------------------------------------------


def test_plugins_lists_the_registry(hierarchy):
    result = run("plugins", "--json")
    rows = json.loads(result.stdout)
    points = {(r["point"], r["name"]) for r in rows}
    assert {("formats", "3"), ("codecs", "bytes"), ("stores", "file"), ("cli", "zom")} <= points
    zom_row = next(r for r in rows if r["point"] == "cli" and r["name"] == "zom")
    assert zom_row["distribution"] == "zarrforge-zom" and zom_row["status"] == "ok"
    failing = [r for r in rows if not r["status"].startswith("ok")]
    assert result.returncode == (1 if failing else 0)
    table = run("plugins")
    assert re.search(
        r"^cli\s+zom\s+zarrforge-zom\s+" + re.escape(zf.__version__) + r"\s+zarrforge_zom\.cli:zom\s+ok",
        table.stdout,
        re.M,
    )
    assert re.search(
        r"^codecs\s+bytes\s+zarrforge-std\s+" + re.escape(zf.__version__) + r"\s+"
        r"zarrforge_std\.codecs:BytesCodec\s+ok",
        table.stdout,
        re.M,
    )
    expected = {(r.point, r.name) for r in zf.plugins()}
    assert expected <= points


# --- consolidate ----------------------------------------------------------------------------


def test_consolidate_writes_and_removes_the_view(hierarchy):
    done = run("consolidate", str(hierarchy))
    assert done.returncode == 0 and "consolidated 4 nodes into /" in done.stdout
    assert zf.open_group(str(hierarchy)).metadata_model.consolidated is not None
    removed = run("consolidate", str(hierarchy), "--remove")
    assert removed.returncode == 0 and "removed the consolidated view of /" in removed.stdout
    assert zf.open_group(str(hierarchy)).metadata_model.consolidated is None
    assert zf.open_group(str(hierarchy)).attrs["title"] == "cli test"


def test_consolidate_remove_repairs_a_root_too_large_to_open(hierarchy):
    # a root written by another tool: its view (one member with 65 MiB of attributes) puts
    # zarr.json over the 64 MiB limit readers apply: the group opens without its view
    # (members read from the store), with the repair named
    document = json.loads((hierarchy / "zarr.json").read_text())
    big = json.loads((hierarchy / "temperature" / "zarr.json").read_text())
    big["attributes"] = {"history": "x" * (65 << 20)}
    document["consolidated_metadata"] = {
        "kind": "inline",
        "must_understand": False,
        "metadata": {"temperature": big},
    }
    (hierarchy / "zarr.json").write_text(json.dumps(document))
    unused = run("info", str(hierarchy))
    assert unused.returncode == 0, unused.stderr
    assert "max_document_bytes" in unused.stderr and "consolidate --remove" in unused.stderr
    repaired = run("consolidate", str(hierarchy), "--remove")
    assert repaired.returncode == 0, repaired.stderr
    assert (hierarchy / "zarr.json").stat().st_size < 10_000
    assert run("info", str(hierarchy)).returncode == 0
    assert zf.open_group(str(hierarchy))["temperature"].attrs["units"] == "K"


# --- issue #34: what a user of the command line found -----------------------------------


def _break_two_children(hierarchy) -> None:
    (hierarchy / "broken").mkdir()
    (hierarchy / "broken" / "zarr.json").write_text('{"zarr_format": 3, "node_type": ')
    document = json.loads((hierarchy / "temperature" / "zarr.json").read_text())
    document["codecs"][1] = {"name": "lz5"}
    (hierarchy / "obs" / "unknown").mkdir()
    (hierarchy / "obs" / "unknown" / "zarr.json").write_text(json.dumps(document))


def test_tree_marks_a_broken_child_and_goes_on(hierarchy):
    """Before: tree stopped at the first child it could not open."""
    _break_two_children(hierarchy)
    result = run("tree", str(hierarchy))
    assert result.returncode == 1
    assert re.search(r"broken broken: MetadataError: .*not valid JSON", result.stdout)
    assert re.search(r"unknown broken: UnknownExtensionError: .*unknown codec 'lz5'", result.stdout)
    # the siblings after each broken node are still shown
    assert "temperature (40, 60) float32" in result.stdout
    assert "counts (64,) int16" in result.stdout and "empty" in result.stdout
    assert "2 nodes could not be opened (marked broken)" in result.stderr
    document = json.loads(run("tree", str(hierarchy), "--json").stdout)
    assert document["members"]["broken"]["node_type"] == "broken"
    assert "lz5" in document["members"]["obs"]["members"]["unknown"]["error"]
    assert document["members"]["temperature"]["node_type"] == "array"


def test_hints_name_the_flags(hierarchy, tmp_path):
    """Before: "pass overwrite=True (or mode='w')", advice for Python."""
    dest = tmp_path / "dest.zarr"
    assert run("copy", str(hierarchy), str(dest), "--progress", "none").returncode == 0
    again = run("copy", str(hierarchy), str(dest), "--progress", "none")
    assert again.returncode == 1
    assert "already exists at '/'; pass --overwrite to replace it" in again.stderr
    assert "overwrite=True" not in again.stderr and "mode=" not in again.stderr
    spec = tmp_path / "spec.json"
    assert run("zom", "dump", str(hierarchy), "-o", str(spec)).returncode == 0
    applied = run("zom", "apply", str(spec), str(dest))
    assert applied.returncode == 1 and "pass --overwrite to replace" in applied.stderr


def test_copy_to_v2_of_two_compressors_names_the_flag(tmp_path):
    """Before: "byte filters such as checksums may go in filters=", which the command line
    has no option for."""
    source = tmp_path / "two.zarr"
    zf.create_array(str(source), shape=(4,), dtype="int8", compressors=["gzip", "crc32c"])
    refused = run("copy", str(source), str(tmp_path / "v2.zarr"), "--format", "2", "--progress", "none")
    assert refused.returncode == 1
    assert "pass one --compressor" in refused.stderr and "filters=" not in refused.stderr
    copied = run(
        "copy",
        str(source),
        str(tmp_path / "v2.zarr"),
        "--format",
        "2",
        "--compressor",
        "gzip",
        "--progress",
        "none",
    )
    assert copied.returncode == 0, copied.stderr


def test_copy_of_sharded_data_to_v2_names_the_field_once_and_suggests_shards_none(hierarchy, tmp_path):
    result = run("copy", str(hierarchy), str(tmp_path / "v2.zarr"), "--format", "2", "--progress", "none")
    assert result.returncode == 1
    assert result.stderr.count("field 'serializer'") == 1, result.stderr
    assert "cannot copy '/obs/counts' to format '2'" in result.stderr
    assert "pass --shards none to copy it unsharded" in result.stderr


def test_zom_diff_prints_the_count(hierarchy, tmp_path):
    spec = tmp_path / "spec.json"
    assert run("zom", "dump", str(hierarchy), "-o", str(spec)).returncode == 0
    assert run("zom", "diff", str(spec), str(hierarchy)).stdout.strip() == "the models are equal"
    root = zf.open_group(str(hierarchy), mode="r+")
    root.attrs["added"] = 1
    root["temperature"].attrs["units"] = "C"
    result = run("zom", "diff", str(spec), str(hierarchy))
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == "2 differences"


def test_difference_messages_keep_the_whole_value(hierarchy, tmp_path):
    """Before: a long value (a codec list) was cut at 120 characters, mid-value."""
    other = tmp_path / "other.zarr"
    zf.create_group(str(other), attributes={"title": "cli test"}).create_array(
        "temperature",
        shape=(40, 60),
        dtype="float32",
        chunks=(10, 20),
        compressors=[
            {
                "name": "blosc",
                "configuration": {
                    "cname": "zstd",
                    "clevel": 5,
                    "shuffle": "bitshuffle",
                    "typesize": 4,
                    "blocksize": 0,
                },
            }
        ],
        dimension_names=["y", "x"],
        fill_value=float("nan"),
        attributes={"units": "K"},
    )
    result = run("zom", "diff", str(hierarchy / "temperature"), str(other / "temperature"))
    assert result.returncode == 1
    line = next(x for x in result.stdout.splitlines() if x.startswith("/: codecs changed"))
    assert "..." not in line and len(line) > 200
    expected = zf.open_array(str(hierarchy), "temperature").metadata["codecs"]
    found = zf.open_array(str(other), "temperature").metadata["codecs"]
    shown = line.removeprefix("/: codecs changed: expected ")
    before, _, after = shown.partition(", found ")
    assert json.loads(before) == expected and json.loads(after) == found


def test_plugins_fits_100_columns_when_piped():
    """Before: 204 columns when piped."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("COLUMNS", "TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE")
    }
    result = subprocess.run([str(SCRIPT), "plugins"], capture_output=True, text=True, env=env, timeout=120)
    lines = result.stdout.splitlines()
    assert len(lines) > 20
    assert max(len(line) for line in lines) <= 100
    assert "…" not in result.stdout  # long cells are folded, not cut
    assert re.search(r"^cli\s+zom\s+zarrforge-zom\s", result.stdout, re.M)


def test_output_fits_the_terminal():
    import fcntl
    import pty
    import struct
    import termios

    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 72, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    process = subprocess.Popen([str(SCRIPT), "plugins"], stdout=terminal, stderr=subprocess.PIPE, env=env)
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=120)
    os.close(controller)
    text = re.sub(r"\x1b\[[0-9;]*m", "", b"".join(chunks).decode())
    lines = text.splitlines()
    assert len(lines) > 20 and "extension" in text
    assert 60 <= max(len(line.rstrip()) for line in lines) <= 72  # the terminal's width


def test_a_warning_is_one_line_in_the_commands_words(tmp_path):
    """Before: Python's form, with the source file, line and code of core's resolution."""
    path = tmp_path / "skipped.zarr"
    zf.create_array(str(path), shape=(2,), dtype="int8")
    document = json.loads((path / "zarr.json").read_text())
    document["codecs"].insert(0, {"name": "x.unknown", "must_understand": False})
    (path / "zarr.json").write_text(json.dumps(document))
    shown = run("tree", str(path))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stderr.splitlines()
    assert lines == [
        "warning: codecs[0]: codec 'x.unknown' is not installed and says "
        "must_understand: false; it is skipped when reading, and writing to "
        "this array is refused"
    ], shown.stderr
    raw = run_script("--traceback", "tree", str(path))  # Python's own warning form, as shown
    assert "SkippedExtensionWarning" in raw.stderr
