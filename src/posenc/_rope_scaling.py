"""RoPE frequencies and their long-context rescalings, in Hugging Face's ``rope_scaling`` convention.

A model trained on ``L`` positions has never seen rotation angles beyond
``L * theta_i``. The rescalings change the frequencies ``theta_i`` so that a
longer context maps back onto angles the model knows:

* ``linear`` -- position interpolation (Chen et al. 2023): every ``theta_i / s``;
* ``ntk`` -- NTK-aware base change (bloc97, 2023): ``base * s^(d / (d - 2))``;
* ``yarn`` -- YaRN (Peng et al. 2023): interpolate the slow pairs, keep the fast
  ones, ramp in between, and scale attention by ``0.1 ln s + 1``;
* ``llama3`` -- LLaMA 3.1: the same idea with a ramp set by wavelengths.

The arithmetic mirrors ``src/transformers/modeling_rope_utils.py`` of Hugging
Face transformers (``_compute_linear_scaling_rope_parameters``,
``_compute_yarn_parameters``, ``_compute_llama3_parameters``; read at commit
ef46806472a64b0013ed413781e3afed82bfa047), in float64 where transformers uses
float32. YaRN's context ``L`` is ``original_max_position_embeddings`` of the
mapping, as in later transformers versions (that commit read the model's
``max_position_embeddings`` instead); its ``truncate`` option is always on.
``ntk`` is the static NTK-aware base change, not transformers' ``dynamic``
type, which recomputes the base from the current sequence length.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from posenc._validate import check_d_model, check_positive

__all__ = ["ROPE_TYPES", "default_inv_freq", "rope_frequencies"]

ROPE_TYPES: tuple[str, ...] = ("default", "linear", "ntk", "yarn", "llama3")
"""Valid values of ``scaling["rope_type"]``."""

_REQUIRED_KEYS: dict[str, tuple[str, ...]] = {
    "default": (),
    "linear": ("factor",),
    "ntk": ("factor",),
    "yarn": ("factor", "original_max_position_embeddings"),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
}
_OPTIONAL_KEYS: dict[str, tuple[str, ...]] = {"yarn": ("beta_fast", "beta_slow", "attention_factor")}
_YARN_DEFAULTS = {"beta_fast": 32.0, "beta_slow": 1.0}


def default_inv_freq(head_dim: int, base: float) -> NDArray[np.float64]:
    """Unscaled ``theta_i = base^(-2i / head_dim)``, shape ``(head_dim // 2,)``; no checks."""
    return base ** (-np.arange(0, head_dim, 2) / head_dim)


def rope_frequencies(
    head_dim: int, *, base: float = 10000.0, scaling: Mapping[str, Any] | None = None
) -> tuple[NDArray[np.float64], float]:
    r"""RoPE's per-pair frequencies, optionally rescaled for a longer context.

    Unscaled, pair ``i`` of a head of width ``d`` turns at

    .. math:: \theta_i = \mathrm{base}^{-2i/d}, \quad i = 0, \dots, d/2 - 1 .

    ``scaling`` follows the ``rope_scaling`` entry of a Hugging Face config, with
    factor ``s``, original context ``L`` and wavelength :math:`\lambda_i = 2\pi/\theta_i`:

    * ``{"rope_type": "linear", "factor": s}`` -- position interpolation
      (Chen et al. 2023): :math:`\theta_i / s`.
    * ``{"rope_type": "ntk", "factor": s}`` -- NTK-aware scaling (bloc97, 2023):
      the unscaled formula with :math:`\mathrm{base}' = \mathrm{base}\cdot s^{d/(d-2)}`.
    * ``{"rope_type": "yarn", "factor": s, "original_max_position_embeddings": L}``,
      optional ``beta_fast`` (32), ``beta_slow`` (1), ``attention_factor`` --
      YaRN (Peng et al. 2023): with the correction dimension
      :math:`c(r) = d \ln(L / 2\pi r) / (2 \ln \mathrm{base})`,
      ``low = max(floor(c(beta_fast)), 0)``, ``high = min(ceil(c(beta_slow)), d - 1)``
      and the ramp :math:`\gamma_i = 1 - \mathrm{clip}((i - low)/(high - low), 0, 1)`,
      :math:`\theta'_i = \theta_i/s \cdot (1 - \gamma_i) + \theta_i \gamma_i`.
      The attention scale is ``attention_factor``, by default :math:`0.1 \ln s + 1`.
    * ``{"rope_type": "llama3", "factor": s, "low_freq_factor": a,
      "high_freq_factor": b, "original_max_position_embeddings": L}`` --
      LLaMA 3.1: :math:`\theta_i` is kept if :math:`\lambda_i < L/b`, divided by
      ``s`` if :math:`\lambda_i > L/a`, and in between
      :math:`(1 - g)\,\theta_i/s + g\,\theta_i` with :math:`g = (L/\lambda_i - a)/(b - a)`.
    * ``{"rope_type": "default"}`` -- no rescaling, like ``scaling=None``.

    The legacy key ``"type"`` is accepted in place of ``"rope_type"``, as in transformers.

    Parameters
    ----------
    head_dim : int
        Width ``d`` of one attention head, positive and even (at least 4 for ``ntk``).
    base : float, default 10000.0
        Frequency base, positive and finite (above 1 for ``yarn``).
    scaling : mapping, optional
        ``None`` or a ``rope_scaling`` mapping as above. Numbers must be
        positive and finite, ``factor >= 1``, ``high_freq_factor > low_freq_factor``
        and ``beta_fast >= beta_slow``. Keys not listed for the type are refused.

    Returns
    -------
    inv_freq : ndarray of float64, shape (head_dim // 2,)
        The (rescaled) frequencies :math:`\theta_i`, radians per position.
    attention_scale : float
        Factor that multiplies the rotated queries and keys: 1.0 except for ``yarn``.

    Raises
    ------
    TypeError
        If ``head_dim`` is not an int, ``base`` or a scaling value is not a
        number, or ``scaling`` is not a mapping.
    ValueError
        If ``head_dim`` is odd or not positive, ``base`` is not positive and
        finite, or ``scaling`` has an unknown ``rope_type``, a missing or
        unknown key, ``factor < 1`` or another bad value; the message names the key.

    Examples
    --------
    >>> inv_freq, scale = rope_frequencies(4, base=100.0)
    >>> inv_freq, scale
    (array([1. , 0.1]), 1.0)
    >>> rope_frequencies(4, base=100.0, scaling={"rope_type": "linear", "factor": 2.0})[0]
    array([0.5 , 0.05])
    >>> inv_freq, scale = rope_frequencies(
    ...     128, scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096})
    >>> round(scale, 4)  # 0.1 ln 4 + 1
    1.1386
    """
    head_dim = check_d_model(head_dim, name="head_dim")
    base = check_positive(base, "base")
    if scaling is None:
        return default_inv_freq(head_dim, base), 1.0
    rope_type, params = _read_scaling(scaling)
    compute = _COMPUTE[rope_type]
    return compute(head_dim, base, params)


def _read_scaling(scaling: Any) -> tuple[str, dict[str, float]]:
    """Check ``scaling``; return its ``rope_type`` and its numbers as floats."""
    if not isinstance(scaling, Mapping):
        raise TypeError(
            "scaling must be None or a mapping like {'rope_type': 'linear', 'factor': 2.0}, "
            f"got {type(scaling).__name__}"
        )
    type_key = "type" if "type" in scaling and "rope_type" not in scaling else "rope_type"
    if type_key not in scaling:
        raise ValueError(f"scaling is missing the key 'rope_type' (one of {ROPE_TYPES}), got keys {sorted(scaling)}")
    rope_type = scaling[type_key]
    if rope_type not in ROPE_TYPES:
        raise ValueError(f"scaling['{type_key}'] must be one of {ROPE_TYPES}, got {rope_type!r}")
    required, optional = _REQUIRED_KEYS[rope_type], _OPTIONAL_KEYS.get(rope_type, ())
    missing = [key for key in required if key not in scaling]
    if missing:
        raise ValueError(f"scaling is missing the key '{missing[0]}' (rope_type {rope_type!r} needs {required})")
    unknown = sorted(set(scaling) - {type_key, *required, *optional})
    if unknown:
        raise ValueError(
            f"scaling has the unknown key '{unknown[0]}' for rope_type {rope_type!r} (allowed: {required + optional})"
        )
    params = {key: check_positive(scaling[key], f"scaling['{key}']") for key in required + optional if key in scaling}
    if "factor" in params and params["factor"] < 1.0:
        raise ValueError(f"scaling['factor'] must be >= 1 (it stretches the context), got {scaling['factor']!r}")
    return rope_type, params


def _default(head_dim: int, base: float, params: dict[str, float]) -> tuple[NDArray[np.float64], float]:
    return default_inv_freq(head_dim, base), 1.0


def _linear(head_dim: int, base: float, params: dict[str, float]) -> tuple[NDArray[np.float64], float]:
    """Position interpolation: positions m -> m / s, i.e. every theta_i / s."""
    return default_inv_freq(head_dim, base) / params["factor"], 1.0


def _ntk(head_dim: int, base: float, params: dict[str, float]) -> tuple[NDArray[np.float64], float]:
    """NTK-aware: a larger base, so the slowest pair is interpolated by s and the fastest barely moves."""
    if head_dim < 4:
        raise ValueError(f"head_dim must be at least 4 for rope_type 'ntk' (the exponent is d/(d-2)), got {head_dim}")
    new_base = base * params["factor"] ** (head_dim / (head_dim - 2))
    return default_inv_freq(head_dim, new_base), 1.0


def _yarn_correction_dim(rotations: float, head_dim: int, base: float, context: float) -> float:
    """The dimension index whose pair turns ``rotations`` times over ``context`` positions."""
    return head_dim * math.log(context / (rotations * 2 * math.pi)) / (2 * math.log(base))


def _yarn(head_dim: int, base: float, params: dict[str, float]) -> tuple[NDArray[np.float64], float]:
    """YaRN: interpolate pairs that turn fewer than beta_slow times over L, keep those above beta_fast."""
    if base <= 1.0:
        raise ValueError(f"base must be > 1 for rope_type 'yarn' (it divides by ln base), got {base}")
    factor, context = params["factor"], params["original_max_position_embeddings"]
    beta_fast = params.get("beta_fast", _YARN_DEFAULTS["beta_fast"])
    beta_slow = params.get("beta_slow", _YARN_DEFAULTS["beta_slow"])
    if beta_fast < beta_slow:
        raise ValueError(f"scaling['beta_fast'] must be >= scaling['beta_slow'], got {beta_fast} < {beta_slow}")
    low = max(math.floor(_yarn_correction_dim(beta_fast, head_dim, base, context)), 0)
    high = min(math.ceil(_yarn_correction_dim(beta_slow, head_dim, base, context)), head_dim - 1)
    if low == high:
        high += 0.001  # as transformers: avoid a zero-width ramp
    theta = default_inv_freq(head_dim, base)
    ramp = np.clip((np.arange(theta.size) - low) / (high - low), 0.0, 1.0)
    keep = 1.0 - ramp  # 1: extrapolate (unchanged), 0: interpolate (divide by s)
    attention_scale = params.get("attention_factor", 0.1 * math.log(factor) + 1.0)
    return theta / factor * (1.0 - keep) + theta * keep, attention_scale


def _llama3(head_dim: int, base: float, params: dict[str, float]) -> tuple[NDArray[np.float64], float]:
    """LLaMA 3.1: keep short wavelengths, divide long ones by s, blend in between."""
    factor, context = params["factor"], params["original_max_position_embeddings"]
    low_freq_factor, high_freq_factor = params["low_freq_factor"], params["high_freq_factor"]
    if high_freq_factor <= low_freq_factor:
        raise ValueError(
            f"scaling['high_freq_factor'] must be > scaling['low_freq_factor'], "
            f"got {high_freq_factor} <= {low_freq_factor}"
        )
    theta = default_inv_freq(head_dim, base)
    wavelength = 2 * math.pi / theta
    # 0 for wavelengths above L/a (divide by s), 1 below L/b (keep), linear in L/lambda between.
    blend = np.clip((context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor), 0.0, 1.0)
    return (1.0 - blend) * theta / factor + blend * theta, 1.0


_COMPUTE = {"default": _default, "linear": _linear, "ntk": _ntk, "yarn": _yarn, "llama3": _llama3}
