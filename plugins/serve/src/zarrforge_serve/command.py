"""``zarrforge serve SOURCE``: serve any hierarchy zarrforge reads as Zarr v3 over HTTP.

Contributed to the command line through the ``zarrforge.cli`` entry-point group, as any
plugin's command is.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

import click

from zarrforge_cli import storage_options as storage
from zarrforge_cli.commands.copy import compressors_option

from .hierarchy import DEFAULT_CACHE_BYTES, ServedHierarchy
from .server import LOOPBACK
from .server import serve as run_server
from .translation import DEFAULT_COMPRESSORS, DEFAULT_MAX_CHUNK_BYTES, TranslationOptions


def _announce(line: str) -> None:
    click.echo(line)
    sys.stdout.flush()


@click.command()
@click.argument("source")
@click.option(
    "--path", "node_path", default="", metavar="PATH", help="The node inside SOURCE served as the root."
)
@click.option(
    "--host",
    default=LOOPBACK,
    show_default=True,
    help="The address to bind; another than loopback exposes the data.",
)
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="The port (0: a free one)."
)
@click.option(
    "--cors-origin",
    "cors_origins",
    multiple=True,
    metavar="ORIGIN",
    help="An origin whose pages may read the data (repeatable; '*' for all; none by default).",
)
@click.option(
    "--compressor",
    "compressors",
    multiple=True,
    metavar="CODEC",
    callback=compressors_option,
    help="Compressor of re-encoded chunks: NAME, NAME:key=value,... or JSON; repeat for "
    f"several; 'none' for none (default: {json.dumps(list(DEFAULT_COMPRESSORS))}).",
)
@click.option("--no-consolidated", is_flag=True, help="Leave members' documents out of groups' zarr.json.")
@click.option(
    "--threads", type=click.IntRange(min=1), default=None, help="Worker threads answering requests."
)
@click.option(
    "--cache-bytes",
    type=click.IntRange(min=0),
    default=DEFAULT_CACHE_BYTES,
    show_default=True,
    help="Re-encoded chunks kept for repeated and ranged reads.",
)
@click.option(
    "--max-chunk-bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_CHUNK_BYTES,
    show_default=True,
    help="The largest decoded chunk or shard re-encoded for one request.",
)
@click.option(
    "--threaded-reads",
    is_flag=True,
    help="Read every chunk on a worker thread, local ones too (a local path on a slow network "
    "file system); by default passed-through chunks of local directories are read on the event loop.",
)
@click.option("--quiet", is_flag=True, help="No access log.")
@storage.flags(side="SOURCE")
def serve(
    source: str,
    node_path: str,
    host: str,
    port: int,
    cors_origins: tuple[str, ...],
    compressors: list[Any] | None,
    no_consolidated: bool,
    threads: int | None,
    cache_bytes: int,
    max_chunk_bytes: int,
    threaded_reads: bool,
    quiet: bool,
    storage_options: dict[str, Any],
) -> None:
    """Serve the hierarchy at SOURCE read-only as Zarr v3 over HTTP.

    Every node under SOURCE (any path or URL zarrforge opens: Zarr v2, the 2022 draft,
    kerchunk references, URL pipelines...) answers at its own path with a v3 zarr.json,
    and its chunks under v3's default keys: passed through as stored where the codecs
    are standard v3 codecs, re-encoded otherwise. Ctrl-C stops.
    """
    options = TranslationOptions(
        compressors=DEFAULT_COMPRESSORS if compressors is None else tuple(compressors),
        consolidated=not no_consolidated,
        max_chunk_bytes=max_chunk_bytes,
    )
    hierarchy = ServedHierarchy(
        source,
        node_path,
        storage_options=storage.for_url(source, storage_options, "--storage-option"),
        options=options,
        cache_bytes=cache_bytes,
    )
    if not quiet:
        logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    run_server(
        hierarchy,
        host=host,
        port=port,
        cors_origins=cors_origins,
        threads=threads,
        access_log=not quiet,
        announce=_announce,
        fast_reads=not threaded_reads,
    )
