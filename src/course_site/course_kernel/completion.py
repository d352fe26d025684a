"""Completions for the cell editor, from Jedi over the page's live namespace.

The worker (``assets/js/worker/complete.js``) imports this module the first time the
learner asks for a completion, never at boot: it imports Jedi (and parso), which take a
while. `complete` then answers each request with ``jedi.Interpreter`` over the page's
one namespace (``__main__``): the names that earlier runs defined, the attributes of live
objects (``np.``, ``posenc.``, ``pe.``) and the keyword arguments of a call, with their
signature and the first line of their docstring.
"""

from __future__ import annotations

from typing import Any

import jedi

import __main__

MAX_COMPLETIONS = 200  # more than anyone scrolls through; the editor filters as the learner types
DETAIL_FOR = 12  # the first completions get a signature and a docstring line (Jedi infers each: ~3 ms)
_TYPES = {
    "module": "namespace",
    "class": "class",
    "instance": "variable",
    "function": "function",
    "param": "property",
    "path": "text",
    "keyword": "keyword",
    "property": "property",
    "statement": "variable",
}
"""Jedi's completion types, as CodeMirror's completion types (its icons)."""

jedi.settings.case_insensitive_completion = False
jedi.settings.add_bracket_after_function = False


def complete(
    code: str, line: int, column: int, setup: str = "", namespace: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Completions at ``line`` (from 1) and ``column`` (from 0) of a cell's ``code``.

    The cell's hidden ``setup`` is read before its code, so that what it imports completes
    before the cell has run. ``namespace`` defaults to the page's (``__main__``). Returns ``{"from": <offset in
    the line where the completed word starts>, "options": [{"label", "type", "detail",
    "info", "boost"}, …]}``: ``detail`` is the signature and ``info`` the docstring's first line
    (both "" when unknown); ``boost`` is 1 for a keyword argument of the call, else 0.
    """
    scope = vars(__main__) if namespace is None else namespace
    if setup:
        code, line = f"{setup}\n{code}", line + setup.count("\n") + 1
    script = jedi.Interpreter(code, [scope])
    found = script.complete(line, column)
    typed = found[0].name_with_symbols[: len(found[0].name_with_symbols) - len(found[0].complete)] if found else ""
    # Private names only once the learner types "_"; a call's keyword arguments first.
    shown = [c for c in found if typed.startswith("_") or not c.name.startswith("_") or c.type == "param"]
    completions = sorted(shown, key=lambda c: c.type != "param")[:MAX_COMPLETIONS]
    start = column - len(typed)
    call = _call(script, line, column) if any(c.type == "param" for c in completions) else ("", "")
    options = [_option(c, call, detailed=k < DETAIL_FOR) for k, c in enumerate(completions)]
    return {"from": start, "options": options}


def _option(completion: Any, call: tuple[str, str], *, detailed: bool) -> dict[str, str]:
    """One completion as the editor shows it; a keyword argument's detail is the ``call``'s."""
    kind = completion.type
    option = {"label": completion.name_with_symbols, "type": _TYPES.get(kind, "variable"), "detail": "", "info": ""}
    option["boost"] = int(kind == "param")  # the editor lists them first too
    if kind == "param":
        option["detail"], option["info"] = call
    elif detailed and kind not in ("keyword", "path"):
        option["detail"] = _signature(completion.get_signatures)
        option["info"] = _first_line(completion)
    return option


def _call(script: Any, line: int, column: int) -> tuple[str, str]:
    """The signature and docstring line of the call around the cursor, for its keyword arguments."""
    signatures = _guarded(lambda: script.get_signatures(line, column), [])
    return (signatures[0].to_string(), _first_line(signatures[0])) if signatures else ("", "")


def _signature(get_signatures: Any) -> str:
    """``name(a, b=1)`` of a callable ("" for anything else)."""
    signatures = _guarded(get_signatures, [])
    return signatures[0].to_string() if signatures else ""


def _first_line(name: Any) -> str:
    """The first non-blank line of ``name``'s docstring (without the signature Jedi would put before it)."""
    text = _guarded(lambda: name.docstring(raw=True), "")
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _guarded(infer: Any, default: Any) -> Any:
    """``infer()``, or ``default`` where Jedi's inference fails on an odd object: a completion without details."""
    try:
        return infer()
    except Exception:
        return default
