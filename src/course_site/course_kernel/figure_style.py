"""Figures in the page's colour scheme: Material's ``default`` (light) and ``slate`` (dark).

A cell draws its figure with matplotlib's usual colours (black text and lines on
white). Before a figure is saved for a page in the ``slate`` scheme, `restyle`
recolours what is drawn in those usual colours to the `SLATE` style, which follows
Material's slate palette (its background, text and border colours): white paper
becomes the page's background, black ink its text colour, and a grey in between the
same share of the way from one to the other (a light grey band stays faint, a mid-grey
rule stays mid). Colours (data lines, colour maps) stay. The build saves every figure in both schemes (the page
shows the one in use), the browser's worker in the page's scheme. Pure Python on
matplotlib's public API; imported only once a figure is shown.
"""

from __future__ import annotations

from typing import Any

SCHEMES = ("default", "slate")

#: Material's slate scheme (hue 232): the page's background hsl(232, 15%, 14%), its text
#: hsla(232, 75%, 95%, 0.82) over that background, its borders, its faint rules.
SLATE = {
    "figure.facecolor": "#1e2029",
    "axes.facecolor": "#1e2029",
    "savefig.facecolor": "#1e2029",
    "text.color": "#d2d5de",
    "axes.labelcolor": "#d2d5de",
    "xtick.color": "#d2d5de",
    "ytick.color": "#d2d5de",
    "axes.edgecolor": "#8e93a4",
    "legend.facecolor": "#1e2029",
    "legend.edgecolor": "#4a4e5c",
    "grid.color": "#4a4e5c",
}


def _slate_grey(level: float) -> tuple[float, float, float]:
    """The slate colour for matplotlib's grey ``level`` (0 black ink .. 1 white paper)."""
    from matplotlib.colors import to_rgb

    paper, ink = to_rgb(SLATE["figure.facecolor"]), to_rgb(SLATE["text.color"])
    return tuple(p + (i - p) * (1 - level) for p, i in zip(paper, ink, strict=True))


def restyle(fig: Any, scheme: str) -> None:
    """Recolour ``fig`` for ``scheme`` (``"default"`` leaves it as drawn)."""
    if scheme != "slate":
        return
    from matplotlib.colors import to_rgba

    def mapped(colour: Any) -> Any:
        r, g, b, a = to_rgba(colour)
        if not (round(r, 3) == round(g, 3) == round(b, 3)):
            return None  # a colour, not paper, ink or a grey
        return (*_slate_grey(r), a)

    for artist in fig.findobj():
        if _shows_data_colours(artist):
            continue
        for getter, setter in _COLOUR_PROPERTIES:
            _recolour(artist, getter, setter, mapped)


_COLOUR_PROPERTIES = (
    ("get_facecolor", "set_facecolor"),
    ("get_edgecolor", "set_edgecolor"),
    ("get_color", "set_color"),
    ("get_markeredgecolor", "set_markeredgecolor"),
    ("get_markerfacecolor", "set_markerfacecolor"),
)


def _recolour(artist: Any, getter: str, setter: str, mapped: Any) -> None:
    """Set one colour property of ``artist`` to its slate colour, where it has a default colour."""
    get, put = getattr(artist, getter, None), getattr(artist, setter, None)
    if get is None or put is None:
        return
    try:
        colour = get()
        if _is_many(colour):
            new = [mapped(c) for c in colour]
            if any(c is not None for c in new):
                put([n if n is not None else c for n, c in zip(new, colour, strict=True)])
        elif colour is not None and not (isinstance(colour, str) and colour in ("none", "auto")):
            new = mapped(colour)
            if new is not None:
                put(new)
    except (TypeError, ValueError, AttributeError):
        pass  # an artist whose colour is not one plain colour (a colour map's image): left as drawn


def _shows_data_colours(artist: Any) -> bool:
    """A colour-mapped artist (an image, a colorbar's or pcolormesh's cells): its colours are data."""
    get_array = getattr(artist, "get_array", None)
    try:
        return get_array is not None and get_array() is not None
    except TypeError:
        return False


def _is_many(colour: Any) -> bool:
    """An array of colours (a collection's), not one colour given as a tuple of floats."""
    shape = getattr(colour, "shape", None)
    return shape is not None and len(shape) == 2
