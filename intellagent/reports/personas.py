"""How the chatbot holds its rules against each kind of user: pass rates per persona and per policy × persona,
and the robustness gap between the cooperative users and the adversarial ones.

A persona's figures count the chatbot's dialogs whose user played it, as every figure of the report does:
only dialogs with a verdict enter a rate. The gap is the pass rate against users whose persona is not
adversarial minus that against adversarial ones, with Newcombe's 95% interval of a difference of two
rates: a chatbot that holds its rules only with polite users shows a gap whose interval lies above 0.
"""

from __future__ import annotations

from intellagent.artifacts import Analysis, Dialog, Persona
from intellagent.artifacts.rates import difference_interval
from intellagent.artifacts.report import DialogOutcome, PersonaPolicy, PersonaResult, Rate, Robustness
from intellagent.files import id_order
from intellagent.reports.analysis import RATED, by_status


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
