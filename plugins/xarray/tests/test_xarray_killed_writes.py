"""An xarray write killed (SIGKILL) at any point: every node opens and holds the state
before or after, or the leftovers are marked and refused as such.

Each write runs in a forked child on a local directory store
(:mod:`zarrforge.testing.kills`), killed before each of its file writes in turn and
then at random moments, at least :data:`KILLS` times in all:

* a new Dataset (``mode="w-"``) and a new DataTree: afterwards the group is absent, or
  complete, or marked unfinished; writing again with ``mode="w-"`` is refused with an
  :class:`~zarrforge.errors.UnfinishedWriteError` naming ``to_zarr``, and ``mode="w"``
  replaces the leftovers;
* an append along ``time``: each variable holds its old or its new length and values.
  On a local directory the shapes switch in one transaction, so a mixture of old and
  new is possible only in the commit's window, and then the commit record is there
  (``zarrforge.unfinished_commits``) naming the keys;
* a region write: every chunk holds its old or its new values;
* ``mode="w"`` over an existing Dataset and over an existing DataTree: the old data,
  the new, or the root marked (the marker is put down before the erasure and stays
  through it); writing again with ``mode="w-"`` is refused naming the killed
  operation (a node in the way when it finished or never began), ``mode="w"`` replaces;
* ``mode="a"`` adding a variable: the dataset without it, with it whole, or the group
  marked ``to_zarr adding 'wind'``; another write into the group is then refused
  naming it, and the same addition run again writes it anew.

Running the write again gives the right dataset.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import dask
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import zarrforge as zf
import zarrforge_xarray as zx
from zarrforge.errors import ContainsNodeError, UnfinishedWriteError
from zarrforge.testing.kills import every_node_opens_and_reads, killed_after, killed_before_write, writes_made
from zarrforge_std.stores.local import LocalStore

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="killing a forked writer is POSIX"),
    pytest.mark.filterwarnings(
        "ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning", "ignore::RuntimeWarning"
    ),
]

KILLS = 20
SEED = int(os.environ.get("ZARRFORGE_KILL_SEED", str(random.randrange(2**31))))
WRITES = ("_replace", "_unlink")  # the local store's innermost writes: one file each


def climate(start: int, days: int) -> xr.Dataset:
    time_ = pd.date_range("2000-01-01", periods=days, freq="D") + pd.Timedelta(days=start)
    tas = np.arange(days * 4, dtype="float32").reshape(days, 4) + 100 * start
    return xr.Dataset(
        {"tas": (("time", "lat"), tas, {"units": "K"}), "pr": (("time", "lat"), tas * 2)},
        coords={"time": time_, "lat": np.linspace(-10, 10, 4)},
    )


def opened(root: Path, group: str | None = None) -> xr.Dataset:
    return xr.open_dataset(str(root), engine="zarrforge", group=group).load()


def _retry_creation(write, root: Path, operation: str) -> None:
    try:
        write(root, "w-")
    except UnfinishedWriteError as exc:
        assert exc.unfinished.operation == operation, exc
        write(root, "w")
    except ContainsNodeError:
        pass  # not marked: the killed write had finished (checked by state())


def _dataset_state(root: Path, expected: xr.Dataset, group: str | None = None) -> str:
    location = str(root)
    path = group or ""
    try:
        zf.open_group(location, path, mode="r")
    except zf.errors.NodeNotFoundError:
        return "unfinished" if zf.unfinished_write(location, path) else "before"
    marker = zf.unfinished_write(location, path)
    try:
        back = opened(root, group)
    except (ValueError, KeyError, zf.errors.ZarrforgeError):
        assert marker is not None, "a broken dataset without the unfinished-write marker"
        return "unfinished"
    if back.identical(expected) and marker is None:
        return "after"
    assert marker is not None, "an incomplete dataset without the unfinished-write marker"
    return "unfinished"


class NewDataset:
    name = "new Dataset"
    dataset = climate(0, 6)

    def setup(self, root: Path) -> None:
        pass

    def write(self, root: Path, mode: str = "w-") -> None:
        # dask's threaded scheduler cannot run in a forked child (its pool's threads are the
        # parent's): the dask path, computed in the writing thread
        with dask.config.set(scheduler="synchronous"):
            zx.to_zarr(
                self.dataset.chunk({"time": 2}),
                str(root),
                mode=mode,
                encoding={"tas": {"chunks": (2, 2)}, "pr": {"chunks": (2, 2)}},
            )

    def state(self, root: Path) -> str:
        return _dataset_state(root, self.dataset)

    def retry(self, root: Path) -> None:
        _retry_creation(self.write, root, "to_zarr")


class NewDataTree:
    name = "new DataTree"
    tree = xr.DataTree.from_dict(
        {
            "/": xr.Dataset(
                {"elevation": ("lat", np.arange(4.0))},
                coords={"lat": np.linspace(-10, 10, 4)},
                attrs={"title": "t"},
            ),
            "/a": climate(2, 4),
            "/a/b": climate(2, 4) * 2,
        }
    )

    def setup(self, root: Path) -> None:
        pass

    def write(self, root: Path, mode: str = "w-") -> None:
        self.tree.zarrforge.to_zarr(str(root), mode=mode)

    def state(self, root: Path) -> str:
        location = str(root)
        try:
            zf.open_group(location, "", mode="r")
        except zf.errors.NodeNotFoundError:
            return "unfinished" if zf.unfinished_write(location) else "before"
        marker = zf.unfinished_write(location)
        try:
            back = xr.open_datatree(location, engine="zarrforge").load()
            complete = back.identical(self.tree)
        except (ValueError, KeyError, zf.errors.ZarrforgeError):
            complete = False
        if complete and marker is None:
            return "after"
        assert marker is not None, "an incomplete tree without the unfinished-write marker"
        return "unfinished"

    def retry(self, root: Path) -> None:
        _retry_creation(self.write, root, "DataTree.to_zarr")


class Append:
    name = "append along time"
    old, extra = climate(0, 4), climate(4, 3)

    def setup(self, root: Path) -> None:
        zx.to_zarr(self.old, str(root), encoding={"tas": {"chunks": (2, 2)}, "pr": {"chunks": (2, 2)}})

    def write(self, root: Path) -> None:
        zx.to_zarr(self.extra, str(root), append_dim="time")

    def _lengths(self, root: Path) -> dict[str, int]:
        group = zf.open_group(str(root), mode="r", use_consolidated=False)
        return {name: group[name].shape[0] for name in ("tas", "pr", "time")}

    def state(self, root: Path) -> str:
        lengths = self._lengths(root)
        assert set(lengths.values()) <= {4, 7}, lengths
        appended = xr.concat([self.old, self.extra], dim="time")
        # each node as its own document has it, and as the root's consolidated view (which
        # readers use by default, and which the commit switches as one more key) has it
        for use_consolidated in (False, None):
            group = zf.open_group(str(root), mode="r", use_consolidated=use_consolidated)
            for name in ("tas", "pr"):
                values = group[name][...]
                assert values.shape[0] in (4, 7), (name, values.shape)
                expected = (self.old if values.shape[0] == 4 else appended)[name].values
                np.testing.assert_array_equal(values, expected)
        records = zf.unfinished_commits(str(root))
        if len(set(lengths.values())) == 2:
            assert records, f"a mixture of old and new lengths {lengths} and no commit record"
            return "mixed, commit record left"
        if records:
            return "before, commit record left" if lengths["tas"] == 4 else "after, commit record left"
        return "before" if lengths["tas"] == 4 else "after"

    def retry(self, root: Path) -> None:
        lengths = self._lengths(root)
        records = zf.unfinished_commits(str(root))
        if records:
            # the commit was killed: its record names the keys, each old or new (state()
            # checked), and refuses later commits on them until it is cleared. Put the
            # shapes back to the old length, rebuild the consolidated view (the root's
            # document was one of the keys: its view may be the new one), clear the
            # record, and append again.
            group = zf.open_group(str(root), mode="r+", use_consolidated=False)
            for name, length in lengths.items():
                if length == 7:
                    group[name].resize((4, *group[name].shape[1:]))
            for record in records:
                zf.clear_commit_record(str(root), record)
            zf.consolidate_metadata(str(root))
            lengths = self._lengths(root)
        if lengths["tas"] == 4:
            self.write(root)

    def final(self, root: Path) -> None:
        assert opened(root).identical(xr.concat([self.old, self.extra], dim="time"))


class Region:
    name = "region write"
    old = climate(0, 6)

    def setup(self, root: Path) -> None:
        zx.to_zarr(self.old, str(root), encoding={"tas": {"chunks": (2, 2)}, "pr": {"chunks": (2, 2)}})

    def new(self) -> xr.Dataset:
        return (self.old.isel(time=slice(2, 6)) * 0 + 7).drop_vars(["time", "lat"])

    def write(self, root: Path) -> None:
        zx.to_zarr(self.new(), str(root), region={"time": slice(2, 6), "lat": slice(0, 4)})

    def state(self, root: Path) -> str:
        group = zf.open_group(str(root), mode="r")
        fresh = stale = 0
        for name in ("tas", "pr"):
            values, old = group[name][...], self.old[name].values
            np.testing.assert_array_equal(values[:2], old[:2])  # outside the region
            for t in (2, 4):
                for lat in (0, 2):
                    chunk = values[t : t + 2, lat : lat + 2]
                    if np.array_equal(chunk, old[t : t + 2, lat : lat + 2]):
                        stale += 1
                    elif (chunk == 7).all():
                        fresh += 1
                    else:
                        raise AssertionError(f"{name} chunk at ({t}, {lat}) is torn: {chunk}")
        return "after" if stale == 0 else "before" if fresh == 0 else "old or new per chunk"

    def retry(self, root: Path) -> None:
        self.write(root)

    def final(self, root: Path) -> None:
        expected = self.old.copy(deep=True)
        for name in ("tas", "pr"):
            expected[name][2:] = 7
        assert opened(root).identical(expected)


def _retry_replacement(write, root: Path, operation: str) -> None:
    """A replacement run again: first as a creation, which a marked leftover refuses
    naming the killed ``operation`` (finished data, old or new, is a node in the way),
    then with ``mode="w"``."""
    with pytest.raises(ContainsNodeError) as refused:
        write(root, "w-")
    if isinstance(refused.value, UnfinishedWriteError):
        assert refused.value.unfinished.operation == operation, refused.value
    write(root, "w")


def _replacement_state(root: Path, operation: str, reopened, old, new) -> str:
    """What a killed replacement left: ``"unfinished"`` (marked by ``operation``), or,
    unmarked, ``"before"`` or ``"after"`` (``reopened()`` identical to ``old`` or ``new``);
    unmarked data that is neither fails."""
    marker = zf.unfinished_write(str(root))
    if marker is not None:
        assert marker.operation == operation, marker
        return "unfinished"
    back = reopened()
    if back.identical(old):
        return "before"
    assert back.identical(new), "an overwrite left unmarked data neither old nor new"
    return "after"


class OverwriteDataset:
    """``mode="w"`` over an existing Dataset. Before (issue #44): erasing the old group
    took the marker along, so a kill left ``tas`` all NaN and ``pr`` partly new, unmarked."""

    name = "mode w over a Dataset"
    old, dataset = climate(0, 6), climate(50, 6)

    def setup(self, root: Path) -> None:
        zx.to_zarr(self.old, str(root), encoding={"tas": {"chunks": (2, 2)}, "pr": {"chunks": (2, 2)}})

    def write(self, root: Path, mode: str = "w") -> None:
        with dask.config.set(scheduler="synchronous"):
            zx.to_zarr(
                self.dataset.chunk({"time": 2}),
                str(root),
                mode=mode,
                encoding={"tas": {"chunks": (2, 2)}, "pr": {"chunks": (2, 2)}},
            )

    def state(self, root: Path) -> str:
        return _replacement_state(root, "to_zarr", lambda: opened(root), self.old, self.dataset)

    def retry(self, root: Path) -> None:
        _retry_replacement(self.write, root, "to_zarr")


class OverwriteDataTree:
    """``mode="w"`` over an existing DataTree."""

    name = "mode w over a DataTree"
    old = NewDataTree.tree
    tree = xr.DataTree.from_dict(
        {
            "/": xr.Dataset(
                {"elevation": ("lat", np.arange(4.0) + 9)},
                coords={"lat": np.linspace(-10, 10, 4)},
                attrs={"title": "new"},
            ),
            "/a": climate(20, 4),
            "/c": climate(30, 2),
        }
    )

    def setup(self, root: Path) -> None:
        self.old.zarrforge.to_zarr(str(root))

    def write(self, root: Path, mode: str = "w") -> None:
        self.tree.zarrforge.to_zarr(str(root), mode=mode)

    def state(self, root: Path) -> str:
        return _replacement_state(
            root,
            "DataTree.to_zarr",
            lambda: xr.open_datatree(str(root), engine="zarrforge").load(),
            self.old,
            self.tree,
        )

    def retry(self, root: Path) -> None:
        _retry_replacement(self.write, root, "DataTree.to_zarr")


class AddVariable:
    """``mode="a"`` adding a variable to an existing Dataset: the variable is there whole
    or not at all, or the group is marked. Before (issue #44): a failed or killed write
    left the partial variable visible."""

    name = "mode a adding a variable"
    old = climate(0, 4)
    extra = xr.Dataset({"wind": (("time", "lat"), np.arange(16.0).reshape(4, 4) + 0.5)})

    def setup(self, root: Path) -> None:
        zx.to_zarr(self.old, str(root), encoding={"tas": {"chunks": (2, 2)}, "pr": {"chunks": (2, 2)}})

    def write(self, root: Path) -> None:
        with dask.config.set(scheduler="synchronous"):
            zx.to_zarr(
                self.extra.chunk({"time": 1}), str(root), mode="a", encoding={"wind": {"chunks": (1, 2)}}
            )

    def state(self, root: Path) -> str:
        marker = zf.unfinished_write(str(root))
        if marker is not None:
            assert marker.operation == "to_zarr adding 'wind'", marker
            return "unfinished"
        back = opened(root)
        if back.identical(self.old):
            return "before"
        assert back.identical(xr.merge([self.old, self.extra])), (
            "an unmarked dataset with a partial new variable"
        )
        return "after"

    def retry(self, root: Path) -> None:
        if zf.unfinished_write(str(root)) is not None:
            with pytest.raises(UnfinishedWriteError, match="to_zarr adding 'wind'"):
                zx.to_zarr(
                    self.old.isel(time=slice(0, 2)), str(root), mode="r+", region={"time": slice(0, 2)}
                )  # another write is refused
        if self.state(root) != "after":
            self.write(root)  # the same addition again: written anew, the marker taken down

    def final(self, root: Path) -> None:
        assert opened(root).identical(xr.merge([self.old, self.extra]))


PATHS = [
    NewDataset(),
    NewDataTree(),
    Append(),
    Region(),
    OverwriteDataset(),
    OverwriteDataTree(),
    AddVariable(),
]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_a_killed_xarray_write_leaves_before_after_or_marked_leftovers(tmp_path: Path, path) -> None:
    rng = random.Random(f"{SEED}-{path.name}")
    counting = tmp_path / "counting"
    path.setup(counting)
    writes = writes_made(lambda: path.write(counting), LocalStore, methods=WRITES)
    timing = tmp_path / "timing"
    path.setup(timing)
    start = time.monotonic()
    assert not killed_after(lambda: path.write(timing), 60.0)
    seconds = time.monotonic() - start
    # every write point when there are few; a spread of them when there are many
    points = list(range(1, writes + 1))
    if len(points) > KILLS:
        points = sorted(rng.sample(points, KILLS))
    kills: list[tuple[str, float]] = [("before write", k) for k in points]
    while len(kills) < KILLS + 4:
        kills.append(("after seconds", round(rng.uniform(0.0, seconds), 4)))
    seen: dict[str, int] = {}
    for number, (how, when) in enumerate(kills):
        root = tmp_path / f"kill{number}"
        path.setup(root)
        where = f"{path.name}: kill {number}, {how} {when} (of {writes} writes, {seconds:.3f} s), seed {SEED}"
        if how == "before write":
            assert isinstance(when, int)  # a write's number
            killed = killed_before_write(lambda: path.write(root), LocalStore, when, methods=WRITES)  # noqa: B023  # called before the loop moves on
        else:
            killed = killed_after(lambda: path.write(root), when)  # noqa: B023  # called before the loop moves on
        try:
            every_node_opens_and_reads(root)
            state = path.state(root)
        except AssertionError as exc:
            raise AssertionError(f"{where}: {exc}") from exc
        seen[state if killed else "finished"] = seen.get(state if killed else "finished", 0) + 1
        if not killed:
            assert state == "after", where
        path.retry(root)
        assert path.state(root) == "after", where
        if hasattr(path, "final"):
            path.final(root)
        assert not list(root.rglob("__zarrforge_unfinished.json")), where
    print(f"{path.name}: {len(kills)} kills ({len(points)} before a write of {writes}): {seen}")
    assert len(kills) >= KILLS
