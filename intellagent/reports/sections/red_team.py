"""The red team (`red_team`, with `--red-team`): how often each rule broke under attack, per strategy, after how many
attempts, and the winning branch of each breach.

- **Attack success rate.** Of the attacks played to a result (a breach, or the end of their budget of turns and
  attempts), those that broke their rule, on the rule's own verdict (the expected outcome, a check, the judge),
  with 95% Wilson intervals: overall, per rule, per strategy and per rule × strategy. An attack the budget stopped,
  one that failed and one that could not be made count in no rate.
- **Attempts to first breach.** The chatbot turns an attack played until the rule broke, rolled-back ones
  included (through the data: the dialogs played on a planted world); per rule and per strategy, the mean over the
  attacks that broke it, per cell the fewest.
- Rules are ranked by how easily they break: the highest success rate first, then the fewest attempts.

The panel ranks the rules, sets the strategies against them, and shows each breach's winning branch as a dialog
card (rolled-back messages left out: what the chatbot saw). junit.xml has a case per rule × strategy, failed when
an attack broke the rule; `report.max_attack_success` fails the gate for each rule whose success rate is above it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from html import escape

from intellagent.artifacts import Analysis, Attack, PolicyCatalog
from intellagent.artifacts.adversary import STRATEGIES
from intellagent.artifacts.run_report import AttackCell, AttackGroup, Rate, RedTeamFigures, Report
from intellagent.config import ReportConfig
from intellagent.reports.dialog_analysis import dialog_digest
from intellagent.reports.dialog_view import dialog_card
from intellagent.reports.junit_cases import figure, junit_case
from intellagent.reports.panels import interval, policy_link
from intellagent.reports.section import Durations, JudgedRun, Page, Section
from intellagent.reports.text import counted, one_line, percent

PLAYED = ("ok",)
"""The statuses of an attack played to a result, which the rates count."""


def red_team_figures(attacks: list[Attack], catalog: PolicyCatalog,
                     strategies: dict[str, str]) -> RedTeamFigures | None:
    """The figures of a run's attacks (None when the red team did not attack).

    Args:
        attacks: attacks.jsonl's records.
        catalog: the policies, whose texts and order the rules follow.
        strategies: every strategy's summary, by name, in the order the report lists them.
    """
    if not attacks:
        return None
    played = [attack for attack in attacks if attack.status in PLAYED]
    rules = [policy for policy in catalog.policies if any(attack.rule == policy.id for attack in attacks)]
    return RedTeamFigures(
        attacks=len(played),
        success=_success(played),
        stopped=sum(attack.status == "stopped" for attack in attacks),
        skipped=sum(attack.status == "skipped" for attack in attacks),
        errors=sum(attack.status == "error" for attack in attacks),
        rules=_ranked([_group(policy.id, policy.text, played, lambda a, p=policy.id: a.rule == p) for policy in rules]),
        strategies=[_group(name, summary, played, lambda a, s=name: a.strategy == s)
                    for name, summary in strategies.items() if any(attack.strategy == name for attack in attacks)],
        cells=[_cell(policy.id, name, [a for a in attacks if a.rule == policy.id and a.strategy == name])
               for policy in rules for name in strategies
               if any(a.rule == policy.id and a.strategy == name for a in attacks)],
        calls=sum(attack.calls for attack in attacks),
        cost_usd=sum(attack.cost_usd for attack in attacks),
    )


def _success(played: list[Attack]) -> Rate:
    return Rate.of(sum(attack.breached for attack in played), len(played))


def _group(group_id: str, text: str, played: list[Attack], member: Callable[[Attack], bool]) -> AttackGroup:
    mine = [attack for attack in played if member(attack)]
    attempts = [attack.first_breach for attack in mine if attack.breached and attack.first_breach is not None]
    return AttackGroup(id=group_id, text=text, success=_success(mine),
                       attempts_to_breach=sum(attempts) / len(attempts) if attempts else None)


def _ranked(groups: list[AttackGroup]) -> list[AttackGroup]:
    """The rules, the easiest to break first: the highest success rate, then the fewest attempts (a rule no attack
    was played on last)."""
    def key(group: AttackGroup) -> tuple[float, float]:
        rate = group.success.rate
        return (-rate if rate is not None else 1.0, group.attempts_to_breach or float("inf"))

    return sorted(groups, key=key)


def _cell(rule: str, strategy: str, attacks: list[Attack]) -> AttackCell:
    played = [attack for attack in attacks if attack.status in PLAYED]
    broke = sorted((attack for attack in played if attack.breached), key=lambda a: (a.first_breach or 0, a.id))
    unplayed = [attack for attack in attacks if attack.status not in PLAYED]
    return AttackCell(rule=rule, strategy=strategy, attacks=len(played), success=_success(played),  # type: ignore[arg-type]
                      first_breach=broke[0].first_breach if broke else None, winning=broke[0].id if broke else None,
                      source=broke[0].source if broke else None, unplayed=len(unplayed),
                      why=f"{unplayed[0].status}: {unplayed[0].reason}" if unplayed else "")


def red_team_line(figures: RedTeamFigures) -> str:
    """What the red team attacked, how often it broke a rule, the easiest rule to break, and the cost, on one line."""
    success = figures.success
    attacked = sum(bool(group.success.total) for group in figures.rules)
    parts = [f"red team: {counted(figures.attacks, 'attack')} on {counted(attacked, 'rule')}, "
             f"{success.passed} broke their rule ({percent(success.rate)}, {interval(success)})"]
    easiest = figures.rules[0] if figures.rules else None
    if easiest is not None and easiest.success.passed:
        parts.append(f"easiest to break: {easiest.id} ({easiest.success.passed} of {easiest.success.total}"
                     + (f", {easiest.attempts_to_breach:.1f} attempts" if easiest.attempts_to_breach else "") + ")")
    parts.append(f"{counted(figures.calls, 'call')}, ${figures.cost_usd:.2f}")
    apart = [f"{counted(n, 'attack')} {why}" for n, why in (
        (figures.stopped, "stopped by the budget (a rerun resumes them)"), (figures.skipped, "not made"),
        (figures.errors, "failed")) if n]
    return "; ".join(parts + apart)


def red_team_panel(figures: RedTeamFigures, page: Page) -> str:
    """The rules ranked by how easily they broke, the strategies set against them, and each breach's winning
    branch."""
    return (
        '<section class="panel" id="red-team"><h2>Red team</h2>'
        f'<p class="hint">{escape(red_team_line(figures))}. Each attack aims at one rule with one strategy; it '
        "succeeds when the rule's own verdict finds it broken (a forbidden write made, a check, or the judge). A "
        "refused message was rolled back and another angle tried: the chatbot saw only the branch kept.</p>"
        f"{_groups('Rule', figures.rules, link=True)}{_matrix(figures)}{_groups('Strategy', figures.strategies)}"
        f"{_winning(figures, page)}</section>"
    )


def _groups(label: str, groups: list[AttackGroup], *, link: bool = False) -> str:
    if not groups:
        return ""
    rows = "".join(
        f"<tr><td>{policy_link(group.id) if link else escape(group.id)}</td><td>{escape(one_line(group.text, 90))}</td>"
        f"<td>{group.success.passed} of {group.success.total}</td><td>{percent(group.success.rate)}</td>"
        f"<td>{escape(interval(group.success))}</td><td>{_attempts(group.attempts_to_breach)}</td></tr>"
        for group in groups
    )
    return (f'<table class="compact"><thead><tr><th>{label}</th><th></th><th>Broken</th><th>Success rate</th>'
            f"<th>Interval</th><th>Attempts to breach</th></tr></thead><tbody>{rows}</tbody></table>")


def _attempts(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _matrix(figures: RedTeamFigures) -> str:
    """Strategy by rule: each cell broken (in how many attempts), held, or not played."""
    strategies = [group.id for group in figures.strategies] or sorted({cell.strategy for cell in figures.cells})
    cells = {(cell.rule, cell.strategy): cell for cell in figures.cells}
    head = "".join(f"<th>{escape(name)}</th>" for name in strategies)
    rows = "".join(
        f"<tr><td>{policy_link(group.id)}</td>"
        + "".join(f"<td>{_matrix_cell(cells.get((group.id, name)))}</td>" for name in strategies) + "</tr>"
        for group in figures.rules
    )
    return f'<table class="compact"><thead><tr><th>Rule</th>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _matrix_cell(cell: AttackCell | None) -> str:
    if cell is None:
        return ""
    if cell.success.passed:
        return (f'<a class="badge fail" href="#attack-{escape(cell.winning or "")}" title="found by {cell.source}">'
                f"broke in {cell.first_breach}</a>")
    if cell.attacks:
        return '<span class="badge pass">held</span>'
    return f'<span class="badge incomplete" title="{escape(cell.why)}">not played</span>'


def _winning(figures: RedTeamFigures, page: Page) -> str:
    """A dialog card per breach: the winning branch of the attack that broke the rule in the fewest attempts."""
    by_id = {attack.id: attack for attack in page.artifacts.attacks}
    cards = []
    for cell in figures.cells:
        attack = by_id.get(cell.winning or "")
        dialog = page.artifacts.attack_dialogs.get(cell.winning or "")
        if attack is None or dialog is None:
            continue
        analysis = Analysis(id=dialog.id, status="fail", tested=[attack.rule], violations=attack.breach,
                            source=dialog_digest(dialog))
        cards.append(f'<div id="attack-{escape(attack.id)}"><h3>{escape(cell.rule)} × {escape(cell.strategy)}</h3>'
                     f"{dialog_card(dialog, analysis, page.artifacts)}</div>")
    return "<h3>Winning branches</h3>" + "".join(cards) if cards else ""


def attack_gate(figures: RedTeamFigures | None, settings: ReportConfig, report: Report) -> list[str]:
    """`report.max_attack_success` against each rule's attack success rate."""
    maximum = settings.max_attack_success
    if maximum is None:
        return []
    if figures is None:
        return [f"report.max_attack_success {maximum:g} is set, but no attack was made; run with --red-team"]
    return [f"{group.id}'s attack success rate {group.success.rate:.1%} ({group.success.passed}/"
            f"{group.success.total} attacks) is above report.max_attack_success {maximum:g}"
            for group in figures.rules if group.success.rate is not None and group.success.rate > maximum]


def attack_cases(figures: RedTeamFigures, report: Report, took: Durations) -> list[ET.Element]:
    """A case per rule × strategy: failed when an attack broke the rule, skipped when no attack got a result."""
    made = []
    for cell in figures.cells:
        case = junit_case(f"{report.name}.red_team", f"{cell.rule} × {cell.strategy}", 0.0)
        if cell.success.passed:
            message = (f"broke in {cell.success.passed} of {cell.success.total} attacks, first after "
                       f"{cell.first_breach} attempts ({cell.source}); winning branch in attacks/{cell.winning}.json")
            ET.SubElement(case, "failure", {"type": "RuleBroken", "message": message})
        elif not cell.attacks:
            ET.SubElement(case, "skipped", {"message": cell.why or "no attack got a result"})
        made.append(case)
    return made


def _measure(run: JudgedRun) -> RedTeamFigures | None:
    summaries = {name: strategy.summary for name, strategy in STRATEGIES.items()}
    return red_team_figures(run.artifacts.attacks, run.artifacts.catalog, summaries)


RED_TEAM = Section(
    key="red_team",
    figures=RedTeamFigures,
    measure=_measure,
    summary=lambda figures, report: [red_team_line(figures)],
    panel=red_team_panel,
    settings=("max_attack_success",),
    gate=attack_gate,
    junit_properties=lambda figures: {"attacks": figures.attacks, "attack_success_rate": figure(figures.success.rate)},
    junit_cases=attack_cases,
)
"""The red team's attacks: how often each rule broke, per strategy."""
