"""``zarrforge zom ...``: the ZOM subcommands of the zarrforge command line.

Contributed to zarrforge-cli through the ``zarrforge.cli`` entry-point group,
like any third-party command. Needs ``click`` (the ``cli`` extra).

A SPEC argument is a ZOM JSON file, ``-`` for standard input, or the URL of an
existing hierarchy (whose model is then used). Exit codes: 0 success, 1 the
model and the hierarchy (or document and schema) differ or the operation
failed, 2 usage error.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from .diff import Difference, diff
from .models import GroupSpec, Node, from_json, from_zarr
from .schema import ERRATA, json_schema, schema_issues


def _read_document(source: str) -> Any:
    try:
        if source == "-":
            return json.load(sys.stdin)
        with open(source, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as exc:
        raise click.ClickException(f"{source}: not valid JSON: {exc}") from None


def _is_document(source: str) -> bool:
    return source == "-" or os.path.isfile(source)


def _load(source: str, path: str = "") -> tuple[Node, Any]:
    """The model named by SPEC, and its JSON document when it came from one."""
    if _is_document(source):
        document = _read_document(source)
        issues = schema_issues(document)
        if issues:
            for issue in issues:
                click.echo(f"schema: {issue}", err=True)
            raise click.ClickException(
                f"{source} does not follow the ZEP 6 schema ({len(issues)} issue{'s' * (len(issues) != 1)})"
            )
        return from_json(document, validate=False), document
    return from_zarr(source, path), None


def _emit(text: str, output: str | None) -> None:
    if output is None or output == "-":
        click.echo(text)
    else:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text + "\n")


def _report(differences: list[Difference], as_json: bool, none: str) -> None:
    """Print ``differences`` (as JSON, or one line each and their count; ``none`` when
    there are none) and exit with code 1 when there is any."""
    if as_json:
        click.echo(json.dumps([d.to_json() for d in differences], indent=2, allow_nan=True))
    else:
        for difference in differences:
            click.echo(str(difference))
        count = len(differences)
        click.echo(f"{count} difference{'s' * (count != 1)}" if count else none)
    if differences:
        click.get_current_context().exit(1)


@click.group(name="zom")
def zom() -> None:
    """ZEP 6 Zarr Object Models: dump, apply, validate and diff hierarchy structure."""


@zom.command("dump")
@click.argument("url")
@click.option("--path", default="", help="Node path inside the store.")
@click.option("-o", "--output", default=None, help="Write to this file instead of stdout.")
@click.option("--indent", type=int, default=2, show_default=True, help="JSON indentation.")
@click.option("--flat", is_flag=True, help="One entry per node path (the consolidated form).")
def dump(url: str, path: str, output: str | None, indent: int, flat: bool) -> None:
    """Print the ZOM JSON of the hierarchy at URL."""
    spec = from_zarr(url, path)
    if flat and isinstance(spec, GroupSpec):
        document: Any = {p: node.to_json() for p, node in spec.flatten().items()}
    else:
        document = spec.to_json()
    _emit(json.dumps(document, indent=indent or None, allow_nan=True), output)


@zom.command("apply")
@click.argument("spec")
@click.argument("url")
@click.option("--path", default="", help="Where to create the hierarchy inside the store.")
@click.option("--overwrite", is_flag=True, help="Replace existing nodes.")
@click.option("--consolidate", is_flag=True, help="Consolidate the new hierarchy's metadata.")
def apply(spec: str, url: str, path: str, overwrite: bool, consolidate: bool) -> None:
    """Create the hierarchy described by SPEC at URL (no data is written)."""
    model, _ = _load(spec)
    model.to_zarr(url, path, overwrite=overwrite, consolidate=consolidate)
    count = sum(1 for _ in model.walk()) if isinstance(model, GroupSpec) else 1
    click.echo(
        f"created {count} node{'s' * (count != 1)} at {url}"
        + (f" (path /{path.strip('/')})" if path.strip("/") else "")
    )


@zom.command("validate")
@click.argument("spec")
@click.argument("url", required=False)
@click.option("--path", default="", help="Node path inside the store.")
@click.option("--json", "as_json", is_flag=True, help="Print the differences as JSON.")
def validate(spec: str, url: str | None, path: str, as_json: bool) -> None:
    """Check SPEC against the ZEP 6 schema and, given URL, the hierarchy against SPEC.

    Every difference is printed with its node path; the exit code is 1 when
    there is any.
    """
    model, _ = _load(spec)
    if url is None:
        click.echo(f"{spec}: follows the ZEP 6 schema (Zarr v{model.zarr_format} {model.node_type})")
        return
    _report(diff(model, from_zarr(url, path)), as_json, f"{url}: matches the model")


@zom.command("diff")
@click.argument("expected")
@click.argument("found")
@click.option("--json", "as_json", is_flag=True, help="Print the differences as JSON.")
def diff_command(expected: str, found: str, as_json: bool) -> None:
    """Compare two models; each is a ZOM JSON file or the URL of a hierarchy."""
    _report(diff(_load(expected)[0], _load(found)[0]), as_json, "the models are equal")


@zom.command("schema")
@click.option(
    "--format",
    "zarr_format",
    type=click.Choice(["3", "2"]),
    default="3",
    show_default=True,
    help="Zarr version of the model.",
)
@click.option("--verbatim", is_flag=True, help="The schema exactly as ZEP 6 prints it.")
@click.option("--errata", is_flag=True, help="List the corrections instead of the schema.")
def schema(zarr_format: str, verbatim: bool, errata: bool) -> None:
    """Print the ZEP 6 JSON Schema (with zarrforge's documented errata unless --verbatim)."""
    if errata:
        for line in ERRATA[int(zarr_format)]:
            click.echo(f"- {line}")
        return
    click.echo(json.dumps(json_schema(int(zarr_format), verbatim=verbatim), indent=2))
