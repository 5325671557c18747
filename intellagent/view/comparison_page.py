"""The page of two runs compared: the headline rates, each policy worse, better or the same, and on one test set
every dialog whose verdict flipped, its two transcripts side by side."""

from __future__ import annotations

from html import escape

from intellagent.errors import UsageError
from intellagent.reports.dialog_view import dialog_card
from intellagent.reports.text import points
from intellagent.view.comparison import DialogChange, PolicyMove, RunComparison
from intellagent.view.page import compare_url, page, rate_cell, run_link, when
from intellagent.view.runs import Played, Run, played

SECTIONS = (("worse", "Significantly worse"), ("better", "Significantly better"), ("same", "No significant change"))


def comparison_page(comparison: RunComparison, *, base: str) -> str:
    """The comparison's page; `base` is the server's address, for the link that names the pair."""
    before, after = comparison.before, comparison.after
    link = base + compare_url(before.name, after.name)
    body = (
        f'<header><div><p class="kicker">IntellAgent · two runs compared</p><h1>{escape(before.name)} → '
        f'{escape(after.name)}</h1><p class="reliability">Link to this comparison: </p>'
        f'<code class="link" id="pair-link">{escape(link)}</code></div></header>'
        + _headline(before, after)
        + (f'<section class="panel notice" id="mismatch"><h2>Dialogs not compared</h2><p>{escape(comparison.mismatch)}'
           "</p></section>" if comparison.mismatch else "")
        + _policies(comparison)
        + ("" if comparison.mismatch else _dialogs(comparison))
    )
    return page(f"{before.name} → {after.name}", body, crumbs=escape(f"{before.name} → {after.name}"))


def _headline(before: Run, after: Run) -> str:
    rows = "".join(
        f"<tr><td>{run_link(run)}</td><td>{escape(when(run))}</td><td><code>{escape(run.source)}</code></td>"
        f'<td class="num">{rate_cell(run.figures.pass_rate)}</td>'
        f'<td class="num">{rate_cell(run.figures.outcome_rate)}</td>'
        f'<td><code class="set">{escape(run.test_set or "")}</code></td></tr>'
        for run in (before, after) if run.figures is not None
    )
    return ('<section class="panel" id="headline"><table class="compact"><thead><tr><th>Run</th><th>Started (UTC)'
            '</th><th>Commit or label</th><th class="num">Pass rate</th><th class="num">Outcome rate</th>'
            f"<th>Test set</th></tr></thead><tbody>{rows}</tbody></table></section>")


def _policies(comparison: RunComparison) -> str:
    moves = comparison.policies
    groups = "".join(_group(key, title, moves.of(key)) for key, title in SECTIONS)  # type: ignore[arg-type]
    apart = (f'<p class="hint">Not comparable (in one run only, or with another text): '
             f'{escape(", ".join(moves.not_comparable))}.</p>' if moves.not_comparable else "")
    return (f'<section class="panel" id="policies"><h2>Policies</h2><p class="hint">Significantly: '
            f"{escape(comparison.test)}, and the same test the other way for better.</p>{groups}{apart}</section>")


def _group(key: str, title: str, moves: list[PolicyMove]) -> str:
    if not moves:
        return f'<h3 class="sub">{title}</h3><p class="empty" id="policies-{key}">none</p>'
    rows = "".join(
        f'<tr><td>{escape(m.change.id)}</td><td class="num">{rate_cell(m.change.before)}</td>'
        f'<td class="num">{rate_cell(m.change.after)}</td><td class="num">{points(m.change.change)}</td>'
        f'<td class="num">{m.change.p_value:.3f}</td><td class="num">{m.better_p:.3f}</td></tr>'
        for m in moves
    )
    return (f'<h3 class="sub">{title} ({len(moves)})</h3><table class="compact" id="policies-{key}"><thead><tr>'
            '<th>Policy</th><th class="num">Before</th><th class="num">After</th><th class="num">Change</th>'
            f'<th class="num">p worse</th><th class="num">p better</th></tr></thead><tbody>{rows}</tbody></table>')


def _dialogs(comparison: RunComparison) -> str:
    if not comparison.changes:
        return '<section class="panel" id="dialogs"><h2>Dialogs</h2><p>No dialog changed its status.</p></section>'
    sides = _played(comparison.before), _played(comparison.after)
    new = "".join(_flip(change, comparison, sides) for change in comparison.new_failures) or '<p class="empty">none</p>'
    fixed = "".join(_flip(change, comparison, sides) for change in comparison.fixed) or '<p class="empty">none</p>'
    return (f'<section class="panel" id="new-failures"><h2>New failures ({len(comparison.new_failures)})</h2>'
            f'<p class="hint">Passed in {escape(comparison.before.name)}, fail in {escape(comparison.after.name)}.</p>'
            f"{new}</section>"
            f'<section class="panel" id="fixed"><h2>Fixed failures ({len(comparison.fixed)})</h2>'
            f'<p class="hint">Failed in {escape(comparison.before.name)}, pass in {escape(comparison.after.name)}.</p>'
            f"{fixed}</section>" + _other(comparison.other))


def _played(run: Run) -> Played | str:
    """The run's dialogs, or why they cannot be read."""
    try:
        return played(run)
    except (UsageError, OSError) as error:
        return f"the dialogs of {run.name} cannot be read: {error}"


def _flip(change: DialogChange, comparison: RunComparison, sides: tuple[Played | str, Played | str]) -> str:
    cards = "".join(
        f'<div class="side {side}"><h3>{escape(run.name)}: {escape(status or "absent")}</h3>'
        f"{_card(change.id, of)}</div>"
        for side, run, status, of in (("before", comparison.before, change.before, sides[0]),
                                      ("after", comparison.after, change.after, sides[1]))
    )
    return (f'<div class="flip" id="flip-{escape(change.id)}"><h3>{escape(change.id)}</h3>'
            f'<div class="sides">{cards}</div></div>')


def _card(dialog_id: str, of: Played | str) -> str:
    if isinstance(of, str):
        return f'<p class="lost">{escape(of)}</p>'
    dialog = next((d for d in of.artifacts.dialogs if d.id == dialog_id), None)
    analysis = of.analyses.get(dialog_id)
    if dialog is None or analysis is None:
        return '<p class="lost">not in this run\'s dialogs or analyses</p>'
    return dialog_card(dialog, analysis, of.artifacts, opened=True)


def _other(changes: list[DialogChange]) -> str:
    if not changes:
        return ""
    rows = "".join(f"<tr><td>{escape(c.id)}</td><td>{escape(c.before or 'absent')}</td>"
                   f"<td>{escape(c.after or 'absent')}</td></tr>" for c in changes)
    return ('<section class="panel" id="other-changes"><h2>Other changes of status</h2><p class="hint">To or from '
            "a status that is no verdict on the chatbot (user fault, incomplete, error) or a dialog in one run only."
            f'</p><table class="compact"><thead><tr><th>Dialog</th><th>Before</th><th>After</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></section>")
