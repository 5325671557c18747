"""The report's curves: pass rates against challenge level, and pass^k over repeated trials.

A dialog counts at every challenge level up to its scenario's score. pass^k, as τ-bench defines it, is the
chance that all k trials of an event pass; from n ≥ k trials of which c passed, C(c, k) / C(n, k) estimates it
without bias, and a curve's point is the mean over the events with at least k trials.
"""

from __future__ import annotations

from intellagent.artifacts.rates import pass_hat_k
from intellagent.artifacts.run_report import LevelResult, PassK, Rate


def rate_by_level(results: list[tuple[int, bool]]) -> list[LevelResult]:
    """The pass rate of the items at or above each challenge level, from the lowest level seen to the highest.

    Args:
        results: per item, its challenge score and whether it passed.
    """
    if not results:
        return []
    scores = [score for score, _ in results]
    levels = []
    for level in range(min(scores), max(scores) + 1):
        group = [passed for score, passed in results if score >= level]
        levels.append(LevelResult(level=level, pass_rate=Rate.of(sum(group), len(group))))
    return levels


def pass_k_curve(outcomes: dict[str, list[bool]], trials: int) -> list[PassK]:
    """pass^k for k = 1..trials, each the mean over the events with at least k trials.

    Args:
        outcomes: per event, whether each of its trials passed.
        trials: the most trials an event had.
    """
    curve = []
    for k in range(1, trials + 1):
        estimates = [pass_hat_k(len(held), sum(held), k) for held in outcomes.values() if len(held) >= k]
        value = round(sum(estimates) / len(estimates), 4) if estimates else None
        curve.append(PassK(k=k, value=value, events=len(estimates)))
    return curve
