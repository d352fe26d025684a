"""The Content-Security-Policy the plugin puts on every page."""

from __future__ import annotations

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
