"""The report page's view of what programs decide: the policies a program backs, each flow's procedure with how
its dialogs kept to it, and the rules and compiled assertions."""

from __future__ import annotations

from html import escape

from intellagent.artifacts import Flow
from intellagent.artifacts.report import AssertionResult, FlowOrder, PolicyResult, ProgramFigures
from intellagent.reports.charts import procedure_graph
from intellagent.reports.inputs import RunArtifacts
from intellagent.reports.text import one_line, percent

BACKING_WORDS = {"outcome": "a verified outcome", "program": "a program (a check, a rule or a compiled assertion)"}
DEVIATION_WORDS = {"missing": "missing step", "wrong_order": "wrong order", "extra": "extra step"}
SHOWN_DEVIATIONS = 12


def backing_text(programs: ProgramFigures) -> str:
    """The policies each kind backs, in words: `7 by programs, 2 by outcomes`."""
    sources = programs.sources
    return f"{sources.get('program', 0)} by programs, {sources.get('outcome', 0)} by outcomes"


def backing_tag(policy: PolicyResult) -> str:
    """The mark of what backs a policy's verdict: the programs, or the judge alone."""
    if not policy.backed_by:
        return ' <span class="tag judge" title="no program rules on it: the LLM judge alone">judge alone</span>'
    said = ", ".join(BACKING_WORDS[kind] for kind in policy.backed_by)
    return (f' <span class="tag program" title="its verdict is backed by {escape(said)}">'
            f"{escape(' + '.join(policy.backed_by))}</span>")


def programs_section(programs: ProgramFigures, artifacts: RunArtifacts) -> str:
    """The section of procedures, rules and compiled assertions."""
    flows = {flow.id: flow for flow in artifacts.catalog.flows}
    drawn = "".join(_flow(order, flows[order.id]) for order in programs.flows if order.id in flows)
    procedures = (f'<h3 class="sub">Procedures</h3><div class="procedures">{drawn}</div>' if drawn else
                  '<p class="hint">No flow has a procedure (describe.procedures is off, or none was read).</p>')
    return (
        '<section class="panel" id="programs"><h2>What programs decide</h2>'
        f'<p class="hint">{programs.backed.count} of {programs.backed.total} policies have a verdict a program backs '
        f"({percent(programs.backed.rate)}): {escape(backing_text(programs))}, counted where one ruled in a dialog "
        "with a verdict; the others are judged by the LLM judge alone.</p>"
        f"{procedures}{_assertions(programs.assertions)}</section>"
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


def _assertions(assertions: list[AssertionResult]) -> str:
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
