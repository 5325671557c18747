"""Rates as report.json gives them: the counts, the rate and its 95% Wilson interval, the interval of the
difference of two rates, the estimate of pass^k from repeated trials, and two readers' agreement beyond chance
(Cohen's kappa) with its interval.

Each is a formula on small counts (a policy is often tested only a handful of times), written with the standard
library.
"""

from __future__ import annotations

from math import comb, sqrt

from pydantic import BaseModel

# The 97.5th percentile of the standard normal: a two-sided 95% interval.
Z_95 = 1.959963984540054


def wilson_interval(passed: float, total: int, *, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of a pass rate (95% by default); None when nothing was counted.

    `passed` may be fractional: the sum of per-item estimates in [0, 1] (a mean of such values has at
    most the variance of a proportion).

    Unlike the normal approximation it stays inside [0, 1] and is not empty at 0/n or n/n, which
    matters for rates measured on a few dialogs.
    """
    if total <= 0:
        return None
    p = passed / total
    z2 = z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z * sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def difference_interval(first: tuple[int, int], second: tuple[int, int], *, z: float = Z_95
                        ) -> tuple[float, float] | None:
    """Newcombe's interval (his method 10, 1998) of the difference between two pass rates, first minus second,
    each given as (passed, total): built from the two rates' Wilson intervals, so that it too stays sensible
    on a few dialogs. None when either rate counted nothing."""
    one, two = wilson_interval(*first, z=z), wilson_interval(*second, z=z)
    if one is None or two is None:
        return None
    p1, p2 = first[0] / first[1], second[0] / second[1]
    below = sqrt((p1 - one[0]) ** 2 + (two[1] - p2) ** 2)
    above = sqrt((one[1] - p1) ** 2 + (p2 - two[0]) ** 2)
    return max(-1.0, p1 - p2 - below), min(1.0, p1 - p2 + above)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass^k from `n` trials of which `c` passed.

    Raises:
        ValueError: not 0 ≤ c ≤ n, or not 1 ≤ k ≤ n.
    """
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass^k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    return comb(c, k) / comb(n, k)


class Rate(BaseModel):
    """How often something passed: the counts, the rate and its 95% Wilson interval (None if total is 0)."""

    passed: int
    total: int
    rate: float | None = None
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(cls, passed: int, total: int) -> Rate:
        """The rate of `passed` out of `total`, rounded to four places for a stable file."""
        return cls(passed=passed, total=total, **_estimate(passed, total))


class Share(BaseModel):
    """How often something happened (a false alarm, an agreement): counts, share and 95% Wilson interval."""

    count: int
    total: int
    rate: float | None = None
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(cls, count: int, total: int) -> Share:
        """The share of `count` out of `total`, rounded to four places for a stable file."""
        return cls(count=count, total=total, **_estimate(count, total))


def _estimate(count: int, total: int) -> dict[str, float]:
    interval = wilson_interval(count, total)
    if interval is None:
        return {}
    return {"rate": round(count / total, 4), "low": round(interval[0], 4), "high": round(interval[1], 4)}


class Kappa(BaseModel):
    """Cohen's kappa of two readers' yes-or-no answers on the same items, with its 95% interval: how far they agree
    beyond what their answers' shares alone would make them agree by chance (1: always; 0: as by chance)."""

    value: float | None = None
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(cls, both: int, first_only: int, second_only: int, neither: int) -> Kappa:
        """The kappa of a 2×2 table: items both readers said yes to, the first only, the second only, neither.

        The interval is κ ± 1.96·SE with Cohen's (1960) standard error, SE = √(pₒ(1 − pₒ) / (n(1 − pₑ)²)),
        clipped to [-1, 1]. The value is None when nothing was read, or when both readers gave the same one answer
        throughout (pₑ = 1: chance alone agrees).
        """
        n = both + first_only + second_only + neither
        if n == 0:
            return cls()
        observed = (both + neither) / n
        first_yes, second_yes = (both + first_only) / n, (both + second_only) / n
        chance = first_yes * second_yes + (1 - first_yes) * (1 - second_yes)
        if chance >= 1:
            return cls()
        kappa = (observed - chance) / (1 - chance)
        half = Z_95 * sqrt(observed * (1 - observed) / (n * (1 - chance) ** 2))
        return cls(value=round(kappa, 4), low=round(max(-1.0, kappa - half), 4), high=round(min(1.0, kappa + half), 4))
