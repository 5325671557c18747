"""The report's view of its users: the pass rate against each kind of user, each policy against each of them,
and the robustness gap. Persona texts come from the run's config, so they are escaped like everything else.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts.report import PersonaResult, Rate, Robustness
from intellagent.files import id_order
from intellagent.reports.text import percent, points


def robustness_note(robustness: Robustness) -> str:
    """What the gap is made of, in the headline's card."""
    cooperative, adversarial = robustness.cooperative, robustness.adversarial
    interval = "" if robustness.gap is None else f"95% CI {points(robustness.low)} to {points(robustness.high)} · "
    return (f"{interval}cooperative {percent(cooperative.rate)} ({cooperative.passed}/{cooperative.total}) vs "
            f"adversarial {percent(adversarial.rate)} ({adversarial.passed}/{adversarial.total})")


def personas_panel(personas: list[PersonaResult], robustness: Robustness | None) -> str:
    """The section on the users: one row per persona, then the grid of policies against personas."""
    graded = any(persona.outcome_pass_rate is not None for persona in personas)  # the run sought outcomes
    rows = "".join(_persona_row(persona, graded=graded) for persona in personas)
    outcome = "<th>Outcome pass rate</th>" if graded else ""
    gap = (f" The robustness gap, the pass rate against cooperative users minus that against adversarial ones, is "
           f"{points(robustness.gap)}: {escape(robustness_note(robustness))}." if robustness else "")
    return (
        '<section class="panel" id="personas"><h2>Against each kind of user</h2>'
        '<p class="hint">Each scenario\'s simulated user played a persona; adversarial ones tried to make the chatbot '
        f"break a rule of the kind they attack.{gap}</p>"
        '<table class="compact"><thead><tr><th>User</th><th>What it does</th><th>Dialogs</th><th>Pass rate</th>'
        f"{outcome}</tr></thead><tbody>{rows}</tbody></table>{_policy_grid(personas)}</section>"
    )


def persona_chip(name: str, *, adversarial: bool) -> str:
    """A persona's name as a chip, marked when it is adversarial."""
    css = "persona adversarial" if adversarial else "persona"
    return f'<span class="chip {css}" title="the user\'s persona">{escape(name)}</span>'


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
