"""The outcomes' floor (`floor`): what a chatbot that does nothing, and one that does whatever it is asked, would
score on the run's own outcomes.

Each verified outcome carries its floor, measured with no call when it was stored (`intellagent.outcomes.floor`):
whether the empty trace reaches it, and whether the reckless trace does. This section counts them over the run's
outcomes (how many expect a change, how many a refusal; how many a do-nothing chatbot passes, marked
non-discriminating) and over the dialogs the outcome figures count, so that the outcome pass rate is read beside
what doing nothing would have scored there. `report.min_outcome_over_floor` gates on the difference.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts import Event
from intellagent.artifacts.rates import Rate, Share
from intellagent.artifacts.run_report import OutcomeFloors, Report
from intellagent.config import ReportConfig
from intellagent.reports.junit_cases import figure
from intellagent.reports.section import JudgedRun, Page, Section
from intellagent.reports.sections.outcome_grade import OUTCOMES
from intellagent.reports.text import counted, percent


def floor_figures(run: JudgedRun) -> OutcomeFloors | None:
    """The floors of the run's outcomes (None: no event has a verified outcome whose floor was measured)."""
    outcomes = {event.id: event.expected for event in run.artifacts.events if event.expected is not None}
    measured = {key: expected for key, expected in outcomes.items() if expected.floor is not None}
    if not measured:
        return None
    floors = {key: expected.floor for key, expected in measured.items() if expected.floor is not None}
    forbidding = [key for key, expected in measured.items() if expected.forbidden]
    events: dict[str, Event] = {event.id: event for event in run.artifacts.events}
    counted_on = [events[dialog.event_id] for dialog in run.artifacts.dialogs
                  if (outcome := run.outcomes.get(dialog.id)) is not None and outcome.counted
                  and dialog.event_id in floors]
    return OutcomeFloors(
        outcomes=len(measured),
        deliveries=sum(expected.kind == "delivery" for expected in measured.values()),
        nothing=Share.of(sum(floor.nothing for floor in floors.values()), len(floors)),
        forbidding=len(forbidding),
        reckless=Share.of(sum(floors[key].reckless for key in forbidding), len(forbidding)),
        non_discriminating=sorted(key for key, floor in floors.items() if floor.nothing),
        graded_floor=Rate.of(sum(floors[event.id].nothing for event in counted_on), len(counted_on)),
        unmeasured=len(outcomes) - len(measured),
    )


def floor_line(floors: OutcomeFloors, report: Report) -> str:
    """The floor in one line, beside the outcome pass rate."""
    nothing = floors.nothing
    line = (f"floor: a chatbot that does nothing would pass {nothing.count} of {counted(nothing.total, 'outcome')}"
            f" ({percent(nothing.rate)})")
    outcomes = OUTCOMES.of(report)
    graded = floors.graded_floor
    if outcomes is not None and outcomes.pass_rate.total and graded.total:
        line += (f", {percent(graded.rate)} of the graded dialogs against the outcome pass rate's "
                 f"{percent(outcomes.pass_rate.rate)}")
    refusals = floors.outcomes - floors.deliveries
    line += f"; {floors.deliveries} of {counted(floors.outcomes, 'outcome')} expect a change, {refusals} a refusal"
    if floors.forbidding:
        line += (f"; a reckless chatbot would pass {floors.reckless.count} of the {floors.forbidding} that forbid "
                 "a write")
    if floors.unmeasured:
        line += f"; {counted(floors.unmeasured, 'outcome')} stored before floors were measured"
    return line


def floor_panel(floors: OutcomeFloors, page: Page) -> str:
    """What the floor says, with the events a chatbot that does nothing passes."""
    listed = ", ".join(f'<a href="#dialog-{escape(event)}">{escape(event)}</a>' for event in floors.non_discriminating)
    return ('<section class="panel" id="floor"><h2>The outcomes\' floor</h2>'
            f'<p class="hint">{escape(floor_line(floors, page.report))}.</p>'
            + (f'<p class="hint">Non-discriminating (reached by doing nothing): {listed}.</p>' if listed else "")
            + "</section>")


def floor_gate(floors: OutcomeFloors | None, settings: ReportConfig, report: Report) -> list[str]:
    """`report.min_outcome_over_floor`: the outcome pass rate must stand this far above its floor over the same
    dialogs."""
    margin = settings.min_outcome_over_floor
    if margin is None:
        return []
    outcomes = OUTCOMES.of(report)
    if floors is None or outcomes is None or outcomes.pass_rate.rate is None or floors.graded_floor.rate is None:
        return [f"report.min_outcome_over_floor {margin:g} is set, but no dialog was graded against an outcome "
                "whose floor was measured"]
    above = outcomes.pass_rate.rate - floors.graded_floor.rate
    if above < margin:
        return [f"outcome pass rate {outcomes.pass_rate.rate:.1%} stands {above:+.1%} above what a chatbot that does "
                f"nothing would score on the same dialogs ({floors.graded_floor.rate:.1%}), less than "
                f"report.min_outcome_over_floor {margin:g}"]
    return []


FLOOR = Section(
    key="floor",
    figures=OutcomeFloors,
    measure=floor_figures,
    leads=True,
    summary=lambda floors, report: [floor_line(floors, report)],
    panel=floor_panel,
    settings=("min_outcome_over_floor",),
    gate=floor_gate,
    junit_properties=lambda floors: {"outcome_floor": figure(floors.graded_floor.rate)},
)
"""What a chatbot that does nothing, and a reckless one, would score on the run's outcomes."""
