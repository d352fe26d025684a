"""A cell's output as the build keeps it: the runner's messages (``contract.json``'s ``toPage``) read the
way the page's output area (``assets/js/cell_output.js``) shows them, for the renderers (``cells.py``,
``notebook.py``) and the cache, without the build's Node process."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from .strings import current, s


@dataclass(frozen=True)
class Output:
    """One piece of a cell's output: ``kind`` is stdout, stderr, result, error, figure,
    or a notice of the output limit: ``capped`` (the limit was reached) or ``dropped`` (how much)."""

    kind: str
    text: str = ""
    png: bytes = b""
    png_dark: bytes = b""  # a figure drawn in the dark (slate) scheme
    text_px: float = 0.0  # a figure's smallest font size, in its PNG's pixels

    @classmethod
    def from_json(cls, data: dict) -> Output:
        """An output as the cache keeps it (`RunOutputs.items`): PNGs in base64."""
        png, dark = (base64.b64decode(data.get(key, "")) for key in ("png", "png_dark"))
        return cls(data["kind"], data.get("text", ""), png, dark, float(data.get("text_px", 0.0)))


@dataclass
class RunOutputs:
    """The outputs of one run, from its messages in order: stream text of one stream merged while nothing
    comes between (as the page writes it into one block), the output limit's notices in the site's words."""

    items: list[dict] = field(default_factory=list)
    """Each output as the cache keeps it: ``{kind, text}``; a figure also ``png``, ``png_dark`` (base64) and
    ``text_px``."""
    done: dict | None = None
    """The run's ``done`` message (``ok``, ``status``), once it came."""

    def add(self, message: dict) -> None:
        """Take one of the run's messages (``stream``, ``result``, ``error``, ``figure``, ``capped``,
        ``dropped``, ``done``); others (``started``) say nothing about its output."""
        kind = message["type"]
        if kind == "stream":
            self._stream(message["stream"], message["text"])
        elif kind in ("result", "error"):
            self.items.append({"kind": kind, "text": message["text"]})
        elif kind == "figure":
            figure = {"kind": "figure", "text": message["alt"], "png": message["png"], "text_px": message["textPx"]}
            self.items.append({**figure, "png_dark": message.get("pngDark", "")})
        elif kind == "capped":
            kilobytes = round(message["maxChars"] / 1000)
            self.items.append(
                {"kind": "capped", "text": s("output.capped", lines=message["maxLines"], kilobytes=kilobytes)}
            )
        elif kind == "dropped":
            size = current().megabytes(message["chars"] / 1e6)
            self.items.append({"kind": "dropped", "text": s("output.dropped", count=message["lines"], size=size)})
        elif kind == "done":
            self.done = message

    def _stream(self, stream: str, text: str) -> None:
        if self.items and self.items[-1]["kind"] == stream:  # stdout or stderr: never a result's kind
            self.items[-1]["text"] += text
        else:
            self.items.append({"kind": stream, "text": text})

    @property
    def ok(self) -> bool:
        """Whether the run ended without an error."""
        return bool(self.done and self.done["ok"])

    def kept(self) -> list[dict]:
        """The outputs as the cache keeps them."""
        return self.items
