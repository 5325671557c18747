"""The page of a policy's history: its rates over the runs of its suite, drawn and listed, and the runs where it
moved significantly."""

from __future__ import annotations

from html import escape

from intellagent.reports.charts import history_chart
from intellagent.view.history import HistoryPoint, PolicyHistory
from intellagent.view.page import compare_url, page, rate_cell, run_link, when


def history_page(history: PolicyHistory) -> str:
    """The history of one policy."""
    chart = history_chart([(p.run.name, p.result.pass_rate, p.outcome, p.move.direction if p.move else "same")
                           for p in history.points])
    changed = ", ".join(escape(p.run.name) for p in history.changed) or "none"
    rows = "".join(_row(point, history.points[i - 1] if i else None) for i, point in enumerate(history.points))
    heads = ("Run", "Started (UTC)", "Commit or label", "Pass rate", "Outcome rate", "Violated", "From the run before")
    header = "".join(f"<th>{h}</th>" for h in heads)
    body = (
        f'<header><div><p class="kicker">{escape(history.suite)} · policy history</p>'
        f"<h1>{escape(history.policy)}</h1><p class=\"reliability\">{escape(history.text)}</p></div></header>"
        f'<section class="panel" id="history"><h2>Over {len(history.points)} runs</h2>'
        '<p class="hint">Blue: pass rate; green, dashed: outcome rate; each with its 95% interval. A red ring: '
        "significantly worse than the run before, a green one: significantly better "
        f"({escape(history.test)}, each way).</p>{chart}"
        f'<p class="hint" id="changed">Changed significantly in: {changed}.</p>{_others(history)}</section>'
        f'<section class="panel"><table class="compact" id="history-table"><thead><tr>{header}</tr></thead>'
        f"<tbody>{rows}</tbody></table></section>"
    )
    return page(f"{history.policy} over the runs", body, crumbs=escape(f"{history.suite} · {history.policy}"))


def _row(point: HistoryPoint, before: HistoryPoint | None) -> str:
    return (f'<tr><td>{run_link(point.run)}</td><td>{escape(when(point.run))}</td>'
            f"<td><code>{escape(point.run.source)}</code></td>"
            f'<td class="num">{rate_cell(point.result.pass_rate)}</td><td class="num">{rate_cell(point.outcome)}</td>'
            f'<td class="num">{point.result.violated}</td><td>{_move(point, before)}</td></tr>')


def _others(history: PolicyHistory) -> str:
    if not history.others:
        return ""
    names = ", ".join(escape(run.name) for run in history.others)
    return f'<p class="hint" id="others">{escape(history.policy)} is another rule, of another text, in: {names}.</p>'


def _move(point: HistoryPoint, before: HistoryPoint | None) -> str:
    if before is None:
        return ""
    move = point.move
    assert move is not None  # the points of a history share their text: each is compared with the one before
    p_value = move.change.p_value if move.direction == "worse" else move.better_p
    words = {"worse": "significantly worse", "better": "significantly better", "same": "no significant change"}
    link = f'<a href="{escape(compare_url(before.run.name, point.run.name))}">compare</a>'
    shown = f" (p = {p_value:.3f})" if move.direction != "same" else ""
    return f'<span class="move {move.direction}">{words[move.direction]}{shown}</span> · {link}'

