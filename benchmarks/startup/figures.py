"""Figures that may be missing (None, "n/a" in print): their median, difference, ratio and format."""

from __future__ import annotations

import statistics


def median(values: list[float | None]) -> float | None:
    """The median of the values that are there."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def diff(later: float | None, earlier: float | None) -> float | None:
    return None if later is None or earlier is None else later - earlier


def ratio(num: float | None, den: float | None) -> float | None:
    return None if num is None or not den else num / den


def fmt_s(ms: float | None) -> str:
    return "n/a" if ms is None else f"{ms / 1000:.2f} s"


def fmt_ms(ms: float | None) -> str:
    return "n/a" if ms is None else f"{ms:.0f} ms"


def fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("ok" if ok else "MISSED")
