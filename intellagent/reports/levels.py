"""Pass rates against challenge level: a dialog counts at every level up to its scenario's challenge score."""

from __future__ import annotations

from intellagent.artifacts.report import LevelResult, Rate


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
