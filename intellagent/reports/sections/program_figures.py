"""What programs decide (`programs`): the policies whose verdict a program backs (see `reports.policy_backing`), the
rules and compiled assertions, and the dialogs read against their flows' procedures (`reports.step_order`).

The share of policies a program backs is a card beside the headline and a property of junit.xml; the panel
draws each flow's procedure with how its dialogs kept to it, and lists the rules and compiled assertions, with
the dialogs each ruled in and breached, then the rules of the rules file that were refused.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts import Analysis, Dialog, Flow, PolicyCatalog
from intellagent.artifacts.rates import Share
from intellagent.artifacts.run_report import AssertionResult, Backing, FlowOrder, ProgramFigures, Report
from intellagent.reports.charts import procedure_graph
from intellagent.reports.junit_cases import figure
from intellagent.reports.panels import card
from intellagent.reports.policy_backing import BACKINGS
from intellagent.reports.section import JudgedRun, Page, Section
from intellagent.reports.step_order import step_order
from intellagent.reports.text import counted, one_line, percent
from intellagent.reports.verdicts import reviewed_checks

DEVIATION_WORDS = {"missing": "missing step", "wrong_order": "wrong order", "extra": "extra step"}
SHOWN_DEVIATIONS = 12


def program_figures(catalog: PolicyCatalog, backed: dict[str, list[Backing]], dialogs: list[Dialog],
                    rated: list[Analysis]) -> ProgramFigures:
    """The run's program figures, over the chatbot's dialogs with a verdict (`rated` are their analyses; `backed`,
    per policy id, what backs its verdict)."""
    judged = {analysis.id for analysis in rated}
    played = [dialog for dialog in dialogs if dialog.id in judged]
    return ProgramFigures(
        backed=Share.of(sum(bool(kinds) for kinds in backed.values()), len(backed)),
        sources={kind: sum(kind in kinds for kinds in backed.values()) for kind in BACKINGS},
        assertions=_rules(catalog, played),
        flows=step_order(catalog, played),
    )


def _rules(catalog: PolicyCatalog, played: list[Dialog]) -> list[AssertionResult]:
    """Each rule in force and compiled assertion, with the dialogs it ruled in and breached; then each rule refused.
    A compiled assertion counts where its scenario sampled its policy, a reviewed rule wherever it ruled, as their
    verdicts do (`reviewed_checks`)."""
    held = [(assertion.id, assertion.check, [assertion.policy], assertion.kind, assertion.rationale, assertion.text())
            for assertion in catalog.assertions]
    held += [(rule.rule.id, rule.rule.check, rule.policies, rule.rule.kind, rule.rule.cite.words, rule.rule.text())
             for rule in catalog.rules]
    anywhere = reviewed_checks(catalog)
    results = []
    for name, check, policies, kind, words, text in held:
        ruled = [d for d in played if check in d.ruled and (check in anywhere or set(policies) & set(d.policies))]
        results.append(AssertionResult(
            id=name, check=check, policy=", ".join(policies), kind=kind, rationale=words, text=text, in_force=True,
            dialogs=len(ruled), breached=sum(any(f.check == check for f in d.findings) for d in ruled)))
    results += [AssertionResult(id=refused.id, policy="", kind="", rationale="", text="", in_force=False,
                                discarded=refused.reason) for refused in catalog.refused_rules]
    return results


def backing_text(programs: ProgramFigures) -> str:
    """The policies each kind backs, in words: `7 by programs, 2 by outcomes`."""
    sources = programs.sources
    return f"{sources.get('program', 0)} by programs, {sources.get('outcome', 0)} by outcomes"


def program_lines(programs: ProgramFigures, report: Report) -> list[str]:
    """The policies a program backs, the rules refused, and how the dialogs kept to their flows' procedures."""
    backed = programs.backed
    line = (f"programs: {backed.count} of {backed.total} policies have a verdict a program backs "
            f"({percent(backed.rate)}): {backing_text(programs)}")
    refused = sum(not assertion.in_force for assertion in programs.assertions)
    if refused:
        line += f"; {counted(refused, 'rule')} of the rules file refused (see report.json)"
    lines = [line]
    read = [order for order in programs.flows if order.followed.total]
    if read:
        lines.append("step order: " + "; ".join(
            f"{order.id} followed in {order.followed.count} of {order.followed.total} dialogs" for order in read))
    return lines


def programs_card(programs: ProgramFigures) -> str:
    """The headline's card: the share of policies whose verdict a program backs."""
    backed = programs.backed
    return card("Program-backed verdicts", percent(backed.rate),
                f"{backed.count} of {backed.total} policies · {escape(backing_text(programs))}")


def programs_panel(programs: ProgramFigures, page: Page) -> str:
    """The panel of procedures, rules and compiled assertions."""
    flows = {flow.id: flow for flow in page.artifacts.catalog.flows}
    drawn = "".join(_flow(order, flows[order.id]) for order in programs.flows if order.id in flows)
    procedures = (f'<h3 class="sub">Procedures</h3><div class="procedures">{drawn}</div>' if drawn else
                  '<p class="hint">No flow has a procedure (describe.procedures is off, or none was read).</p>')
    return (
        '<section class="panel" id="programs"><h2>What programs decide</h2>'
        f'<p class="hint">{programs.backed.count} of {programs.backed.total} policies have a verdict a program backs '
        f"({percent(programs.backed.rate)}): {escape(backing_text(programs))}, counted where one ruled in a dialog "
        "with a verdict; the others are judged by the LLM judge alone.</p>"
        f"{procedures}{_assertion_table(programs.assertions)}</section>"
    )


def _flow(order: FlowOrder, flow: Flow) -> str:
    assert flow.sop is not None
    followed = order.followed
    kept = (f"{followed.count} of {followed.total} of its dialogs followed it ({percent(followed.rate)})"
            if followed.total else "no dialog of it got a verdict")
    rows = "".join(
        f'<li><a href="#dialog-{escape(d.dialog)}">{escape(d.dialog)}</a> '
        f'<span class="tag">{DEVIATION_WORDS[d.kind]}</span> {escape(one_line(d.detail, 200))}</li>'
        for d in order.deviations[:SHOWN_DEVIATIONS]
    )
    more = len(order.deviations) - SHOWN_DEVIATIONS
    listed = (f'<ul class="passages">{rows}{f"<li>… and {more} more</li>" if more > 0 else ""}</ul>' if rows else "")
    return (f'<div class="flow"><h3>{escape(order.id)} · {escape(flow.name)}</h3>'
            f'<p class="hint">{order.steps} steps; {kept}.</p>{procedure_graph(flow.sop, name=order.id)}{listed}</div>')


def _policy_links(policies: str) -> str:
    return ", ".join(f'<a href="#policy-{escape(p)}">{escape(p)}</a>' for p in policies.split(", ") if p)


def _assertion_table(assertions: list[AssertionResult]) -> str:
    if not assertions:
        return '<h3 class="sub">Rules</h3><p class="hint">No rules file, and no policy compiled into an assertion.</p>'
    rows = "".join(
        f'<tr><td><code>{escape(a.id)}</code></td><td>{_policy_links(a.policy)}</td>'
        f"<td>{escape(a.kind)}</td><td>{escape(a.text)}"
        f'<span class="muted"> — “{escape(one_line(a.rationale, 160))}”</span></td>'
        + (f"<td>{a.breached} of {a.dialogs}</td>" if a.in_force else
           f'<td><span class="tag disputed">refused</span> {escape(one_line(a.discarded or "", 200))}</td>')
        + "</tr>"
        for a in assertions
    )
    return ('<h3 class="sub">Rules</h3><p class="hint">Each runs after every dialog as the check '
            "<code>rule &lt;id&gt;</code> (a rules file's) or <code>compiled &lt;id&gt;</code>; breached: dialogs "
            "with a finding, of the dialogs with a verdict that sampled its policy and in which it ruled.</p>"
            '<table class="compact"><thead><tr><th>Id</th><th>Policy</th><th>Kind</th>'
            f"<th>Rule</th><th>Breached</th></tr></thead><tbody>{rows}</tbody></table>")


def _measure(run: JudgedRun) -> ProgramFigures:
    backed = {policy.id: policy.backed_by for policy in run.core.policies}
    return program_figures(run.artifacts.catalog, backed, run.artifacts.dialogs, run.rated)


PROGRAMS = Section(
    key="programs",
    figures=ProgramFigures,
    measure=_measure,
    summary=program_lines,
    cards=lambda programs, report: [programs_card(programs)],
    panel=programs_panel,
    junit_properties=lambda programs: {"program_backed": figure(programs.backed.rate)},
)
"""What programs decide: policies backed, rules and compiled assertions, procedures followed."""
