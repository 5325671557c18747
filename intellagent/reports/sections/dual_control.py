"""Dual control (`dual_control`): the chatbot guiding the user through the user's own tools (dual), beside the
chatbot doing that part itself (solo), where the domain gives the user tools (see `simulate.control`).

Each way's dialogs are counted as every figure of the chatbot is: its pass rate over the dialogs with a
verdict, its outcome pass rate over those graded on an expected outcome, and the graded dialogs' calls
summed per side of the world (never a mean of ratios). A chatbot that passes solo and fails dual knows
what to do and fails to get the user to do it. It leads the summary and the page, beside the outcome grade.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Literal

from intellagent.artifacts import Analysis, Dialog
from intellagent.artifacts.rates import difference_interval
from intellagent.artifacts.run_report import CallScore, ControlResult, DialogOutcome, DualControl, Rate
from intellagent.reports.dialog_analysis import RATED
from intellagent.reports.section import JudgedRun, Section
from intellagent.reports.text import percent, points


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
    if len(results) < 2:
        return DualControl(results=results)
    of: Literal["outcome", "tau"] = "tau" if all(r.tau_pass_rate is not None for r in results) else "outcome"
    dual, solo = (r.tau_pass_rate if of == "tau" else r.outcome_pass_rate for r in results)
    assert dual is not None and solo is not None
    interval = difference_interval((solo.passed, solo.total), (dual.passed, dual.total))
    if interval is None or solo.rate is None or dual.rate is None:
        return DualControl(results=results, gap_of=of)
    return DualControl(results=results, gap=round(solo.rate - dual.rate, 4), gap_of=of,
                       gap_low=round(interval[0], 4), gap_high=round(interval[1], 4))


def _result(way: Literal["dual", "solo"], dialogs: list[Dialog], analyses: dict[str, Analysis],
            outcomes: dict[str, DialogOutcome | None]) -> ControlResult:
    rated = [analyses[d.id] for d in dialogs if d.id in analyses and analyses[d.id].status in RATED]
    graded = [outcome.grade for d in dialogs if (outcome := outcomes.get(d.id)) is not None and outcome.counted
              and outcome.grade is not None]
    rewarded = [d for d in dialogs if d.tau is not None and d.status != "error"]
    return ControlResult(
        control=way,
        dialogs=len(dialogs),
        pass_rate=Rate.of(sum(a.status == "pass" for a in rated), len(rated)),
        outcome_pass_rate=Rate.of(sum(grade.passed for grade in graded), len(graded)),
        company_calls=_summed(grade.sides.get("company", [0, 0, 0]) for grade in graded),
        user_calls=_summed(grade.sides.get("user", [0, 0, 0]) for grade in graded),
        tau_pass_rate=Rate.of(sum(d.tau.passed for d in rewarded), len(rewarded)) if rewarded else None,
    )


def _summed(counts: Iterable[list[int]]) -> CallScore:
    expected, made, matched = (sum(column) for column in zip(*counts, [0, 0, 0], strict=True))
    return CallScore.of(expected=expected, made=made, matched=matched)


def dual_control_line(figures: DualControl) -> str:
    """Each way's pass rate and outcome pass rate, and the gap, in one line of the summary."""
    parts = [f"{result.control} {_rate(result.pass_rate)} passed, outcome {_rate(result.outcome_pass_rate)}"
             for result in figures.results]
    return "dual control: " + "; ".join(parts) + _gap(figures)


def _gap(figures: DualControl) -> str:
    """The gap and its interval, as the summary and the page say it (nothing without one)."""
    if figures.gap is None:
        return ""
    of = "τ-bench reward" if figures.gap_of == "tau" else "outcome"
    return (f"; solo minus dual {of}: {points(figures.gap)} (95% CI {points(figures.gap_low, '')} to "
            f"{points(figures.gap_high)})")


def dual_control_panel(figures: DualControl) -> str:
    """The report page's panel: each way's dialogs, pass rates and calls per side."""
    rows = "".join(
        f"<tr><td>{result.control}</td><td>{result.dialogs}</td><td>{escape(_rate(result.pass_rate))}</td>"
        f"<td>{escape(_rate(result.outcome_pass_rate))}</td><td>{escape(_calls(result.company_calls))}</td>"
        f"<td>{escape(_calls(result.user_calls))}</td></tr>"
        for result in figures.results
    )
    gap = "" if figures.gap is None else (
        f" {escape(_gap(figures).removeprefix('; ').capitalize())}: a chatbot that passes solo and fails dual knows "
        "what to do and does not get the user to do it.")
    return (
        '<section class="panel"><h2>Dual control</h2>'
        '<p class="hint">The user acts on its own side of the world: dual, as the chatbot guides it; solo, the '
        f"chatbot holds the user's tools itself.{gap}</p>"
        '<table class="compact"><thead><tr><th>Played</th><th>Dialogs</th><th>Pass rate</th><th>Outcome pass rate'
        "</th><th>Chatbot's tools (P / R)</th><th>User's tools (P / R)</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></section>"
    )


def _rate(rate: Rate) -> str:
    return f"{rate.passed} of {rate.total} ({percent(rate.rate)})"


def _calls(score: CallScore) -> str:
    return f"{percent(score.precision.rate)} / {percent(score.recall.rate)}"


def _measure(run: JudgedRun) -> DualControl | None:
    return dual_control(run.artifacts.dialogs, run.artifacts.solo_dialogs, run.analyses, run.outcomes)


DUAL_CONTROL = Section(
    key="dual_control",
    figures=DualControl,
    measure=_measure,
    leads=True,
    summary=lambda figures, report: [dual_control_line(figures)],
    panel=lambda figures, page: dual_control_panel(figures),
)
"""Dual control beside solo, where the user has tools of its own."""
