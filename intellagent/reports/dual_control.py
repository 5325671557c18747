"""The report's dual-control figures: the chatbot guiding the user through the user's own tools (dual), beside
the chatbot doing that part itself (solo), where the domain gives the user tools (see `simulate.control`).

Each way's dialogs are counted as every figure of the chatbot is: its pass rate over the dialogs with a
verdict, its outcome pass rate over those graded on an expected outcome, and the graded dialogs' calls
summed per side of the world (never a mean of ratios). A chatbot that passes solo and fails dual knows
what to do and fails to get the user to do it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from intellagent.artifacts import Analysis, Dialog
from intellagent.artifacts.report import CallScore, ControlResult, DialogOutcome, DualControl, Rate
from intellagent.reports.analysis import RATED


def dual_control(dialogs: list[Dialog], solo: list[Dialog], analyses: dict[str, Analysis],
                 outcomes: dict[str, DialogOutcome | None]) -> DualControl | None:
    """Dual and solo results, each of the ways the run played (None when no dialog's user had tools).

    Args:
        dialogs: the chatbot's dialogs (the run's own way).
        solo: the solo dialogs played beside them (`simulate.dual_control: both`).
        analyses: every dialog's analysis, by dialog id.
        outcomes: every dialog against its event's expected outcome, by dialog id.
    """
    played = [dialog for dialog in [*dialogs, *solo] if dialog.control is not None]
    if not played:
        return None
    results = [_result(way, [d for d in played if d.control == way], analyses, outcomes)
               for way in ("dual", "solo") if any(d.control == way for d in played)]
    rates = [result.outcome_pass_rate.rate for result in results]
    gap = round(rates[1] - rates[0], 4) if len(rates) == 2 and None not in rates else None  # type: ignore[operator]
    return DualControl(results=results, gap=gap)


def _result(way: Literal["dual", "solo"], dialogs: list[Dialog], analyses: dict[str, Analysis],
            outcomes: dict[str, DialogOutcome | None]) -> ControlResult:
    rated = [analyses[d.id] for d in dialogs if d.id in analyses and analyses[d.id].status in RATED]
    graded = [outcome.grade for d in dialogs if (outcome := outcomes.get(d.id)) is not None and outcome.counted
              and outcome.grade is not None]
    return ControlResult(
        control=way,
        dialogs=len(dialogs),
        pass_rate=Rate.of(sum(a.status == "pass" for a in rated), len(rated)),
        outcome_pass_rate=Rate.of(sum(grade.passed for grade in graded), len(graded)),
        company_calls=_summed(grade.sides.get("company", [0, 0, 0]) for grade in graded),
        user_calls=_summed(grade.sides.get("user", [0, 0, 0]) for grade in graded),
    )


def _summed(counts: Iterable[list[int]]) -> CallScore:
    expected, made, matched = (sum(column) for column in zip(*counts, [0, 0, 0], strict=True))
    return CallScore.of(expected=expected, made=made, matched=matched)
