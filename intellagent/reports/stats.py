"""The statistics behind the reports: a confidence interval for a pass rate and a test for a drop.

Both are exact formulas on small counts (a policy is often tested only a handful of times), written
with the standard library.
"""

from __future__ import annotations

from math import comb, sqrt

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


def fisher_worse(before: tuple[int, int], after: tuple[int, int]) -> float:
    """One-sided Fisher exact test: the p-value that `after` passes less often than `before` by chance.

    Args:
        before: (passed, total) of the earlier run.
        after: (passed, total) of this run.

    With both runs' totals and the pooled number of passes fixed, the passes of this run follow a
    hypergeometric law under "no change"; the p-value is the chance of this few passes or fewer.
    """
    passed_before, total_before = before
    passed_after, total_after = after
    total = total_before + total_after
    passes = passed_before + passed_after
    if total_before == 0 or total_after == 0:
        return 1.0
    lowest = max(0, passes - total_before)
    ways = sum(comb(passes, k) * comb(total - passes, total_after - k) for k in range(lowest, passed_after + 1))
    return ways / comb(total, total_after)
