"""Benchmark posenc against the bare numpy work it cannot avoid.

Run:  python benchmarks/bench_posenc.py [--repeats N]

Two comparisons, timed side by side in one process with the repeats
interleaved (A, B, A, B, ...) so that machine noise hits both alike; we report
medians of ``time.perf_counter`` wall times.

1. ``sinusoidal(8192, 1024)`` vs ``np.sin(a)`` + ``np.cos(a)`` on a precomputed
   angle array ``a`` of 8192 x 512 -- the transcendental work alone.
   Goal: ratio <= 1.3.
2. ``rope(x)`` on x of shape (8, 32, 2048, 128), float64, vs the minimal numpy
   expression ``x * cos + rotate(x) * sin`` with precomputed full-width cos/sin
   tables (for each pairing, its own ``rotate``). Goal: ratio <= 1.5.

This is a report, not a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import posenc

SIN_GOAL = 1.3
ROPE_GOAL = 1.5


def time_interleaved(cases: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median seconds per case; each round runs every case once, in turn."""
    for fn in cases.values():  # warm-up: page in code and allocator pools
        fn()
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeats):
        for name, fn in cases.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def sinusoidal_cases(n: int = 8192, d_model: int = 1024) -> dict[str, Callable[[], object]]:
    """posenc.sinusoidal vs bare sin + cos over n * d_model/2 angles each."""
    angles = np.arange(n, dtype=np.float64)[:, None] * posenc.frequencies(d_model)  # (n, d/2)

    def bare_sin_cos() -> object:
        return np.sin(angles), np.cos(angles)

    return {
        f"posenc.sinusoidal({n}, {d_model})": lambda: posenc.sinusoidal(n, d_model),
        f"np.sin + np.cos on {n}x{d_model // 2}": bare_sin_cos,
    }


def rope_cases(
    shape: tuple[int, ...] = (8, 32, 2048, 128),
) -> dict[str, dict[str, Callable[[], object]]]:
    """posenc.rope vs ``x * cos + rotate(x) * sin`` with precomputed tables, per pairing."""
    x = np.random.default_rng(0).standard_normal(shape)  # (batch, heads, seq, d)
    seq, d = shape[-2:]
    half = d // 2
    angles = np.arange(seq, dtype=np.float64)[:, None] * posenc.frequencies(d)  # (seq, d/2)
    cos, sin = np.cos(angles), np.sin(angles)

    # interleaved: cos/sin repeated per pair, rotate(x)[2i], [2i+1] = -x[2i+1], x[2i]
    cos_i, sin_i = np.repeat(cos, 2, axis=-1), np.repeat(sin, 2, axis=-1)  # (seq, d)

    def baseline_interleaved() -> object:
        rotated = np.stack((-x[..., 1::2], x[..., 0::2]), axis=-1).reshape(x.shape)
        return x * cos_i + rotated * sin_i

    # half (rotate_half): cos/sin tiled twice, rotate(x) = concat(-x2, x1)
    cos_h, sin_h = np.concatenate((cos, cos), axis=-1), np.concatenate((sin, sin), axis=-1)

    def baseline_half() -> object:
        rotated = np.concatenate((-x[..., half:], x[..., :half]), axis=-1)
        return x * cos_h + rotated * sin_h

    for pairing, baseline in (("interleaved", baseline_interleaved), ("half", baseline_half)):
        assert np.allclose(posenc.rope(x[:1], pairing=pairing), baseline()[:1])

    return {
        pairing: {
            f"posenc.rope(x, pairing={pairing!r})": lambda p=pairing: posenc.rope(x, pairing=p),
            f"x*cos + rotate(x)*sin ({pairing})": baseline,
        }
        for pairing, baseline in (("interleaved", baseline_interleaved), ("half", baseline_half))
    }


def report(title: str, medians: dict[str, float], goal: float) -> float:
    """Print one comparison table; return ours / baseline."""
    (ours_name, ours), (base_name, base) = medians.items()
    ratio = ours / base
    verdict = "meets" if ratio <= goal else "MISSES"
    print(f"\n{title}")
    print(f"  {'case':<44} {'median ms':>10}")
    print(f"  {ours_name:<44} {ours * 1e3:>10.1f}")
    print(f"  {base_name:<44} {base * 1e3:>10.1f}")
    print(f"  ratio {ratio:.2f}  (goal <= {goal}: {verdict})")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed rounds per case")
    args = parser.parse_args()
    print(f"numpy {np.__version__}, posenc {posenc.__version__}, {args.repeats} interleaved rounds")

    ratios = {
        "sinusoidal": report(
            "sinusoidal vs bare sin/cos",
            time_interleaved(sinusoidal_cases(), args.repeats),
            SIN_GOAL,
        )
    }
    for pairing, cases in rope_cases().items():
        ratios[f"rope ({pairing})"] = report(
            f"rope ({pairing}) on (8, 32, 2048, 128) float64 vs precomputed-table expression",
            time_interleaved(cases, args.repeats),
            ROPE_GOAL,
        )
    print("\nsummary: " + ", ".join(f"{name} {r:.2f}" for name, r in ratios.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
