"""``zarrforge copy SRC DST``: copy an array or a hierarchy, converting on the way."""

from __future__ import annotations

import json
import time
from typing import Any

import click

from .. import storage_options as storage
from ..progress import MODES, reporter


def _literal(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_codec(text: str) -> Any:
    """``NAME``, ``NAME:key=value,key=value`` or a JSON object -> a codec argument."""
    text = text.strip()
    if text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise click.BadParameter(f"not valid JSON: {exc}") from None
    name, sep, rest = text.partition(":")
    if not name:
        raise click.BadParameter(f"{text!r} names no codec")
    if not sep:
        return name
    configuration = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise click.BadParameter(f"{item!r} is not key=value (in {text!r})")
        configuration[key.strip()] = _literal(value.strip())
    return {"name": name, "configuration": configuration}


def parse_shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise click.BadParameter(f"must be comma-separated integers such as 100,100, got {text!r}") from None
    if not shape or any(s <= 0 for s in shape):
        raise click.BadParameter(f"must be positive integers, got {text!r}")
    return shape


def compressors_option(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> Any:
    """The callback of a repeatable ``--compressor CODEC`` option (``copy``'s, ``serve``'s):
    ``None`` when none was given, ``[]`` for ``none``, else the codecs parsed."""
    if not value:
        return None
    if len(value) == 1 and value[0].strip().lower() in ("none", "null"):
        return []
    return [parse_codec(c) for c in value]


def _chunks_option(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    return None if value is None else parse_shape(value)


def _shards_option(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    if value.strip().lower() in ("none", "false", "no"):
        return False
    return parse_shape(value)


def _count(node: Any) -> tuple[int, int]:
    import zarrforge

    if not isinstance(node, zarrforge.Group):
        return 1, 0
    members = node.members(max_depth=None)
    arrays = sum(1 for _, m in members if not isinstance(m, zarrforge.Group))
    return arrays, 1 + len(members) - arrays


def _sizer(source: Any, dest_root: str, shards: Any) -> Any:
    """``sizer(path)`` for the progress display: the decoded bytes of the source array
    copied to the destination ``path``, and the units the copy counts there."""
    from zarrforge.hierarchy_api import paths

    root = paths.normalize_path(dest_root)

    def sizer(path: str) -> tuple[int | None, str]:
        relative = path[len(root) :].strip("/") if path.startswith(root) else ""
        array = source[relative] if relative else source
        sharded = bool(array.shards) if shards is None else shards is not False
        try:
            size: int | None = array.nbytes
        except TypeError:  # no fixed size per element (strings): bytes unknown
            size = None
        return size, "shards" if sharded else "chunks"

    return sizer


def _side(url: str, shared: dict[str, Any], own: dict[str, Any], option: str) -> dict[str, Any] | None:
    """The storage options of one side of the copy: the shared ones unless ``url`` is
    local, and the side's own (which win, and a local ``url`` refuses)."""
    common = {} if storage.is_local(url) else shared
    if own:
        return {**common, **(storage.for_url(url, own, option) or {})}
    return common or None


@click.command()
@click.argument("src")
@click.argument("dst")
@click.option("--src-path", default="", metavar="PATH", help="Node to copy inside SRC.")
@click.option("--dst-path", default="", metavar="PATH", help="Where to put it inside DST.")
@click.option(
    "--format",
    "zarr_format",
    default=None,
    metavar="FORMAT",
    help="Destination format: 3, 2, or another installed format (default: the source's).",
)
@click.option(
    "--compressor",
    "compressors",
    multiple=True,
    metavar="CODEC",
    callback=compressors_option,
    help="Compressor(s) of the destination: NAME, NAME:key=value,... or a JSON "
    "object; repeat for several; 'none' for no compression (default: the "
    "source's).",
)
@click.option(
    "--chunks", default=None, metavar="N,N,...", callback=_chunks_option, help="Destination chunk shape."
)
@click.option(
    "--shards",
    default=None,
    metavar="N,N,...|none",
    callback=_shards_option,
    help="Destination shard shape; 'none' unshards a sharded source.",
)
@click.option("--overwrite", is_flag=True, help="Replace existing nodes in DST.")
@click.option(
    "--progress",
    "progress_mode",
    type=click.Choice(MODES),
    default="auto",
    show_default=True,
    help="Progress display on standard error.",
)
@click.option(
    "--step-bytes",
    type=click.IntRange(min=1),
    default=None,
    metavar="BYTES",
    help="Decoded bytes copied per step, in whole destination chunks or shards "
    "(default 64 MiB): smaller holds less memory and reports progress more "
    "often, larger keeps more threads busy.",
)
@storage.flags(side="SRC and DST (a local path takes none and is left out)")
@storage.flags("src-", side="SRC")
@storage.flags("dst-", side="DST")
def copy(
    src: str,
    dst: str,
    src_path: str,
    dst_path: str,
    zarr_format: str | None,
    compressors: list[Any] | None,
    chunks: tuple[int, ...] | None,
    shards: Any,
    overwrite: bool,
    progress_mode: str,
    step_bytes: int | None,
    storage_options: dict[str, Any],
    src_storage_options: dict[str, Any],
    dst_storage_options: dict[str, Any],
) -> None:
    """Copy the array or hierarchy at SRC to DST, with zarrforge.copy.

    The copy is planned before anything is written: a node the destination
    format cannot hold fails the whole copy and DST is left untouched.
    Progress counts the destination's chunks (or shards) with the bytes and
    throughput.
    """
    import zarrforge

    options: dict[str, Any] = {}
    if zarr_format is not None:
        options["zarr_format"] = zarr_format
    if compressors is not None:
        options["compressors"] = compressors
    if chunks is not None:
        options["chunks"] = chunks
    if shards is not None:
        options["shards"] = shards
    src_options = _side(src, storage_options, src_storage_options, "--src-storage-option")
    dst_options = _side(dst, storage_options, dst_storage_options, "--dst-storage-option")
    source = zarrforge.open(src, src_path, mode="r", storage_options=src_options)
    started = time.perf_counter()
    with reporter(progress_mode, "copy", sizer=_sizer(source, dst_path, shards)) as progress:
        result = zarrforge.copy(
            source,
            dst,
            dest_path=dst_path,
            overwrite=overwrite,
            progress=progress,
            step_bytes=step_bytes,
            storage_options=dst_options,
            **options,
        )
    arrays, groups = _count(result)
    where = dst + (f" (path {result.name})" if result.path else "")
    click.echo(
        f"copied {source.name} to {where}: {arrays} array{'s' * (arrays != 1)}, "
        f"{groups} group{'s' * (groups != 1)}, format "
        f"{result.metadata_model.format_name}, in {time.perf_counter() - started:.2f} s"
    )
