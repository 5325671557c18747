"""The viewer's first page: every run under the folder with its figures, newest first; two runs to compare; each
suite's policies over its runs; and what could not be shown, with why."""

from __future__ import annotations

from html import escape

from intellagent.artifacts.rates import Rate
from intellagent.artifacts.run_report import PolicyResult
from intellagent.reports.text import counted, one_line, percent
from intellagent.view.comparison import PolicyMove
from intellagent.view.history import suite_moves, suite_runs, suites
from intellagent.view.page import ABSENT, compare_url, history_url, page, rate_cell, rate_title, run_link, when
from intellagent.view.runs import Catalogue, Run

COLUMNS = 12
"""The most runs a suite's policy table shows: its latest."""


def index_page(catalogue: Catalogue, *, alpha: float) -> str:
    """The page over every run of the catalogue."""
    body = (f'<header><div><p class="kicker">IntellAgent · runs</p><h1>{escape(str(catalogue.root))}</h1>'
            f'<p class="reliability">{_count(catalogue)}</p></div></header>'
            + _picker(catalogue) + _runs(catalogue) + "".join(_suite(catalogue, name, alpha=alpha)
                                                               for name in suites(catalogue))
            + _strays(catalogue))
    return page("All runs", body)


def _count(catalogue: Catalogue) -> str:
    shown, runs = len(catalogue.shown), len(catalogue.runs)
    unread = f"; {runs - shown} without a report" if runs > shown else ""
    strays = f"; {counted(len(catalogue.strays), 'folder')} with no run" if catalogue.strays else ""
    return f"{counted(shown, 'run')} with a report{unread}{strays}."


def _picker(catalogue: Catalogue) -> str:
    """Two runs to compare: the earlier and the later, the two newest by default."""
    runs = catalogue.shown
    if len(runs) < 2:
        return ""

    def options(chosen: Run) -> str:
        return "".join(f'<option value="{escape(run.name)}"{" selected" if run is chosen else ""}>'
                       f"{escape(run.name)} · {escape(when(run))}</option>" for run in reversed(runs))

    return ('<section class="panel"><h2>Compare two runs</h2><p class="hint">Of one frozen test set, dialog by '
            'dialog; of any two, policy by policy.</p><form class="pick" id="compare" method="get" action="/compare">'
            f'<label>earlier <select name="a">{options(runs[-2])}</select></label>'
            f'<label>later <select name="b">{options(runs[-1])}</select></label>'
            "<button type=\"submit\">Compare</button></form></section>")


def _runs(catalogue: Catalogue) -> str:
    heads = ("Run", "Suite", "Started (UTC)", "Commit or label", "Status", "Pass rate", "Outcome rate",
             "Outcome floor", "Coverage", "Cost", "Test set", "")
    numeric = {"Pass rate", "Outcome rate", "Outcome floor", "Coverage", "Cost"}
    header = "".join(f'<th class="{"num" if h in numeric else ""}">{h}</th>' for h in heads)
    previous = _previous_of_same_set(catalogue)
    rows = "".join(_run_row(run, previous.get(run.name)) for run in reversed(catalogue.runs))
    return ('<section class="panel"><h2>Runs, newest first</h2><p class="hint">Each run\'s name opens its own '
            "report. Rates with their counts and 95% interval; the outcome floor is what a chatbot that does nothing "
            f'would score ({ABSENT}: not stated by the run\'s report).</p>'
            f'<table class="compact runs" id="runs"><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>'
            "</section>")


def _previous_of_same_set(catalogue: Catalogue) -> dict[str, Run]:
    """For each run with a report, the run before it on the same test set."""
    last: dict[str, Run] = {}
    previous: dict[str, Run] = {}
    for run in catalogue.shown:
        if run.test_set is not None:
            if run.test_set in last:
                previous[run.name] = last[run.test_set]
            last[run.test_set] = run
    return previous


def _run_row(run: Run, previous: Run | None) -> str:
    info = run.info
    status = escape(info.status) if info else ABSENT
    start = (f'<tr id="run-{escape(run.name)}" class="{"" if run.figures else "problem"}"><td>{run_link(run)}</td>')
    if run.figures is None:
        return (f"{start}<td></td><td>{escape(when(run))}</td><td>{escape(run.source)}</td><td>{status}</td>"
                f'<td class="reason" colspan="7">{escape(run.problem or "")}</td></tr>')
    figures = run.figures
    tested, total = figures.coverage
    cost, unpriced = figures.cost
    versus = (f'<a href="{escape(compare_url(previous.name, run.name))}" title="against {escape(previous.name)}, '
              f'the run before it on this test set">vs previous</a>' if previous else "")
    return (
        f"{start}<td>{escape(figures.suite)}</td><td>{escape(when(run))}</td><td><code>{escape(run.source)}</code>"
        f"</td><td>{status}</td>"
        f'<td class="num pass-rate">{rate_cell(figures.pass_rate)}</td>'
        f'<td class="num outcome-rate">{rate_cell(figures.outcome_rate)}</td>'
        f'<td class="num floor">{_floor(figures.outcome_floor)}</td>'
        f'<td class="num coverage">{tested} of {total}<span class="sub">{percent(tested / total if total else None)}'
        "</span></td>"
        f'<td class="num cost">${cost:.4f}{" + unpriced" if unpriced else ""}</td>'
        f'<td><code class="set" title="digest of its policies, scenarios and events">{escape(run.test_set or "")}'
        f"</code></td><td>{versus}</td></tr>"
    )


def _floor(floor: Rate | None) -> str:
    if floor is None or floor.rate is None:
        return ABSENT
    return f"{percent(floor.rate)} <span class=\"muted\">{floor.passed} of {floor.total}</span>"


def _suite(catalogue: Catalogue, suite: str, *, alpha: float) -> str:
    """A suite's policies over its latest runs: each cell the pass rate, marked where it moved significantly."""
    runs = suite_runs(catalogue, suite)
    moves = suite_moves(runs, alpha=alpha)[-COLUMNS:]
    runs = runs[-COLUMNS:]
    newest = runs[-1].figures
    assert newest is not None
    heads = "".join(f'<th class="num" title="{escape(when(run))}">{escape(one_line(run.name, 18))}</th>'
                    for run in runs)
    rows = "".join(
        f'<tr><td><a href="{escape(history_url(suite, pid))}">{escape(pid)}</a></td>'
        f'<td>{escape(one_line(policy.text, 90))}</td>'
        + "".join(_cell(run, policy, moved.get(pid)) for run, moved in zip(runs, moves, strict=True)) + "</tr>"
        for pid, policy in newest.policies.items()
    )
    return (f'<section class="panel" id="suite-{escape(suite)}"><h2>{escape(suite)}: each policy over its runs</h2>'
            '<p class="hint">Pass rate per run, oldest left; underlined red where it fell, green where it rose '
            "significantly from the run before (the gate's --baseline test). A policy's id opens its history.</p>"
            f'<table class="compact matrix"><thead><tr><th>Policy</th><th>Rule</th>{heads}</tr></thead>'
            f"<tbody>{rows}</tbody></table></section>")


def _cell(run: Run, policy: PolicyResult, move: PolicyMove | None) -> str:
    result = run.figures.policies.get(policy.id) if run.figures else None
    if result is None:
        return '<td class="cell none" title="not in this run">·</td>'
    if result.text != policy.text:
        return f'<td class="cell none" title="another rule: {escape(one_line(result.text, 120))}">≠</td>'
    rate = result.pass_rate
    css = "cell" + (" none" if rate.rate is None else "") + (f" {move.direction}" if move else "")
    return f'<td class="{css}" title="{escape(rate_title(rate))}">{percent(rate.rate)}</td>'


def _strays(catalogue: Catalogue) -> str:
    if not catalogue.strays:
        return ""
    items = "".join(f"<li><code>{escape(stray.name)}</code>: {escape(stray.reason)}</li>" for stray in catalogue.strays)
    return f'<section class="panel" id="strays"><h2>Not runs</h2><ul>{items}</ul></section>'
