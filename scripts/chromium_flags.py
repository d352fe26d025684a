"""The flags every headless Chromium of the tests and the benchmarks starts with.

Imported by ``tests/conftest.py`` and ``benchmarks/startup/browser.py`` (each puts ``scripts/`` on
``sys.path``), so that what the tests check and what the benchmarks time run in the same browser setup.
"""

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Belt and braces with the tests' route guard: nothing but loopback resolves.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
DEAD_PROXY = "--proxy-server=http://127.0.0.1:9"
"""For the benchmarks, which have no route guard: other addresses go to a dead proxy (loopback bypasses it)."""
