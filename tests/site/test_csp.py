"""The Content-Security-Policy the plugin puts on every page."""

from __future__ import annotations

import base64
import hashlib

from course_site.csp import add_policy, content_security_policy

PAGE = '<html><head><meta charset="utf-8"><script>var a = 1</script><script src="x.js"></script></head></html>'


def test_inline_scripts_are_allowed_by_hash_only():
    policy = content_security_policy(PAGE)
    assert "'sha256-" in policy and "'unsafe-inline'" not in policy.split("style-src")[0]
    assert "script-src 'self' 'wasm-unsafe-eval'" in policy and "connect-src 'self';" in policy


def test_policy_goes_right_after_meta_charset():
    html = add_policy(PAGE)
    assert html.index('<meta charset="utf-8">') < html.index("Content-Security-Policy") < html.index("<script>")


def test_mkdocs_serve_allows_its_live_reload_script():
    policy = content_security_policy(PAGE, serving=True)
    assert "script-src 'self' 'wasm-unsafe-eval' 'unsafe-inline'" in policy and "'sha256-" not in policy


def _hash(body: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"


def test_only_scripts_that_run_are_hashed():
    scripts = {
        "plain": ("<script>", "var plain = 1"),
        "module": ('<script type="module">', "import './a.js'"),
        "javascript": ('<script type="text/javascript">', "var old = 1"),
        "data": ('<script type="application/json">', '{"not": "code"}'),
        "external": ('<script src="x.js">', "var ignored = 1"),
    }
    page = "<head>" + "".join(f"{opening}{body}</script>" for opening, body in scripts.values()) + "</head>"
    script_src = content_security_policy(page).split(";")[1].split()
    hashed = {name for name, (_, body) in scripts.items() if _hash(body) in script_src}
    assert hashed == {"plain", "module", "javascript"}
    assert len([source for source in script_src if source.startswith("'sha256-")]) == 3


def test_the_whole_policy_with_a_cdn_origin():
    script = "var a = 1"
    policy = content_security_policy(f"<head><script>{script}</script></head>", "https://cdn.example.org/pyodide/v1/")
    assert policy.split("; ") == [
        "default-src 'self'",
        f"script-src 'self' 'wasm-unsafe-eval' {_hash(script)} https://cdn.example.org",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self'",
        "connect-src 'self' https://cdn.example.org",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'none'",
    ]


def test_the_policy_tag_goes_first_in_head_or_nowhere_without_one():
    page = '<html><head lang="en"><title>t</title></head></html>'
    meta = f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(page)}">'
    assert add_policy(page) == f'<html><head lang="en">{meta}<title>t</title></head></html>'
    assert add_policy("<p>a fragment</p>") == "<p>a fragment</p>"
    served = add_policy(page, "https://cdn.example.org/pyodide/", serving=True)
    expected = content_security_policy(page, "https://cdn.example.org/pyodide/", serving=True)
    assert f'content="{expected}"' in served and "'unsafe-inline' https://cdn.example.org;" in served
