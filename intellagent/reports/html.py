"""report.html: the whole report in one self-contained file that opens from disk, offline.

The page is rendered here, as static HTML with inline SVG charts; the template's small script only
sorts and filters what is already there and opens the dialog a link points to. Every text that
comes from a model or from the chatbot is escaped.

From the top: the gate and the reliability line, the headline's cards (the sections' after the pass rate's),
the leading sections' panels, the core's charts, the other sections' panels in the sections' order
(`reports.sections`), the policy table (with the sections' columns) and the dialogs.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from string import Template

from intellagent.artifacts import CATEGORY_LABELS, Analysis
from intellagent.artifacts.run_report import Coverage, PolicyResult, Report
from intellagent.reports import sections
from intellagent.reports.charts import (
    coverage_bars,
    group_bars,
    level_chart,
    policy_graph,
    status_bar,
)
from intellagent.reports.dialog_view import dialog_cards
from intellagent.reports.inputs import RunArtifacts
from intellagent.reports.label_form import label_template
from intellagent.reports.metrics import worst_first
from intellagent.reports.panels import card, interval
from intellagent.reports.policy_backing import backing_tag
from intellagent.reports.section import Page, PolicyColumn
from intellagent.reports.summary import reliability_line
from intellagent.reports.text import counted, one_line, percent

TEMPLATE = Path(__file__).with_name("report.html")
STYLESHEET = Path(__file__).with_name("report.css")
"""The page's style, inlined: the run viewer's pages (`intellagent.view`) wear it too."""

STATUS_WORDS = {"pass": "passed", "fail": "failed", "user_fault": "user fault", "incomplete": "incomplete",
                "error": "error"}


def report_html(report: Report, artifacts: RunArtifacts, analyses: dict[str, Analysis]) -> str:
    """The report page of a run."""
    page = Page(report=report, artifacts=artifacts)
    body = "".join([
        _header(report),
        _nothing_judged(report, artifacts) if not report.overall.pass_rate.total else "",
        _headline(report),
        _panels(page, leading=True),
        _charts(report),
        _panels(page, leading=False),
        _policy_table(report),
        _dialogs(report, artifacts, analyses),
        _footer(report),
    ])
    template = Template(TEMPLATE.read_text(encoding="utf-8"))
    return template.substitute(title=escape(f"{report.name or 'run'} · policy adherence"), style=stylesheet(),
                               body=body)


def stylesheet() -> str:
    """The report's stylesheet (CSS), to inline in a page."""
    return STYLESHEET.read_text(encoding="utf-8")


def _panels(page: Page, *, leading: bool) -> str:
    """The panels of the report's sections that lead (before the charts) or follow them."""
    return "".join(section.panel(figures, page) for section in sections.SECTIONS if section.leads is leading
                   if (figures := section.of(page.report)) is not None)


def _header(report: Report) -> str:
    gate = report.gate
    if gate is None or not gate.is_set:
        verdict = '<div class="gate off">No quality gate set</div>'
    elif gate.passed:
        verdict = '<div class="gate passed">✓ Quality gate passed</div>'
    else:
        reasons = "".join(f"<li>{escape(reason)}</li>" for reason in gate.failures)
        verdict = f'<div class="gate failed">✗ Quality gate failed<ul>{reasons}</ul></div>'
    return (f'<header><div><p class="kicker">IntellAgent · policy adherence report</p>'
            f"<h1>{escape(report.name or 'run')}</h1>"
            f'<p class="reliability">{escape(reliability_line(report))}</p></div>{verdict}</header>')


def _nothing_judged(report: Report, artifacts: RunArtifacts) -> str:
    """Why no dialog got a verdict: every dialog's, event's and scenario's reason, on the page's first screen."""
    lost = [(d.id, d.status, d.reason) for d in artifacts.dialogs]
    lost += [(e.id, "no database", e.error or "") for e in artifacts.events if e.status == "error"]
    lost += [(s.id, "no scenario", s.error or "") for s in artifacts.scenarios if s.status == "error"]
    rows = "".join(f"<li><code>{escape(item)}</code> {escape(status)}: {escape(reason or 'no reason recorded')}</li>"
                   for item, status, reason in lost) or "<li>the run made no dialog at all</li>"
    return ('<section class="panel notice"><h2>No dialog got a verdict</h2><p class="hint">Nothing was tested, so '
            f"this report says nothing about the chatbot. What stopped each item:</p><ul>{rows}</ul></section>")


def _headline(report: Report) -> str:
    overall, coverage = report.overall, report.coverage
    rate, pairs = overall.pass_rate, coverage.strong_pairs
    violated = [p for p in report.policies if p.violated]
    legend = " ".join(f'<span class="item"><span class="dot {s}"></span>{n} {STATUS_WORDS[s]}</span>'
                      for s, n in overall.by_status.items())
    usage = overall.usage
    duration = "–" if usage.duration_s is None else _duration(usage.duration_s)
    resumed = usage.invocation_s is not None and usage.invocation_s != usage.duration_s
    this_time = f" · {_duration(usage.invocation_s or 0)} this invocation" if resumed else ""
    cost = f"${usage.cost_usd:.4f}" + (" + unpriced" if usage.unpriced_models else "")
    cards = [
        card("Pass rate", percent(rate.rate),
             f"{interval(rate)} · {rate.passed} of {rate.total} dialogs with a verdict",
             status_bar(overall.by_status) + f'<p class="legend">{legend}</p>', "hero"),
        *(shown for section in sections.SECTIONS if (figures := section.of(report)) is not None
          for shown in section.cards(figures, report)),
        card("Policies tested", percent(coverage.share),
             f"{coverage.tested} of {coverage.total} · {len(coverage.never_tested)} never tested"),
        card("Strong pairs tested together", percent(pairs.share),
             f"{pairs.tested} of {pairs.total} pairs of weight ≥ {pairs.threshold:g}"),
        card("Policies violated", str(len(violated)),
             f"{sum(p.violated for p in violated)} violations in {overall.by_status['fail']} dialogs"),
        card("Run", duration, f"{usage.calls:,} LLM calls · {usage.input_tokens + usage.output_tokens:,} tokens · "
             f"{escape(cost)}{this_time}"),
    ]
    return f'<section class="cards">{"".join(cards)}</section>'


def _uncovered(coverage: Coverage) -> str:
    """The passages of the policy document no policy comes from (nothing, for a catalog that did not count them)."""
    if coverage.passages is None:
        return ""
    if not coverage.uncovered:
        return (f'<h3 class="sub">Policy document</h3><p class="hint">Each of its {coverage.passages} passages is '
                "the source of some policy.</p>")
    items = "".join(f'<li><span class="hint">line {p.first_line}'
                    f'{"" if p.first_line == p.last_line else f"–{p.last_line}"}</span> {escape(one_line(p.text, 300))}'
                    "</li>" for p in coverage.uncovered)
    return (f'<h3 class="sub">Passages no policy came from</h3><p class="hint">{len(coverage.uncovered)} of the '
            f"policy document's {coverage.passages} passages are the source of no policy, even after an extraction "
            f'aimed at them: nothing tests what they say.</p><ul class="passages">{items}</ul>')


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def _charts(report: Report) -> str:
    coverage = report.coverage
    never = "".join(f'<a class="chip untested" href="#policy-{escape(pid)}">{escape(pid)}</a>'
                    for pid in coverage.never_tested) or "none: every policy was tested"
    return (
        '<section class="grid two">'
        f'<div class="panel"><h2>Pass rate against challenge level</h2>'
        f'<p class="hint">Dialogs whose challenge score is at or above each level; the band is the 95% interval.</p>'
        f"{level_chart(report.challenge_levels)}</div>"
        f'<div class="panel"><h2>Pass rate per category</h2>'
        f'<p class="hint">Over every test of a category\'s policies; whiskers show the 95% interval.</p>'
        f'{group_bars(report.categories, label="Pass rate per category")}</div>'
        f'<div class="panel"><h2>Coverage</h2>'
        f'<p class="hint">Policies that some dialog with a verdict tested, out of all policies of each flow '
        f"and category.</p><h3 class=\"sub\">Per flow</h3>{coverage_bars(coverage.flows, label='Coverage per flow')}"
        f'<h3 class="sub">Per category</h3>{coverage_bars(coverage.categories, label="Coverage per category")}'
        f'<h3 class="sub">Never tested</h3><p class="chips">{never}</p>{_uncovered(coverage)}</div>'
        f'<div class="panel"><h2>Policy graph</h2>'
        f'<p class="hint">Strongly linked pairs (weight ≥ {coverage.strong_pairs.threshold:g}): solid when a dialog '
        f"tested both together, dashed when none did.</p>{policy_graph(report.policies, coverage.strong_pairs.pairs)}"
        '<p class="legend"><span class="dot pass"></span>held <span class="dot fail"></span>violated '
        '<span class="dot none"></span>never tested</p></div>'
        "</section>"
    )


def _policy_table(report: Report) -> str:
    categories = sorted({p.category for p in report.policies})
    options = "".join(f'<option value="{escape(c)}">{escape(CATEGORY_LABELS.get(c, c))}</option>' for c in categories)
    heads = [("id", "Policy", "text"), ("text", "Rule", "text"), ("category", "Category", "text"),
             ("flows", "Flows", "text"), ("challenge", "Challenge", "num"), ("sampled", "Sampled", "num"),
             ("tested", "Tested", "num"), ("violated", "Violated", "num"), ("rate", "Pass rate", "num")]
    columns = [column for section in sections.SECTIONS if (figures := section.of(report)) is not None
               for column in section.policy_columns(figures)]
    heads += [(column.key, column.label, "num") for column in columns]
    header = "".join(f'<th data-key="{escape(key)}" data-type="{kind}" tabindex="0">{escape(label)}</th>'
                     for key, label, kind in heads)
    rows = "".join(_policy_row(policy, columns) for policy in worst_first(report.policies))
    return (
        '<section class="panel" id="policies"><h2>Policies, worst first</h2>'
        '<div class="controls"><input type="search" id="policy-filter" placeholder="Filter policies…" '
        'aria-label="Filter policies">'
        f'<select id="category-filter" aria-label="Category"><option value="">All categories</option>{options}</select>'
        '<select id="state-filter" aria-label="Result"><option value="">All results</option>'
        '<option value="violated">Violated</option><option value="held">Held</option>'
        '<option value="untested">Never tested</option></select>'
        '<span class="count" id="policy-count"></span></div>'
        f'<table id="policy-table"><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table></section>'
    )


def _policy_row(policy: PolicyResult, columns: list[PolicyColumn]) -> str:
    """A policy's row: its rule, counts and pass rate, then the sections' cells (the outcome pass rate of the graded
    dialogs that sampled it, …)."""
    rate = policy.pass_rate
    state = "violated" if policy.violated else "held" if policy.tested else "untested"
    reasons: dict[str, str] = {}
    for note in policy.violations:  # a breach that a check and the judge both found is one link
        reasons.setdefault(note.dialog, note.reason)
    links = " ".join(f'<a href="#dialog-{escape(d)}" title="{escape(r)}">{escape(d)}</a>' for d, r in reasons.items())
    if rate.rate is None:
        shown = '<span class="muted">never tested</span>'
    else:
        shown = (f'<div class="meter"><span style="width:{rate.rate * 100:.0f}%" class="{state}"></span></div>'
                 f"<b>{percent(rate.rate)}</b> <span class=\"muted\">{rate.passed}/{rate.total} · "
                 f"{percent(rate.low)}–{percent(rate.high)}</span>")
    cells = [
        (policy.id, f'<span class="chip {state}">{escape(policy.id)}</span>'),
        (policy.text, escape(policy.text) + _checked_by(policy) + backing_tag(policy)),
        (policy.category, escape(CATEGORY_LABELS.get(policy.category, policy.category))),
        (" ".join(policy.flows), escape(", ".join(policy.flows))),
        (policy.challenge, str(policy.challenge)),
        (policy.sampled, str(policy.sampled)),
        (policy.tested, str(policy.tested)),
        (policy.violated, f"{policy.violated} <span class=\"links\">{links}</span>" if policy.violated else "0"),
        ("" if rate.rate is None else rate.rate, shown),
        *(column.cell(policy) for column in columns),
    ]
    tds = "".join(f'<td data-v="{escape(str(value))}">{html}</td>' for value, html in cells)
    return (f'<tr id="policy-{escape(policy.id)}" data-category="{escape(policy.category)}" '
            f'data-state="{state}">{tds}</tr>')


def _checked_by(policy: PolicyResult) -> str:
    """The mark of a policy that deterministic checks enforce, and of one on which the judge disagreed with a check or
    the outcome."""
    marks = ""
    if policy.checks:
        marks += f' <span class="tag check" title="enforced by {escape(", ".join(policy.checks))}">checked</span>'
    if policy.disputed:
        marks += (' <span class="tag disputed" title="the judge disagreed with a check or the outcome in '
                  f'{counted(policy.disputed, "dialog")}">disputed</span>')
    return marks


def _dialogs(report: Report, artifacts: RunArtifacts, analyses: dict[str, Analysis]) -> str:
    buttons = '<button class="on" data-status="">All</button>' + "".join(
        f'<button data-status="{status}">{STATUS_WORDS[status]} ({count})</button>'
        for status, count in report.overall.by_status.items() if count
    )
    return (
        '<section class="panel" id="dialogs"><h2>Dialogs</h2>'
        '<p class="hint">Open a dialog for its scenario, the expected behaviour, the verdict and the whole '
        "transcript with tool calls, results and the user's thoughts.</p>"
        f'<div class="controls" id="dialog-filter">{buttons}<span class="spacer"></span>'
        '<button id="expand-all">Open all</button><button id="collapse-all">Close all</button></div>'
        f"{label_template()}{dialog_cards(artifacts, analyses)}</section>"
    )


def _footer(report: Report) -> str:
    status = report.overall.by_status
    return (
        f'<footer>{status["user_fault"]} user fault, {status["incomplete"]} incomplete and {status["error"]} error '
        f"dialogs are listed but left out of every rate. {report.overall.scenario_errors} scenarios and "
        f"{report.overall.event_errors} databases "
        "could not be built and have no dialog. Intervals are 95% Wilson score intervals. "
        "This file is self-contained: it needs no network.</footer>"
    )
