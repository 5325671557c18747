"""report.html: the whole report in one self-contained file that opens from disk, offline.

The page is rendered here, as static HTML with inline SVG charts; the template's small script only
sorts and filters what is already there and opens the dialog a link points to. Every text that
comes from a model or from the chatbot is escaped.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from string import Template

from intellagent.artifacts import CATEGORY_LABELS, Analysis, MutantRecord
from intellagent.artifacts.report import (
    BaselineComparison,
    Calibration,
    Coverage,
    PassK,
    PolicyResult,
    ProgramFigures,
    Rate,
    Report,
    TauFailure,
    TauScore,
    TrialFigures,
)
from intellagent.reports.charts import (
    coverage_bars,
    group_bars,
    level_chart,
    pass_k_chart,
    policy_graph,
    status_bar,
)
from intellagent.reports.dialog_view import dialog_cards
from intellagent.reports.dual_control import dual_control_panel
from intellagent.reports.inputs import RunArtifacts
from intellagent.reports.metrics import worst_first
from intellagent.reports.outcome_view import outcome_headline, outcome_section
from intellagent.reports.persona_view import personas_panel, robustness_note
from intellagent.reports.production_view import production_section
from intellagent.reports.program_view import backing_tag, backing_text, programs_section
from intellagent.reports.rollout_view import rollouts_section
from intellagent.reports.simulator_view import simulator_section
from intellagent.reports.summary import reliability_line
from intellagent.reports.text import counted, one_line, percent, points

TEMPLATE = Path(__file__).with_name("report.html")
STYLESHEET = Path(__file__).with_name("report.css")
"""The page's style, inlined: the run viewer's pages (`intellagent.view`) wear it too."""

# A caught mutant is the instrument passing its test; one it missed is the instrument failing.
OUTCOME_BADGES = {"caught": "pass", "missed": "fail", "unjudged": "incomplete", "error": "error"}
STATUS_WORDS = {"pass": "passed", "fail": "failed", "user_fault": "user fault", "incomplete": "incomplete",
                "error": "error"}


def report_html(report: Report, artifacts: RunArtifacts, analyses: dict[str, Analysis]) -> str:
    """The report page of a run."""
    body = "".join([
        _header(report),
        _nothing_judged(report, artifacts) if not report.overall.pass_rate.total else "",
        _headline(report),
        _tau(report.tau) if report.tau else "",
        outcome_section(report.outcomes) if report.outcomes else "",
        dual_control_panel(report.dual_control) if report.dual_control else "",
        _charts(report),
        personas_panel(report.personas, report.robustness) if report.personas else "",
        _baseline(report.baseline) if report.baseline else "",
        _trials(report.trials) if report.trials else "",
        _calibration(report.calibration, artifacts) if report.calibration else "",
        programs_section(report.programs, artifacts) if report.programs else "",
        rollouts_section(report.rollouts) if report.rollouts else "",
        simulator_section(report) if report.simulator else "",
        production_section(report) if report.production else "",
        _policy_table(report),
        _dialogs(report, artifacts, analyses),
        _footer(report),
    ])
    page = Template(TEMPLATE.read_text(encoding="utf-8"))
    return page.substitute(title=escape(f"{report.name or 'run'} · policy adherence"), style=stylesheet(), body=body)


def stylesheet() -> str:
    """The report's stylesheet (CSS), to inline in a page."""
    return STYLESHEET.read_text(encoding="utf-8")


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
        _card("Pass rate", percent(rate.rate),
              f"{_interval(rate)} · {rate.passed} of {rate.total} dialogs with a verdict",
              status_bar(overall.by_status) + f'<p class="legend">{legend}</p>', "hero"),
        _card("Outcome pass rate", *outcome_headline(report.outcomes)),
        _card("Policies tested", percent(coverage.share),
              f"{coverage.tested} of {coverage.total} · {len(coverage.never_tested)} never tested"),
        *([_programs_card(report.programs)] if report.programs else []),
        _card("Strong pairs tested together", percent(pairs.share),
              f"{pairs.tested} of {pairs.total} pairs of weight ≥ {pairs.threshold:g}"),
        _card("Policies violated", str(len(violated)),
              f"{sum(p.violated for p in violated)} violations in {overall.by_status['fail']} dialogs"),
        _card("Run", duration, f"{usage.calls:,} LLM calls · {usage.input_tokens + usage.output_tokens:,} tokens · "
              f"{escape(cost)}{this_time}"),
    ]
    gap = report.robustness
    if gap is not None:  # how much worse the chatbot fares against users who try to break its rules
        cards.insert(1, _card("Robustness gap", points(gap.gap, unit=""),
                              "percentage points · " + escape(robustness_note(gap))))
    return f'<section class="cards">{"".join(cards)}</section>'


def _programs_card(programs: ProgramFigures) -> str:
    backed = programs.backed
    return _card("Program-backed verdicts", percent(backed.rate),
                 f"{backed.count} of {backed.total} policies · {escape(backing_text(programs))}")


def _trials(figures: TrialFigures) -> str:
    flips = (f"Verdicts flipped on {figures.flipped} of {figures.pairs} event × policy pairs tested in two or "
             f"more trials ({percent(figures.flip_rate)})." if figures.pairs else
             "No policy was tested in two trials of one event, so no flip could be seen.")
    flaky = (f" Flaky events, whose judged trials disagreed: {', '.join(figures.flaky)}." if figures.flaky else "")
    heads = "".join(f"<th>pass^{k}</th>" for k in range(1, figures.trials + 1))
    rows = "".join(_curve_row(_policy_link(pid), curve) for pid, curve in figures.policies.items())
    per_persona = "".join(_curve_row(f'<a href="#persona-{escape(name)}">{escape(name)}</a>', curve)
                          for name, curve in figures.personas.items())
    personas = (f'<h3 class="sub">pass^k per kind of user</h3><table class="compact"><thead><tr><th>User</th>{heads}'
                f"</tr></thead><tbody>{per_persona}</tbody></table>" if per_persona else "")
    return (
        '<section class="grid two">'
        f'<div class="panel"><h2>Repeated trials: pass^k</h2>'
        f'<p class="hint">{_played(figures)} pass^k is the chance that all k trials '
        f"of an event pass (τ-bench's estimate, averaged over the events with k trials or more). {escape(flips)}"
        f"{escape(flaky)}</p>"
        f"{pass_k_chart(figures.pass_k)}</div>"
        f'<div class="panel"><h2>pass^k per policy</h2>'
        f'<p class="hint">Over the trials in which the judge found the policy tested; – where no event had k '
        f"such trials.</p>"
        f'<table class="compact"><thead><tr><th>Policy</th>{heads}</tr></thead><tbody>{rows}</tbody></table>'
        f"{personas}</div></section>"
    )


def _curve_row(label: str, curve: list[PassK]) -> str:
    """A table row: its label (HTML), then pass^1..pass^K, each titled with the events it is over."""
    cells = "".join(f'<td title="over {p.events} events">{percent(p.value)}</td>' for p in curve)
    return f"<tr><td>{label}</td>{cells}</tr>"


def _played(figures: TrialFigures) -> str:
    if figures.uneven:
        return (f"Events were played {figures.fewest} to {figures.trials} times (--trials auto: more trials where the "
                "verdicts flipped or straddled a gate threshold).")
    return f"Each event was played {figures.trials} times."


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


def _tau(score: TauScore) -> str:
    """τ-bench's score, then every dialog that missed its task's reward, with what differed from the gold."""
    curve = "".join(
        f"<tr><td>pass^{p.k}</td><td>{'–' if p.value is None else f'{p.value:.2f}'}</td>"
        f"<td>{'' if p.low is None else f'{p.low:.2f}–{p.high:.2f}'}</td><td>{p.tasks}</td></tr>"
        for p in score.pass_k
    )
    rows = "".join(
        f'<tr><td><a href="#dialog-{escape(f.dialog)}">{escape(f.dialog)}</a></td>'
        f"<td>{result.passed}/{result.trials}</td><td>{_tau_failure(f)}</td></tr>"
        for result in score.results for f in result.failures
    )
    failures = (
        '<h3 class="sub">Dialogs that missed the reward</h3><table class="compact"><thead><tr><th>Dialog</th>'
        f"<th>Task passed</th><th>What differed from the gold</th></tr></thead><tbody>{rows}</tbody></table>"
        if rows else '<p class="hint">Every dialog earned its reward.</p>'
    )
    errors = f" {score.errors} dialogs failed to run and count as reward 0." if score.errors else ""
    return (
        '<section class="panel"><h2>τ-bench score</h2>'
        f'<p class="hint">{counted(score.tasks, "published task")} × {counted(score.trials, "trial")}, '
        "graded as τ-bench grades: reward 1 when the database ends as the task's gold actions leave it and every "
        f"required output was said. pass^k: per task C(c, k) / C(n, k), averaged over the tasks.{errors}</p>"
        '<table class="compact"><thead><tr><th></th><th>Score</th><th>95% CI</th><th>Tasks</th></tr></thead>'
        f"<tbody>{curve}</tbody></table>{failures}</section>"
    )


def _tau_failure(failure: TauFailure) -> str:
    lines = [f"failed to run: {escape(failure.error)}"] if failure.error is not None else []
    lines += [f"missed <code>{escape(one_line(call, 200))}</code>" for call in failure.missed]
    lines += [f"also wrote <code>{escape(one_line(call, 200))}</code>" for call in failure.unexpected]
    lines += [f"never said {escape(output)}" for output in failure.unsaid]
    lines += [f"differs: {escape(record)}" for record in failure.diff]
    lines += [f'<span class="hint">did not look up <code>{escape(one_line(call, 200))}</code></span>'
              for call in failure.missed_reads]
    return "<br>".join(lines)


def _calibration(calibration: Calibration, artifacts: RunArtifacts) -> str:
    detection, alarms = calibration.detection, calibration.false_alarms
    changes = {record.name: record for record in artifacts.mutants}
    rows = "".join(
        f'<tr><td>{escape(m.name)}</td><td>{", ".join(_policy_link(p) for p in m.policies)}</td>'
        f'<td><span class="badge {OUTCOME_BADGES[m.outcome]}">{m.outcome}</span></td>'
        f'<td>{escape(", ".join(m.caught_in or m.dialogs))}</td><td>{escape(", ".join(m.caught_by))}</td>'
        f"<td>{_change(changes.get(m.name), m.reason)}</td></tr>"
        for m in calibration.mutants
    )
    return (
        '<section class="panel"><h2>Seeded violations</h2>'
        f'<p class="hint">Mutants of the chatbot each broke one rule on purpose. Caught: '
        f"{detection.passed} of {detection.total} judged mutants ({percent(detection.rate)}, {_interval(detection)}). "
        f"False alarms on the chatbot under test: {alarms.count} of {alarms.total} tests of the mutated rules "
        f"({percent(alarms.rate)}; an upper bound, since the chatbot may really break them).{_by_persona(calibration)}"
        "</p>"
        '<table class="compact"><thead><tr><th>Mutant</th><th>Breaks</th><th>Outcome</th><th>Dialogs</th>'
        f"<th>Caught by</th><th>How it was made</th></tr></thead><tbody>{rows}</tbody></table></section>"
    )


def _by_persona(calibration: Calibration) -> str:
    """How often the mutants' dialogs caught their mutant, per kind of user."""
    if not calibration.personas:
        return ""
    parts = ", ".join(f"{escape(p.persona)} {p.detection.passed} of {p.detection.total}" for p in calibration.personas)
    return f" Dialogs that caught their mutant, per kind of user: {parts}."


def _policy_link(policy_id: str) -> str:
    return f'<a href="#policy-{escape(policy_id)}">{escape(policy_id)}</a>'


def _change(record: MutantRecord | None, reason: str) -> str:
    if reason or record is None or record.removed is None:
        return escape(reason or "supplied")
    removed = f"<del>{escape(one_line(record.removed, 160))}</del>"
    return removed + (f" <ins>{escape(one_line(record.inserted, 160))}</ins>" if record.inserted else "")


def _card(title: str, figure: str, note: str, extra: str = "", css: str = "") -> str:
    return (f'<div class="card {css}"><h3>{escape(title)}</h3><p class="figure">{escape(figure)}</p>'
            f'<p class="note">{note}</p>{extra}</div>')


def _interval(rate: Rate) -> str:
    return "no verdict yet" if rate.rate is None else f"95% CI {percent(rate.low)}–{percent(rate.high)}"


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


def _baseline(comparison: BaselineComparison) -> str:
    before, after = comparison.overall_before, comparison.overall_after
    lists = [
        ("Significantly worse", comparison.significantly_worse, "violated"),
        ("New violations", comparison.new_violations, "violated"),
        ("Newly covered", comparison.newly_covered, "tested"),
        ("No longer covered", comparison.no_longer_covered, "untested"),
        ("Not comparable", comparison.not_comparable, "untested"),
    ]
    groups = "".join(
        f'<div><h3 class="sub">{title}</h3><p class="chips">'
        + ("".join(f'<a class="chip {css}" href="#policy-{escape(pid)}">{escape(pid)}</a>' for pid in ids) or "none")
        + "</p></div>"
        for title, ids, css in lists
    )
    changed = [c for c in comparison.policies if c.change or c.significantly_worse]
    rows = "".join(
        f'<tr class="{"worse" if c.significantly_worse else ""}">'
        f"<td>{_policy_link(c.id)}</td>"
        f"<td>{c.before.passed}/{c.before.total}</td><td>{c.after.passed}/{c.after.total}</td>"
        f'<td>{"–" if c.change is None else f"{c.change * 100:+.0f} pts"}</td><td>{c.p_value:.3f}</td></tr>'
        for c in sorted(changed, key=lambda c: (c.p_value, c.id))
    )
    heads = "<th>Policy</th><th>Before</th><th>Now</th><th>Change</th><th>p</th>"
    table = (f'<table class="compact"><thead><tr>{heads}</tr></thead><tbody>{rows}</tbody></table>'
             if rows else "<p>No policy's pass rate changed.</p>")
    return (
        f'<section class="panel" id="baseline"><h2>Against the baseline</h2>'
        f'<p class="hint">Baseline {escape(comparison.folder)} ({escape(comparison.name)}): pass rate '
        f"{percent(before.rate)} ({before.passed}/{before.total}) → "
        f"{percent(after.rate)} ({after.passed}/{after.total}). "
        f"Significantly worse means: {escape(comparison.test)}.</p>"
        f'<div class="grid five">{groups}</div>{table}</section>'
    )


def _policy_table(report: Report) -> str:
    categories = sorted({p.category for p in report.policies})
    options = "".join(f'<option value="{escape(c)}">{escape(CATEGORY_LABELS.get(c, c))}</option>' for c in categories)
    heads = [("id", "Policy", "text"), ("text", "Rule", "text"), ("category", "Category", "text"),
             ("flows", "Flows", "text"), ("challenge", "Challenge", "num"), ("sampled", "Sampled", "num"),
             ("tested", "Tested", "num"), ("violated", "Violated", "num"), ("rate", "Pass rate", "num"),
             ("outcome", "Outcome", "num")]
    header = "".join(f'<th data-key="{key}" data-type="{kind}" tabindex="0">{label}</th>' for key, label, kind in heads)
    outcomes = {group.id: group.pass_rate for group in report.outcomes.policies} if report.outcomes else {}
    rows = "".join(_policy_row(policy, outcomes.get(policy.id)) for policy in worst_first(report.policies))
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


def _policy_row(policy: PolicyResult, outcome: Rate | None) -> str:
    """A policy's row: its rule, counts and pass rate, and beside it the outcome pass rate of the graded dialogs
    that sampled it."""
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
        ("" if outcome is None or outcome.rate is None else outcome.rate, _outcome_cell(outcome)),
    ]
    tds = "".join(f'<td data-v="{escape(str(value))}">{html}</td>' for value, html in cells)
    return (f'<tr id="policy-{escape(policy.id)}" data-category="{escape(policy.category)}" '
            f'data-state="{state}">{tds}</tr>')


def _outcome_cell(rate: Rate | None) -> str:
    if rate is None or rate.rate is None:
        return '<span class="muted">not graded</span>'
    return (f"<b>{percent(rate.rate)}</b> <span class=\"muted\">{rate.passed}/{rate.total} · "
            f"{percent(rate.low)}–{percent(rate.high)}</span>")


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
        f"{dialog_cards(artifacts, analyses)}</section>"
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
