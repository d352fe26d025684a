"""A Content-Security-Policy for every page, as a ``<meta>`` tag (static hosts set no headers).

Scripts, styles, workers, WebAssembly and fetches come from the site's own
origin only. The theme's few inline scripts are allowed by their sha256, so no
``'unsafe-inline'`` is needed for scripts; printed HTML and JavaScript from a
cell can never run.
"""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import urlsplit

_INLINE_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.DOTALL)
_CHARSET = re.compile(r"<meta charset=[^>]*>")
_HEAD = re.compile(r"<head[^>]*>")


def insert_in_head(html: str, markup: str) -> str:
    """Insert ``markup`` at the start of ``<head>``, after ``<meta charset>`` (which must
    stay within the first 1024 bytes) when the page has one."""
    anchor = _CHARSET.search(html) or _HEAD.search(html)
    return html[: anchor.end()] + markup + html[anchor.end() :] if anchor else html


def content_security_policy(html: str, extra_origin: str | None = None, *, serving: bool = False) -> str:
    """The policy for one page: its inline scripts by hash, ``extra_origin`` for a Pyodide CDN.

    ``serving`` (``mkdocs serve``) allows inline scripts, for the live-reload
    script that the dev server injects after the page is built.
    """
    hashes = sorted({f"'sha256-{_sha256(m['body'])}'" for m in _INLINE_SCRIPT.finditer(html) if _runs(m["attrs"])})
    if serving:
        hashes = ["'unsafe-inline'"]
    origin = [_origin(extra_origin)] if extra_origin else []
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'wasm-unsafe-eval'", *hashes, *origin],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'", *origin],
        "worker-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())


def add_policy(html: str, extra_origin: str | None = None, *, serving: bool = False) -> str:
    """Insert the policy at the start of ``<head>``, after ``<meta charset>``."""
    policy = content_security_policy(html, extra_origin, serving=serving)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    return insert_in_head(html, meta)


def _runs(attrs: str) -> bool:
    """Inline scripts that execute: no ``src`` and no data ``type`` such as JSON."""
    if "src=" in attrs:
        return False
    kind = re.search(r'type="([^"]*)"', attrs)
    return kind is None or kind.group(1) in ("module", "text/javascript")


def _sha256(body: str) -> str:
    return base64.b64encode(hashlib.sha256(body.encode()).digest()).decode("ascii")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
