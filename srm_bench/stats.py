"""Confidence intervals for the reported metrics."""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial rate (95% by default).

    Example:
        >>> lo, hi = wilson_interval(50, 100); round(lo, 4), round(hi, 4)
        (0.4038, 0.5962)
    """
    if n <= 0:
        raise ValueError("n must be positive")
    if not 0 <= successes <= n:
        raise ValueError("successes must lie in [0, n]")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # The exact ends for 0 and n successes (rounding would otherwise leave ~1e-19).
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def mean_interval(values: np.ndarray, z: float = Z95) -> tuple[float, float]:
    """Normal-approximation interval of a mean: mean +- z * s / sqrt(n) (s with ddof=1)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        raise ValueError("no values")
    m = float(v.mean())
    if v.size == 1:
        return m, m
    half = z * float(v.std(ddof=1)) / math.sqrt(v.size)
    return m - half, m + half
