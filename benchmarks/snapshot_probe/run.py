"""Time to "numpy imported": standard Pyodide boot against a boot from a memory snapshot.

Run:  .venv/bin/python benchmarks/snapshot_probe/run.py [--pairs N] [--net loopback,throttled]
      [--only cold,profile,verify,browser-made] [--out results.json]

Needs a snapshot made first:  node scripts/make_pyodide_snapshot.mjs  (pyodide_assets/derived/).
Serves Pyodide, the snapshot and this folder from 127.0.0.1 like GitHub Pages (in memory,
``Cache-Control: max-age=600``, ETags; text, JSON, JS and wasm gzipped; zip, wheels and the
already-gzipped snapshot as they are).  Rounds are interleaved (A B, then B A, ...), medians.

Scenarios, for each mode (standard, snapshot) and network (loopback; throttled: CDP
emulation 20 Mbit/s, 40 ms RTT):
  cold      a fresh persistent profile, first visit
  warm      the same profile and browser, second visit
  reopened  the same profile in a new browser process, third visit
browser-made: one profile; visit 1 boots normally and makes the snapshot into Cache Storage,
  visit 2 (same browser) and 3 (new browser process) boot from it.
verify: restore twice and import numpy, matplotlib and posenc; hash("a") and random per restore.
pyc: cold visits, standard boot with the official stdlib zip against the derived one with
  .pyc for the modules used (made by pyc_stdlib.mjs into --pyc-dir).
fallbacks: no snapshot, another build, corrupt bytes, missing file, storage denied, nothing kept:
  each must end with numpy imported after a normal boot.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import statistics
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, urlsplit

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
ASSETS = ROOT / "pyodide_assets"
DERIVED = ASSETS / "derived"
SNAPSHOT_JS = ROOT / "src/course_site/course_site/assets/js/snapshot.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
THROTTLED = {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8, "uploadThroughput": 20e6 / 8}
CACHE_CONTROL = "max-age=600"
GZIPPED_TYPES = ("text/", "application/javascript", "application/json", "application/wasm")
TYPES = {
    ".wasm": "application/wasm",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".json": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".gz": "application/gzip",
    ".html": "text/html; charset=utf-8",
}
TARGET = "numpy imported"
TIMEOUT_MS = 240_000


class Server:
    """GitHub-Pages-like static server for a few URL prefixes, files held in memory."""

    def __init__(self, routes: dict[str, Path]) -> None:
        self.files: dict[str, tuple[bytes, bytes | None, str, str]] = {}
        for prefix, folder in routes.items():
            for path in folder.iterdir():
                if path.is_file():
                    self.add(prefix + path.name, path.read_bytes())
        self.served: list[tuple[str, int, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.respond(self)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def add(self, url: str, body: bytes) -> None:
        kind = TYPES.get(Path(url).suffix, "application/octet-stream")
        packed = gzip.compress(body, 6, mtime=0) if kind.startswith(GZIPPED_TYPES) else None
        self.files[url] = (body, packed, kind, '"' + hashlib.sha1(body).hexdigest()[:16] + '"')

    def respond(self, handler: BaseHTTPRequestHandler) -> None:
        url = urlsplit(handler.path).path
        if url not in self.files:
            handler.send_response(404)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        body, packed, kind, etag = self.files[url]
        use_gzip = packed is not None and "gzip" in handler.headers.get("Accept-Encoding", "")
        payload = packed if use_gzip else body
        if handler.headers.get("If-None-Match") == etag:
            handler.send_response(304)
            payload = b""
        else:
            handler.send_response(200)
        handler.send_header("Content-Type", kind)
        handler.send_header("Cache-Control", CACHE_CONTROL)
        handler.send_header("ETag", etag)
        if packed is not None:
            handler.send_header("Vary", "Accept-Encoding")
        if use_gzip and payload:
            handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)
        self.served.append((url, len(payload), "gzip" if use_gzip and payload else ""))

    def take(self) -> list[tuple[str, int, str]]:
        served, self.served = self.served, []
        return served


def expected_build() -> dict:
    """What the site knows of its own Pyodide: version, BUILD_ID, wasm sha256 (manifest)."""
    manifest = json.loads((ASSETS / "manifest.json").read_text())
    pinned = {f["name"]: f["sha256"] for f in manifest["files"]}
    build_id = re.search(r'BUILD_ID:"([0-9a-f]{64})"', (ASSETS / "files/pyodide.js").read_text()).group(1)
    return {
        "pyodideVersion": manifest["pyodide_version"],
        "buildId": build_id,
        "wasmSha256": pinned["pyodide.asm.wasm"],
        "stdlibSha256": pinned["python_stdlib.zip"],
    }


def posenc_wheel() -> Path:
    """The posenc wheel the site builds (course_site.wheel, cached in .cache/)."""
    from course_site.wheel import build_wheel

    return build_wheel(ROOT, ROOT / "src/posenc", ROOT / ".cache").path


class Probe:
    def __init__(self, playwright, server: Server, record: dict, wheel: str | None) -> None:
        self.pw = playwright
        self.server = server
        self.snapshot = {
            "record": record,
            "url": f"{server.base}/snapshot/{record['file']}",
            "expected": expected_build(),
        }
        self.wheel = wheel

    def url(self, mode: str, verify: bool = False, **overrides: object) -> str:
        base = self.server.base
        cfg = {
            "mode": mode,
            "index": f"{base}/pyodide/",
            "lock": f"{base}/pyodide/pyodide-lock.json",
            "module": f"{base}/js/snapshot.js",
            "snapshot": self.snapshot,
            "verify": verify,
            "wheel": self.wheel if verify else None,
            **overrides,
        }
        return f"{self.server.base}/probe/probe.html?cfg={quote(json.dumps(cfg))}"

    def visit(self, context, url: str, throttled: bool) -> dict:
        page = context.pages[0] if context.pages else context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        if throttled:
            cdp.send("Network.emulateNetworkConditions", THROTTLED)
        self.server.take()
        page.goto(url, wait_until="commit")
        page.wait_for_function(
            "() => window.__probe && (window.__probe.done || window.__probe.error)", timeout=TIMEOUT_MS, polling=50
        )
        result = page.evaluate("() => window.__probe")
        result["served"] = self.server.take()
        cdp.detach()
        page.goto("about:blank")
        return result

    def launch(self, profile: str):
        return self.pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )

    def profile_visits(self, modes: list[str], throttled: bool, verify: bool = False) -> list[dict]:
        """Visits in one new profile: the first two in one browser, the last in a new one."""
        results = []
        with tempfile.TemporaryDirectory(prefix="snapshot-probe-") as profile:
            context = self.launch(profile)
            try:
                for mode in modes[:2]:
                    results.append(self.visit(context, self.url(mode, verify), throttled))
            finally:
                context.close()
            context = self.launch(profile)
            try:
                for mode in modes[2:]:
                    results.append(self.visit(context, self.url(mode, verify), throttled))
            finally:
                context.close()
        return results

    def cold_visit(self, mode: str, throttled: bool, **overrides: object) -> dict:
        """One visit in a new profile."""
        with tempfile.TemporaryDirectory(prefix="snapshot-probe-") as profile:
            context = self.launch(profile)
            try:
                return self.visit(context, self.url(mode, **overrides), throttled)
            finally:
                context.close()

    def fallbacks(self) -> dict[str, dict]:
        """Each way the snapshot cannot be used, in its own fresh profile: what happened."""
        record, expected = self.snapshot["record"], self.snapshot["expected"]

        def shipped(**changes: object) -> tuple[str, dict]:
            return "snapshot", {"snapshot": {**self.snapshot, **changes}}

        cases = {
            "no snapshot": shipped(record=None),
            "another build": shipped(expected={**expected, "buildId": "0" * 64}),
            "corrupt": shipped(record={**record, "snapshot_sha256": "0" * 64}),
            "missing file": shipped(url=self.snapshot["url"] + ".missing"),
            "made here": ("make", {}),
            "storage denied": ("make", {"denyStorage": True}),
            "nothing kept": ("kept", {}),
        }
        results = {}
        for name, (mode, overrides) in cases.items():
            visit = self.cold_visit(mode, throttled=False, **overrides)
            results[name] = {
                "numpy imported": TARGET in visit["marks"],
                "error": visit["error"],
                **visit["info"],
                "marks": sorted(visit["marks"]),
            }
            print(f"fallback {name}: {results[name]}")
        return results


def summary(values: list[float]) -> str:
    if not values:
        return "n/a"
    low, mid, high = (round(v / 1000, 2) for v in (min(values), statistics.median(values), max(values)))
    return f"{mid:.2f} s ({low:.2f}–{high:.2f}, n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--net", default="loopback,throttled")
    parser.add_argument("--only", default="verify,fallbacks,profile,browser-made")
    parser.add_argument("--out", type=Path, default=HERE / "results.json")
    parser.add_argument("--pyc-dir", type=Path, help="where pyc_stdlib.mjs left its zips (for --only pyc)")
    args = parser.parse_args()
    scenarios = set(args.only.split(","))
    unknown = scenarios - {"verify", "fallbacks", "profile", "browser-made", "pyc"}
    if unknown:
        parser.error(f"unknown --only value(s): {', '.join(sorted(unknown))}")
    nets = args.net.split(",")
    if set(nets) - {"loopback", "throttled"}:
        parser.error(f"unknown --net value(s): {args.net}")
    record = json.loads((DERIVED / "pyodide-snapshot.json").read_text())
    wheel = posenc_wheel()
    routes = {"/pyodide/": ASSETS / "files", "/snapshot/": DERIVED, "/probe/": HERE, "/js/": SNAPSHOT_JS.parent}
    server = Server(routes)
    server.add("/pyodide/pyodide-lock.json", (ASSETS / "pyodide-lock.json").read_bytes())
    server.add(f"/wheels/{wheel.name}", wheel.read_bytes())
    if "pyc" in scenarios:
        server.add("/derived/python_stdlib-pyc-used.zip", (args.pyc_dir / "python_stdlib-pyc-used.zip").read_bytes())
    print(f"chromium {CHROMIUM}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f} (shared machine)")
    out: dict = {"record": record, "runs": []}
    with sync_playwright() as pw:
        probe = Probe(pw, server, record, f"{server.base}/wheels/{wheel.name}")
        if "verify" in scenarios:
            out["verify"] = probe.profile_visits(["snapshot", "snapshot"], throttled=False, verify=True)
            for v in out["verify"]:
                print("verify:", v["info"], v["error"])
        if "fallbacks" in scenarios:
            out["fallbacks"] = probe.fallbacks()
        args.out.write_text(json.dumps(out, indent=1))
        for pair in range(args.pairs):
            for net in nets:
                throttled = net == "throttled"
                order = ["standard", "snapshot"] if pair % 2 == 0 else ["snapshot", "standard"]
                if "profile" in scenarios:
                    for mode in order:
                        visits = probe.profile_visits([mode] * 3, throttled)
                        keep(out, visits, pair=pair, net=net, mode=mode)
                if "pyc" in scenarios:
                    for stdlib in ("official", "pyc-used") if pair % 2 == 0 else ("pyc-used", "official"):
                        url = f"{server.base}/derived/python_stdlib-{stdlib}.zip" if stdlib != "official" else None
                        visit = probe.cold_visit("standard", throttled, stdlib=url)
                        keep(out, [visit], pair=pair, net=net, mode=f"stdlib-{stdlib}")
                if "browser-made" in scenarios:
                    visits = probe.profile_visits(["make", "kept", "kept"], throttled)
                    keep(out, visits, pair=pair, net=net, mode="browser-made")
                args.out.write_text(json.dumps(out, indent=1))
    report(out)


def keep(out: dict, visits: list[dict], **labels: object) -> None:
    """Add a profile's visits (cold, warm, reopened) to the results, and print them."""
    for visit, label in zip(visits, ("cold", "warm", "reopened"), strict=False):
        run = {**labels, "visit": label, **visit}
        out["runs"].append(run)
        made = run["marks"].get("snapshot made and stored")
        print(
            f"{labels} {label:8} {run['marks'].get(TARGET, float('nan')):8.0f} ms"
            f" restored={run['info'].get('restored')}"
            + (f" made at {made:.0f} ms" if made else "")
            + (f" ERROR {run['error']}" if run["error"] else "")
        )


def report(out: dict) -> None:
    print(f"\nsnapshot: {out['record']['snapshot_bytes']} bytes raw, {out['record']['gzip_bytes']} gzipped")
    groups: dict[tuple, list[float]] = {}
    for run in out["runs"]:
        if not run["error"] and TARGET in run["marks"]:
            groups.setdefault((run["net"], run["mode"], run["visit"]), []).append(run["marks"][TARGET])
    print("\n| network | visit | standard | shipped snapshot | browser-made snapshot |\n|---|---|---|---|---|")
    for net in ("loopback", "throttled"):
        pyc = [summary(groups.get((net, f"stdlib-{kind}", "cold"), [])) for kind in ("official", "pyc-used")]
        if any(c != "n/a" for c in pyc):
            print(f"| {net} | cold, stdlib official / .pyc (used) | " + " | ".join(pyc) + " |")
        for visit in ("cold", "warm", "reopened"):
            cells = [summary(groups.get((net, mode, visit), [])) for mode in ("standard", "snapshot", "browser-made")]
            if any(c != "n/a" for c in cells):
                print(f"| {net} | {visit} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
