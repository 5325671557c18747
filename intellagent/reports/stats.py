"""The test behind a baseline comparison: whether a policy passes less often than before by chance.

An exact formula on small counts (a policy is often tested only a handful of times), written
with the standard library.
"""

from __future__ import annotations

from math import comb


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
