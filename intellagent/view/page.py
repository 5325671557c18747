"""What every page of the run viewer shares: the template (the report's stylesheet and the viewer's own), the
addresses of its pages, and how a run's figures are written.

Every text that comes from a run folder (names, labels, policy texts, transcripts) is escaped.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from string import Template
from urllib.parse import quote, urlencode

from intellagent.artifacts.rates import Rate
from intellagent.reports.html import stylesheet
from intellagent.reports.text import percent
from intellagent.view.runs import Run

TEMPLATE = Path(__file__).with_name("view.html")

ABSENT = "—"
"""What a figure a run's report does not state shows (an older run's)."""


def page(title: str, body: str, *, crumbs: str = "") -> str:
    """A whole page: `body` (HTML) under a trail back to the index."""
    trail = f'<nav class="crumbs"><a href="/">All runs</a>{" · " + crumbs if crumbs else ""}</nav>'
    return Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        title=escape(f"{title} · IntellAgent runs"), style=stylesheet(), body=trail + body)


def report_url(run: Run) -> str:
    """Where the viewer serves a run's own report.html."""
    return file_url(run, "report.html")


def file_url(run: Run, name: str) -> str:
    """Where the viewer serves a file of a run folder."""
    inside = name if run.name == "." else f"{run.name}/{name}"
    return "/runs/" + quote(inside)


def compare_url(before: str, after: str) -> str:
    """The address of the comparison of two runs, by their names: a link that says which pair it shows."""
    return "/compare?" + urlencode({"a": before, "b": after})


def history_url(suite: str, policy: str) -> str:
    """The address of a policy's history over the runs of its suite."""
    return "/policy?" + urlencode({"suite": suite, "id": policy})


def run_link(run: Run) -> str:
    """The run's name, linking to its report when it has one."""
    if run.figures is None:
        return escape(run.name)
    return f'<a href="{escape(report_url(run))}">{escape(run.name)}</a>'


def rate_cell(rate: Rate | None) -> str:
    """A rate as a table cell's content: the percentage, then its counts and 95% interval."""
    if rate is None:
        return ABSENT
    if rate.rate is None:
        return '–<span class="sub">0 with a verdict</span>'
    return (f'{percent(rate.rate)}<span class="sub">{rate.passed}/{rate.total} · '
            f"{percent(rate.low)}–{percent(rate.high)}</span>")


def rate_title(rate: Rate) -> str:
    """A rate in words, for a tooltip."""
    if rate.rate is None:
        return "not tested"
    return f"{percent(rate.rate)} ({rate.passed}/{rate.total}), 95% CI {percent(rate.low)}–{percent(rate.high)}"


def when(run: Run) -> str:
    """When a run started, to the minute, as run.json gives it (UTC)."""
    started = run.started
    return f"{started[:10]} {started[11:16]}" if len(started) >= 16 else started or ABSENT


def missing_page(what: str) -> str:
    """A page that says what was asked for and why it cannot be shown."""
    return page("Not shown",
                f'<section class="panel notice"><h2>Not shown</h2><p id="why">{escape(what)}</p></section>')
