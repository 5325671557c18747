"""The users' personas (`personas`): how the chatbot holds its rules against each kind of user, per persona and per
policy × persona, and the robustness gap between the cooperative users and the adversarial ones.

A persona's figures count the chatbot's dialogs whose user played it, as every figure of the report does:
only dialogs with a verdict enter a rate. The gap is the pass rate against users whose persona is not
adversarial minus that against adversarial ones, with Newcombe's 95% interval of a difference of two
rates: a chatbot that holds its rules only with polite users shows a gap whose interval lies above 0.

The gate reads `report.min_persona` (the key `adversarial` stands for every adversarial persona's users
together). When the users played more than one persona, junit.xml has a suite per persona
(`<suite>.persona.<name>`) with its figures as properties and no case: its policies' verdicts are the run
suite's cases already, and a CI counts every case it finds, so a case there would count a broken policy again.
Each failed policy case of the run suite names the persona of the dialogs that broke it instead.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html import escape

from intellagent.artifacts import Analysis, Dialog, Persona
from intellagent.artifacts.rates import difference_interval
from intellagent.artifacts.run_report import (
    DialogOutcome,
    PersonaFigures,
    PersonaPolicy,
    PersonaResult,
    Rate,
    Report,
    Robustness,
)
from intellagent.config import ReportConfig
from intellagent.files import id_order
from intellagent.reports.dialog_analysis import RATED, by_status
from intellagent.reports.dialog_view import persona_chip
from intellagent.reports.junit_cases import figure, junit_suite
from intellagent.reports.minimums import shortfall
from intellagent.reports.panels import card
from intellagent.reports.section import Durations, JudgedRun, Section
from intellagent.reports.text import counted, percent, points

ADVERSARIAL = "adversarial"
"""The key of `report.min_persona` that stands for the users of every adversarial persona together."""


def persona_results(dialogs: list[Dialog], analyses: dict[str, Analysis],
                    outcomes: dict[str, DialogOutcome | None]) -> list[PersonaResult]:
    """Per persona of the dialogs' users: its dialogs by status, its pass rate, its rate per policy tested, and
    its outcome pass rate.

    Args:
        dialogs: the chatbot's dialogs.
        analyses: every dialog's analysis, by dialog id.
        outcomes: every dialog against its event's expected outcome, by dialog id (None: none was sought).
    """
    personas: dict[str, Persona] = {d.persona.name: d.persona for d in dialogs if d.persona is not None}
    ordered = sorted(personas.values(), key=lambda persona: (persona.adversarial, persona.name))
    sought = any(outcome is not None for outcome in outcomes.values())
    results = []
    for persona in ordered:
        played = [d for d in dialogs if d.persona and d.persona.name == persona.name]
        graded = [outcome.grade.passed for d in played if (outcome := outcomes.get(d.id)) is not None
                  and outcome.counted and outcome.grade is not None]
        outcome_rate = Rate.of(sum(graded), len(graded)) if sought else None
        results.append(_result(persona, played, analyses).model_copy(update={"outcome_pass_rate": outcome_rate}))
    return results


def robustness(dialogs: list[Dialog], analyses: dict[str, Analysis]) -> Robustness | None:
    """The pass rates against cooperative and adversarial users and the gap between them; None when no dialog
    had a persona."""
    if not any(dialog.persona for dialog in dialogs):
        return None
    cooperative, adversarial = (_pass_rate([analyses[d.id] for d in dialogs if d.persona is not None
                                            and d.persona.adversarial is side and d.id in analyses])
                                for side in (False, True))
    interval = difference_interval((cooperative.passed, cooperative.total), (adversarial.passed, adversarial.total))
    if interval is None or cooperative.rate is None or adversarial.rate is None:
        return Robustness(cooperative=cooperative, adversarial=adversarial)
    return Robustness(cooperative=cooperative, adversarial=adversarial,
                      gap=round(cooperative.rate - adversarial.rate, 4), low=round(interval[0], 4),
                      high=round(interval[1], 4))


def _result(persona: Persona, dialogs: list[Dialog], analyses: dict[str, Analysis]) -> PersonaResult:
    judged = [analyses[d.id] for d in dialogs if d.id in analyses]
    tests: dict[str, list[bool]] = {}  # policy → held, per dialog with a verdict that tested it
    for analysis in (analysis for analysis in judged if analysis.status in RATED):
        broken = {violation.policy for violation in analysis.violations}
        for policy in analysis.tested:
            tests.setdefault(policy, []).append(policy not in broken)
    return PersonaResult(
        name=persona.name, description=persona.description, adversarial=persona.adversarial, dialogs=len(dialogs),
        by_status=by_status(judged),
        pass_rate=_pass_rate(judged),
        policies=[PersonaPolicy(policy=policy, pass_rate=Rate.of(sum(held), len(held)))
                  for policy, held in sorted(tests.items(), key=lambda item: id_order(item[0]))],
    )


def _pass_rate(judged: list[Analysis]) -> Rate:
    """The share of the analyses with a verdict that passed."""
    rated = [analysis.status for analysis in judged if analysis.status in RATED]
    return Rate.of(rated.count("pass"), len(rated))


def personas_line(personas: list[PersonaResult]) -> str:
    """The pass rate against each kind of user, in one line."""
    parts = [f"{p.name} {p.pass_rate.passed} of {p.pass_rate.total} passed ({percent(p.pass_rate.rate)})"
             if p.pass_rate.total else f"{p.name} no verdict ({counted(p.dialogs, 'dialog')})" for p in personas]
    return "users: " + "; ".join(parts)


def robustness_line(robustness: Robustness) -> str:
    """The robustness gap: the pass rate against cooperative users minus that against adversarial ones."""
    cooperative, adversarial = robustness.cooperative, robustness.adversarial
    rates = (f"cooperative users {percent(cooperative.rate)} ({cooperative.passed}/{cooperative.total}), "
             f"adversarial {percent(adversarial.rate)} ({adversarial.passed}/{adversarial.total})")
    if robustness.gap is None:
        missing = "an adversarial" if not adversarial.total else "a cooperative"
        return f"robustness gap: not measured, no dialog with {missing} user got a verdict ({rates})"
    return (f"robustness gap: {points(robustness.gap)} (95% CI {points(robustness.low)} to "
            f"{points(robustness.high)}): {rates}")


def robustness_note(robustness: Robustness) -> str:
    """What the gap is made of, in the headline's card."""
    cooperative, adversarial = robustness.cooperative, robustness.adversarial
    interval = "" if robustness.gap is None else f"95% CI {points(robustness.low)} to {points(robustness.high)} · "
    return (f"{interval}cooperative {percent(cooperative.rate)} ({cooperative.passed}/{cooperative.total}) vs "
            f"adversarial {percent(adversarial.rate)} ({adversarial.passed}/{adversarial.total})")


def robustness_card(robustness: Robustness) -> str:
    """The headline's card: how much worse the chatbot fares against users who try to break its rules."""
    return card("Robustness gap", points(robustness.gap, unit=""),
                "percentage points · " + escape(robustness_note(robustness)))


def personas_panel(figures: PersonaFigures) -> str:
    """The section on the users: one row per persona, then the grid of policies against personas."""
    personas, robustness = figures.results, figures.robustness
    graded = any(persona.outcome_pass_rate is not None for persona in personas)  # the run sought outcomes
    rows = "".join(_persona_row(persona, graded=graded) for persona in personas)
    outcome = "<th>Outcome pass rate</th>" if graded else ""
    gap = (f" The robustness gap, the pass rate against cooperative users minus that against adversarial ones, is "
           f"{points(robustness.gap)}: {escape(robustness_note(robustness))}.")
    return (
        '<section class="panel" id="personas"><h2>Against each kind of user</h2>'
        '<p class="hint">Each scenario\'s simulated user played a persona; adversarial ones tried to make the chatbot '
        f"break a rule of the kind they attack.{gap}</p>"
        '<table class="compact"><thead><tr><th>User</th><th>What it does</th><th>Dialogs</th><th>Pass rate</th>'
        f"{outcome}</tr></thead><tbody>{rows}</tbody></table>{_policy_grid(personas)}</section>"
    )


def _persona_row(persona: PersonaResult, *, graded: bool) -> str:
    status = persona.by_status
    counts = " · ".join(f"{count} {word}" for word, count in status.items() if count)
    kind = ' <span class="tag adversarial">adversarial</span>' if persona.adversarial else ""
    return (f'<tr id="persona-{escape(persona.name)}"><td>{persona_chip(persona.name, adversarial=persona.adversarial)}'
            f"{kind}</td><td>{escape(persona.description)}</td><td>{persona.dialogs}"
            f'<div class="muted">{escape(counts)}</div></td><td>{_rate(persona.pass_rate)}</td>'
            f"{f'<td>{_rate(persona.outcome_pass_rate)}</td>' if graded and persona.outcome_pass_rate else ''}</tr>")


def _policy_grid(personas: list[PersonaResult]) -> str:
    """Policies (rows) against personas (columns): held / tested, where the persona's dialogs tested it."""
    cells = {(persona.name, entry.policy): entry.pass_rate for persona in personas for entry in persona.policies}
    policies = sorted({policy for _, policy in cells}, key=id_order)
    if not policies:
        return '<p class="hint">No dialog with a verdict tested a policy.</p>'
    heads = "".join(f"<th>{escape(persona.name)}</th>" for persona in personas)
    rows = "".join(
        f'<tr><td><a href="#policy-{escape(policy)}">{escape(policy)}</a></td>'
        + "".join(_cell(cells.get((persona.name, policy))) for persona in personas) + "</tr>"
        for policy in policies
    )
    return ('<h3 class="sub">Each policy against each kind of user</h3><p class="hint">Held / tested, in the dialogs '
            f'with a verdict that tested the policy.</p><table class="compact personas"><thead><tr><th>Policy</th>'
            f"{heads}</tr></thead><tbody>{rows}</tbody></table>")


def _cell(rate: Rate | None) -> str:
    if rate is None or not rate.total:
        return '<td class="muted">–</td>'
    state = "held" if rate.passed == rate.total else "violated"
    return f'<td><span class="chip {state}">{rate.passed}/{rate.total}</span></td>'


def _rate(rate: Rate) -> str:
    if rate.rate is None:
        return '<span class="muted">no verdict</span>'
    state = "held" if rate.passed == rate.total else "violated"
    return (f'<div class="meter"><span style="width:{rate.rate * 100:.0f}%" class="{state}"></span></div>'
            f'<b>{percent(rate.rate)}</b> <span class="muted">{rate.passed}/{rate.total} · '
            f"{percent(rate.low)}–{percent(rate.high)}</span>")


def persona_gate(figures: PersonaFigures | None, settings: ReportConfig, report: Report) -> list[str]:
    """`report.min_persona`: the pass rate against each persona named (or every adversarial one) against its
    minimum."""
    users = {persona.name: (f"users of persona {persona.name}", persona.pass_rate)
             for persona in (figures.results if figures else [])}
    if figures is not None:
        users.setdefault(ADVERSARIAL, ("adversarial users", figures.robustness.adversarial))
    failures = []
    for name, minimum in sorted(settings.min_persona.items()):
        if name not in users:
            failures.append(f"report.min_persona names {name}, which no dialog's user played")
            continue
        label, rate = users[name]
        failures += shortfall(label, rate, minimum, setting="report.min_persona", unit="dialogs",
                              gate_on=settings.gate_on)
    return failures


def persona_suites(figures: PersonaFigures, report: Report, took: Durations) -> list[ET.Element]:
    """A suite per persona, when the users played more than one: its figures and, per policy its dialogs tested,
    held / tested, as properties."""
    if len(figures.results) < 2:
        return []
    suites = []
    for persona in figures.results:
        dialogs = [d.id for d in report.dialogs if d.persona == persona.name]
        properties: dict[str, object] = {
            "persona": persona.name, "adversarial": str(persona.adversarial).lower(), "dialogs": persona.dialogs,
            "pass_rate": figure(persona.pass_rate.rate),
            **{f"{entry.policy} held": f"{entry.pass_rate.passed}/{entry.pass_rate.total}"
               for entry in persona.policies},
        }
        suites.append(junit_suite(f"{report.name or 'run'}.persona.{persona.name}", [], properties,
                                sum(took.get(dialog, 0.0) for dialog in dialogs)))
    return suites


def _measure(run: JudgedRun) -> PersonaFigures | None:
    dialogs = run.artifacts.dialogs
    gap = robustness(dialogs, run.analyses)
    return None if gap is None else PersonaFigures(results=persona_results(dialogs, run.analyses, run.outcomes),
                                                   robustness=gap)


PERSONAS = Section(
    key="personas",
    figures=PersonaFigures,
    measure=_measure,
    summary=lambda figures, report: [personas_line(figures.results), robustness_line(figures.robustness)],
    cards=lambda figures, report: [robustness_card(figures.robustness)],
    panel=lambda figures, page: personas_panel(figures),
    settings=("min_persona",),
    gate=persona_gate,
    junit_suites=persona_suites,
)
"""The users' personas and the robustness gap."""
