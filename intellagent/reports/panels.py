"""The pieces report.html's headline and panels are built from: a card, a rate's interval, a link to a policy."""

from __future__ import annotations

from html import escape

from intellagent.artifacts.run_report import Rate
from intellagent.reports.text import percent


def card(title: str, figure: str, note: str, extra: str = "", css: str = "") -> str:
    """A headline card: its title and figure (text), its note and anything below it (HTML)."""
    return (f'<div class="card {css}"><h3>{escape(title)}</h3><p class="figure">{escape(figure)}</p>'
            f'<p class="note">{note}</p>{extra}</div>')


def interval(rate: Rate) -> str:
    """A rate's 95% interval in words, or that it has no verdict yet."""
    return "no verdict yet" if rate.rate is None else f"95% CI {percent(rate.low)}–{percent(rate.high)}"


def policy_link(policy_id: str) -> str:
    """A link to a policy's row of the policy table."""
    return f'<a href="#policy-{escape(policy_id)}">{escape(policy_id)}</a>'
