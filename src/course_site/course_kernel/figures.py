"""A cell's matplotlib figure as the page gets it: its PNG in each colour scheme, its alt text, its layout.

`figure` gives what ``cell_exec`` emits for one figure. Nothing here imports matplotlib at
import time: a figure exists only once the cell's code has imported it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

from course_kernel.strings import t

FIGURE_DPI = 100
FIGURE_ALT_ATTRIBUTE = "alt_text"  # fig.alt_text = "…": the author's own alt text for a figure
SCHEME_ORDER = ("default", "slate")  # restyling goes one way: light first


def figure(fig: Any, alt: str, schemes: Sequence[str]) -> dict[str, Any]:
    """What the page shows for a figure with alt text ``alt``, drawn in ``schemes`` (the first is the one sent).

    ``{"png": bytes, "alt": str, "scheme": str, "text_px": float}``, plus ``"png_dark"`` (the
    ``slate`` PNG) when more than one scheme was asked for. Raises what ``savefig`` raises.
    """
    drawn = pngs(fig, schemes)
    scheme = schemes[0]
    shown = {"png": drawn[scheme], "alt": alt, "scheme": scheme, "text_px": smallest_text_px(fig)}
    if len(drawn) > 1 and "slate" in drawn:
        shown["png_dark"] = drawn["slate"]
    return shown


def pngs(fig: Any, schemes: Sequence[str]) -> dict[str, bytes]:
    """``fig`` as a PNG in each of ``schemes`` (``figure_style.restyle`` recolours it for ``slate``)."""
    drawn = {}
    # "tight" draws the figure twice: only for figures whose layout nobody chose.
    tight = None if laid_out(fig) else "tight"
    for scheme in sorted(schemes, key=SCHEME_ORDER.index):
        if scheme != "default":
            from course_kernel import figure_style

            figure_style.restyle(fig, scheme)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=FIGURE_DPI, bbox_inches=tight)
        drawn[scheme] = buf.getvalue()
    return drawn


def smallest_text_px(fig: Any) -> float:
    """The font size, in the PNG's pixels, of the figure's smallest visible text (0.0 without text)."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return round(min(sizes) * FIGURE_DPI / 72, 2) if sizes else 0.0


def laid_out(fig: Any) -> bool:
    """Whether a figure's layout was chosen: a layout engine, or margins set with ``subplots_adjust``.

    Such a figure is saved as it is; any other is cropped to what it draws
    (``bbox_inches="tight"``, as in a notebook), so no label is cut off.
    """
    if fig.get_layout_engine() is not None:
        return True
    import matplotlib

    params = fig.subplotpars
    names = ("left", "right", "bottom", "top", "wspace", "hspace")
    return any(getattr(params, name) != matplotlib.rcParams[f"figure.subplot.{name}"] for name in names)


def alt_text(fig: Any, index: int, template: str = "", namespace: Mapping[str, Any] | None = None) -> str:
    """Alt text for figure number ``index`` of a run: ``template`` with each ``{name}`` filled from
    ``namespace`` (the fence's ``alt``: the author's words for this cell), else the figure's own
    ``fig.alt_text`` (the code's, or a ``posenc.plot`` function's), else a description of its axes,
    else 'Figure N'.

    The description is the suptitle, then what each panel is (heatmap, line plot, …)
    with its title, size, axis labels and named lines; colorbars are left out. A template
    that names what the namespace lacks (an edit removed it) is passed over.

    >>> class Fig:
    ...     pass
    >>> alt_text(Fig(), 1, "θ′/θ for {method}, s = {factor:g}", {"method": "yarn", "factor": 4.0})
    'θ′/θ for yarn, s = 4'
    """
    if template:
        try:
            return template.format_map(namespace or {}).strip()
        except (KeyError, AttributeError, IndexError, ValueError, TypeError):
            pass
    explicit = getattr(fig, FIGURE_ALT_ATTRIBUTE, None)
    if isinstance(explicit, str) and explicit.strip():
        return explicit.strip()
    sentences = [plain_label(fig.get_suptitle())]
    panels = [ax for ax in fig.get_axes() if ax.get_visible() and getattr(ax, "_colorbar", None) is None]
    for number, ax in enumerate(panels, start=1):
        described = _axes_alt(ax)
        sentences.append(
            t("figure.panel", number=number, description=described)
            if len(panels) > 1
            else described[:1].upper() + described[1:]
        )
    text = ". ".join(sentence.rstrip(".") for sentence in sentences if sentence)
    return text or t("figure.alt", number=index)


def _axes_alt(ax: Any) -> str:
    """One panel in words: its kind and title, then size, axis labels and named lines, as there are."""
    title = next((ax.get_title(loc=loc) for loc in ("center", "left", "right") if ax.get_title(loc=loc).strip()), "")
    kind, size = _plot_kind(ax)
    parts = [t("figure.titled", kind=kind, title=plain_label(title)) if title.strip() else kind]
    parts += [size] if size else []
    for axis, label in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())):
        if label.strip():
            parts.append(t(f"figure.{axis}_axis", label=plain_label(label)))
    named = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    if named:
        parts.append(t("figure.lines", names=", ".join(t("figure.quoted", text=plain_label(name)) for name in named)))
    return "; ".join(parts)


def _plot_kind(ax: Any) -> tuple[str, str]:
    """``(kind, size)`` of what an axes draws: an image of a 2-D array is a heatmap of its rows by columns."""
    if ax.images:
        shape = ax.images[0].get_array().shape
        kind = t("figure.heatmap") if len(shape) == 2 else t("figure.image")
        return kind, t("figure.size", rows=shape[0], columns=shape[1])
    if ax.get_lines():
        return t("figure.line_plot"), ""
    if any(type(container).__name__ == "BarContainer" for container in ax.containers):
        return t("figure.bar_chart"), ""
    if ax.collections:
        return t("figure.scatter_plot"), ""
    return t("figure.empty_plot"), ""


_MATH_FONT = re.compile(r"\\math[a-z]+\{([^{}]*)\}")
_MATH_SYMBOLS = {r"\cdot": "·", r"\times": "×"}


def plain_label(text: str) -> str:
    """A label's text without matplotlib's mathtext markup: ``$\\mathrm{PE}_p \\cdot x$`` reads ``PE_p · x``."""
    if "$" not in text:
        return text.strip()
    text = _MATH_FONT.sub(r"\1", text.replace("$", ""))
    for command, symbol in _MATH_SYMBOLS.items():
        text = text.replace(command, symbol)
    return re.sub(r"\\([A-Za-z]+)", r"\1", text).replace("{", "").replace("}", "").strip()
