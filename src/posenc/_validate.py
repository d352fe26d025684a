"""Argument checks shared by every public function.

Each helper either returns a clean value (a Python ``int``/``float`` or a numpy
array of a known dtype and rank) or raises a ``TypeError``/``ValueError`` whose
message starts with the *parameter name*, so a lesson cell that passes bad input
gets a sentence it can act on instead of a silently wrong array.

Conventions
-----------
* ``TypeError``  -- the kind of thing is wrong (a float where a count is needed,
  a string, a bool, a non-boolean mask).
* ``ValueError`` -- the kind is right but the value is not (negative, odd,
  non-finite, wrong shape).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "as_int_array",
    "as_positions",
    "as_real_array",
    "check_angles_finite",
    "check_bool",
    "check_count",
    "check_d_model",
    "check_finite",
    "check_positive",
    "check_positive_int",
    "check_seed",
]


def _is_integer(value: object) -> bool:
    """True for ``int`` and numpy integer scalars, False for ``bool``/``np.bool_``."""
    if isinstance(value, bool | np.bool_):
        return False
    return isinstance(value, int | np.integer)


def check_count(n: Any, name: str) -> int:
    """Return ``n`` as a Python ``int`` >= 0 (``int`` or numpy integer; not bool)."""
    if not _is_integer(n):
        raise TypeError(f"{name} must be an int count, got {type(n).__name__} {n!r}")
    n = int(n)
    if n < 0:
        raise ValueError(f"{name} must be a non-negative count, got {n}")
    return n


def check_positive_int(value: Any, name: str) -> int:
    """Return ``value`` as a positive Python ``int`` (``int`` or numpy integer; not bool)."""
    if not _is_integer(value):
        raise TypeError(f"{name} must be a positive int, got {type(value).__name__} {value!r}")
    value = int(value)
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return value


def check_d_model(d_model: Any, name: str = "d_model") -> int:
    """Return ``d_model`` as a positive, even Python ``int``."""
    d_model = check_positive_int(d_model, name)
    if d_model % 2:
        raise ValueError(f"{name} must be even (dimensions come in sin/cos pairs), got {d_model}")
    return d_model


def check_bool(value: Any, name: str) -> bool:
    """Return ``value`` as a Python ``bool`` (``bool`` or ``np.bool_``; not 0/1)."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def check_positive(value: Any, name: str) -> float:
    """Return ``value`` as a finite float > 0 (used for ``base`` and ``std``)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a positive finite number, got {type(value).__name__} {value!r}")
    result = float(value)
    if not np.isfinite(result) or result <= 0.0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return result


def check_seed(seed: Any) -> int | None:
    """Return ``seed`` unchanged if it is ``None`` or a non-negative int."""
    if seed is None:
        return None
    if not _is_integer(seed):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return int(seed)


def _all_real(arr: NDArray[np.object_]) -> bool:
    """True if every element of an object array is a real number (e.g. a big Python int)."""
    return all(isinstance(e, int | float | np.integer | np.floating) and not isinstance(e, bool) for e in arr.flat)


def _first_nonfinite(a: NDArray[Any]) -> tuple[tuple[int, ...], Any]:
    """Index and value of the first NaN/inf in ``a`` (which must contain one)."""
    index = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
    return index, a[index]


def check_finite(a: NDArray[Any], name: str) -> None:
    """Raise ``ValueError`` naming ``name`` if the float array ``a`` holds a NaN or an infinity.

    Fast path: the sum of an array is finite only if every element is (a NaN or
    an inf anywhere propagates), and ``sum`` needs no boolean temporary. Only if
    the sum is not finite -- bad data, or a harmless overflow -- do we look at
    each element.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(a, axis=None)
    if np.isfinite(total) or np.isfinite(a).all():
        return
    index, value = _first_nonfinite(a)
    raise ValueError(f"{name} must be finite (no NaN or inf), found {value} at index {index}")


def as_real_array(x: ArrayLike, name: str, *, min_ndim: int) -> NDArray[np.floating]:
    """Convert ``x`` to a finite floating array with at least ``min_ndim`` axes.

    Floating input keeps its dtype; integer input becomes float64. Bool,
    complex, string and object arrays are rejected with ``TypeError``.
    """
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:  # ragged nested lists, ...
        raise ValueError(f"{name} must be a rectangular numeric array: {err}") from None
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimensions, got shape {arr.shape}")
    if arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    check_finite(arr, name)
    return arr


def as_int_array(x: ArrayLike, name: str) -> NDArray[np.int64]:
    """Convert an int or an array_like of integers to an int64 array of the same shape.

    Bool, float (even whole-valued), complex, string and object arrays are
    rejected with ``TypeError``: an offset or an index is a whole number by type.
    """
    if isinstance(x, bool | np.bool_):
        raise TypeError(f"{name} must hold integers, got {type(x).__name__} {x!r}")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:  # ragged nested lists, ...
        raise ValueError(f"{name} must be a rectangular array of integers: {err}") from None
    if arr.size == 0 and arr.dtype.kind == "f":  # np.asarray([]) is float64
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "O" and arr.size and all(_is_integer(e) for e in arr.flat):
        try:
            arr = arr.astype(np.int64)
        except OverflowError:
            raise ValueError(f"{name} holds an integer outside the int64 range") from None
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.dtype == np.uint64 and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds an integer outside the int64 range, the largest is {int(arr.max())}")
    return arr.astype(np.int64)


def as_positions(positions: ArrayLike, name: str = "positions") -> NDArray[np.float64]:
    """Return positions as a finite 1-D float64 array, shape ``(n,)``.

    An int (or numpy integer) ``n`` means ``0, 1, ..., n - 1``; anything else
    must be a 1-D array-like of finite real numbers.
    """
    if _is_integer(positions):
        return np.arange(check_count(positions, name), dtype=np.float64)
    if isinstance(positions, bool | np.bool_ | float | complex | str | bytes | np.generic):
        raise TypeError(
            f"{name} must be an int count n or a 1-D array of positions, got {type(positions).__name__} {positions!r}"
        )
    try:
        arr = np.asarray(positions)
    except (ValueError, TypeError) as err:
        raise ValueError(f"{name} must be a 1-D array of finite numbers: {err}") from None
    if arr.dtype.kind not in "iufO" or (arr.dtype.kind == "O" and not _all_real(arr)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one position per row), got shape {arr.shape}")
    try:
        arr = arr.astype(np.float64)
    except (ValueError, TypeError, OverflowError) as err:
        raise TypeError(f"{name} must hold real numbers: {err}") from None
    check_finite(arr, name)
    return arr


def check_angles_finite(positions: NDArray[np.float64], max_rate: float, base: float) -> None:
    """Raise ``ValueError`` if some ``position * frequency`` would overflow to inf.

    Only reachable with ``base < 1`` (frequencies above 1) and astronomically
    large positions; ``sin(inf)`` would be NaN, so we refuse instead.
    """
    if not np.isfinite(max_rate):
        raise ValueError(f"base={base} is too small: its fastest frequency overflows float64; use base > 1")
    if positions.size == 0:
        return
    with np.errstate(over="ignore"):
        largest_angle = np.max(np.abs(positions)) * max_rate
    if not np.isfinite(largest_angle):
        raise ValueError(
            f"positions too large for base={base}: position * frequency overflows float64 "
            f"(largest |position| = {np.max(np.abs(positions))}); use base > 1 or smaller positions"
        )
