"""The report page's section of the rollouts: what the searches yielded per policy and per flow, set against
the plain dialogs, and what they cost."""

from __future__ import annotations

from html import escape

from intellagent.artifacts.report import RolloutFigures, RolloutGroup
from intellagent.reports.summary import rollouts_line
from intellagent.reports.text import one_line


def rollouts_section(figures: RolloutFigures) -> str:
    """The section of the rollouts (--rollouts)."""
    return (
        '<section class="panel" id="rollouts"><h2>Rollouts and training data</h2>'
        f'<p class="hint">{escape(rollouts_line(figures))}. A rewarded path (its outcome passed, no check found '
        "anything, its simulated user made no fault) is a supervised example in training/sft.jsonl; at each of its "
        "turns, a sibling turn that led to no rewarded path makes a pair in training/preferences.jsonl (and two "
        "records in training/kto.jsonl).</p>"
        f"{_table('Policy', figures.policies)}{_table('Flow', figures.flows)}</section>"
    )


def _table(label: str, groups: list[RolloutGroup]) -> str:
    if not groups:
        return ""
    rows = "".join(
        f"<tr><td>{escape(group.id)}</td><td>{escape(one_line(group.name, 90))}</td><td>{group.events}</td>"
        f"<td>{group.paths}</td><td>{group.rewarded}</td><td>{group.pairs}</td></tr>"
        for group in groups
    )
    return (f'<table class="compact"><thead><tr><th>{label}</th><th></th><th>Events</th><th>Paths</th>'
            f"<th>Rewarded</th><th>Pairs</th></tr></thead><tbody>{rows}</tbody></table>")
