"""The production section of report.html: real traffic beside the tests (see `reports.production`)."""

from __future__ import annotations

from html import escape

from intellagent.artifacts.production import ProductionFigures
from intellagent.artifacts.report import Report
from intellagent.reports.charts import policy_graph
from intellagent.reports.text import counted, percent


def production_section(report: Report) -> str:
    """Production's pass rate, its policies worst first with their intervals, what each side misses, and the
    policy graph shaded by traffic."""
    figures = report.production
    assert figures is not None
    rate = figures.pass_rate
    interval = "" if rate.low is None else f" (95% interval {percent(rate.low)}–{percent(rate.high)})"
    counts = ", ".join(f"{n} {status}" for status, n in figures.by_status.items() if n)
    skipped = "".join(f"<li>{escape(line)}</li>" for line in figures.skipped)
    regression = (f"<p>{counted(len(figures.regression), 'failing conversation')} kept as regression scenarios in "
                  "<code>regression/</code>: play them with <code>--scenarios-from</code>.</p>"
                  if figures.regression else "")
    return (
        '<section class="panel" id="production"><h2>Production</h2>'
        f"<p><strong>{percent(rate.rate)}</strong> of {rate.total} real conversations with a verdict broke no "
        f"policy{interval}; {figures.conversations} read: {escape(counts)}.</p>"
        + (f'<h3 class="sub">Lines skipped</h3><ul>{skipped}</ul>' if skipped else "")
        + _worst(figures)
        + _failures(figures)
        + '<div class="grid two"><div>'
        + _listed("In production, never tested", figures.in_production_never_tested)
        + _listed("Tested, never seen in production", figures.tested_never_in_production)
        + _listed("Strong pairs in production, never tested together",
                  [" – ".join(pair) for pair in figures.pairs_in_production_never_tested])
        + _listed("Checks not applicable (they need a world)", figures.not_applicable)
        + regression
        + '</div><div><h3 class="sub">Policy graph by traffic</h3>'
        + policy_graph(report.policies, report.coverage.strong_pairs.pairs, traffic=figures)
        + '<p class="legend">darker: more of production reached it; ringed red: broken there</p></div></div>'
        "</section>"
    )


def _worst(figures: ProductionFigures) -> str:
    rows = []
    by_id = {policy.id: policy for policy in figures.policies}
    for policy_id in figures.worst:
        policy = by_id[policy_id]
        rate = policy.pass_rate
        rows.append(f'<tr><td><a href="#policy-{escape(policy_id)}">{escape(policy_id)}</a></td>'
                    f"<td>{policy.seen}</td><td>{policy.broken}</td><td>{percent(rate.rate)}</td>"
                    f"<td>{percent(rate.low)}–{percent(rate.high)}</td><td>{policy.tested}</td></tr>")
    if not rows:
        return "<p>Production broke no policy.</p>"
    return ('<h3 class="sub">Worst in production</h3><table><thead><tr><th>Policy</th><th>Seen</th><th>Broken</th>'
            "<th>Pass rate</th><th>95% interval</th><th>Test dialogs</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _failures(figures: ProductionFigures) -> str:
    """Each failing conversation with what it broke: the policy, the turn, who found it and the quoted reason."""
    if not figures.failures:
        return ""
    items = "".join(
        f"<li><code>{escape(failure.id)}</code> {escape(failure.conversation)}<ul>"
        + "".join(f'<li><a href="#policy-{escape(b.policy)}">{escape(b.policy)}</a> at turn '
                  f"{'–' if b.turn is None else b.turn} ({escape(b.source)}): {escape(b.reason)}</li>"
                  for b in failure.breaches)
        + "</ul></li>" for failure in figures.failures)
    return f'<h3 class="sub">Failing conversations</h3><ul>{items}</ul>'


def _listed(title: str, items: list[str]) -> str:
    chips = "".join(f'<span class="chip">{escape(item)}</span>' for item in items) or "none"
    return f'<h3 class="sub">{escape(title)}</h3><p class="chips">{chips}</p>'
