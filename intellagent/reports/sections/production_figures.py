"""Production (`production`, with `transcripts:`): the verdicts on the chatbot's real conversations, beside the
tests'.

Per policy, how many conversations with a verdict reached it and how many broke it, with the pass rate's
95% Wilson interval; the policies production broke, worst first; and coverage on the policy graph both
ways: the policies and strong pairs by production frequency, those production reaches that no test dialog
tested, and those the tests tested that production never reaches. Its panel shades the policy graph by traffic.
"""

from __future__ import annotations

from html import escape

import networkx as nx

from intellagent.artifacts import Analysis, Dialog, PolicyCatalog
from intellagent.artifacts.production_report import (
    ProductionBreach,
    ProductionFailure,
    ProductionFigures,
    ProductionPair,
    ProductionPolicy,
)
from intellagent.artifacts.run_report import Rate
from intellagent.describe.production_traffic import Traffic
from intellagent.files import id_order
from intellagent.reports.charts import policy_graph
from intellagent.reports.coverage import share, strong_pairs
from intellagent.reports.dialog_analysis import RATED, by_status
from intellagent.reports.section import JudgedRun, Page, Section
from intellagent.reports.text import counted, percent

SHOWN_WORST = 5
"""Policies the summary names among those production broke."""


def production_figures(catalog: PolicyCatalog, graph: nx.Graph, tests: list[Analysis], transcripts: list[Dialog],
                       production: list[Analysis], *, strong_edge: float) -> ProductionFigures:
    """The production section.

    Args:
        catalog: the run's policies.
        graph: the policy graph.
        tests: the test dialogs' analyses with a verdict.
        transcripts: the production conversations as read (transcripts.jsonl).
        production: their analyses (production.jsonl).
        strong_edge: the weight from which a pair of policies counts as strongly linked.
    """
    traffic = Traffic.of(production)
    rated = [analysis for analysis in production if analysis.status in RATED]
    tested = {pid for analysis in tests for pid in analysis.tested}
    ids = [policy.id for policy in catalog.policies]
    policies = [_policy(pid, traffic, tests) for pid in ids]
    policies.sort(key=lambda p: (-p.seen, id_order(p.id)))
    pairs = _pairs(graph, set(ids), tests, traffic, strong_edge=strong_edge)
    broken = [p for p in policies if p.broken]
    broken.sort(key=lambda p: (p.pass_rate.rate or 0, -p.broken, id_order(p.id)))
    return ProductionFigures(
        conversations=len(transcripts),
        by_status=by_status(production),
        skipped=[dialog.reason for dialog in transcripts if dialog.status == "error"],
        pass_rate=Rate.of(sum(a.status == "pass" for a in rated), len(rated)),
        policies=policies,
        worst=[p.id for p in broken],
        pairs=pairs,
        in_production_never_tested=[pid for pid in ids if traffic.exercised[pid] and pid not in tested],
        tested_never_in_production=[pid for pid in ids if pid in tested and not traffic.exercised[pid]],
        pairs_in_production_never_tested=[pair.policies for pair in pairs if pair.seen and not pair.tested_together],
        not_applicable=sorted({name for dialog in transcripts for name in dialog.inapplicable}),
        failures=_failures(transcripts, production),
    )


def _failures(transcripts: list[Dialog], production: list[Analysis]) -> list[ProductionFailure]:
    names = {dialog.id: dialog.production or dialog.id for dialog in transcripts}
    return [ProductionFailure(id=a.id, conversation=names.get(a.id, a.id), breaches=[
        ProductionBreach(policy=v.policy, turn=v.turn, reason=v.reason, source=v.source) for v in a.violations])
        for a in production if a.status == "fail"]


def _policy(policy_id: str, traffic: Traffic, tests: list[Analysis]) -> ProductionPolicy:
    seen, broken = traffic.exercised[policy_id], traffic.broken[policy_id]
    return ProductionPolicy(id=policy_id, seen=seen, frequency=share(seen, traffic.conversations), broken=broken,
                            pass_rate=Rate.of(seen - broken, seen),
                            tested=sum(policy_id in analysis.tested for analysis in tests))


def _pairs(graph: nx.Graph, ids: set[str], tests: list[Analysis], traffic: Traffic, *,
           strong_edge: float) -> list[ProductionPair]:
    """The strong pairs with their production frequency, the most frequent first."""
    strong = strong_pairs(graph, ids, (set(a.tested) for a in tests), threshold=strong_edge).pairs
    pairs = [ProductionPair(policies=pair.policies, weight=pair.weight, seen=traffic.pairs[pair.policies],
                            frequency=share(traffic.pairs[pair.policies], traffic.conversations),
                            tested_together=pair.tested_together) for pair in strong]
    return sorted(pairs, key=lambda pair: -pair.seen)


def production_line(production: ProductionFigures) -> str:
    """Production in one line: its pass rate, the worst policy there, what the tests miss, and the regression set."""
    rate = production.pass_rate
    parts = [f"production: {rate.passed} of {rate.total} conversations broke no policy ({percent(rate.rate)}, "
             f"95% CI {percent(rate.low)}–{percent(rate.high)})"]
    if production.worst:
        parts.append(f"worst {', '.join(production.worst[:SHOWN_WORST])}")
    if production.in_production_never_tested:
        parts.append(f"in production, never tested: {', '.join(production.in_production_never_tested)}")
    if production.skipped:
        parts.append(f"{counted(len(production.skipped), 'line')} skipped")
    if production.regression:
        parts.append(f"{counted(len(production.regression), 'regression scenario')} in regression/")
    return "; ".join(parts)


def production_panel(figures: ProductionFigures, page: Page) -> str:
    """Production's pass rate, its policies worst first with their intervals, what each side misses, and the
    policy graph shaded by traffic."""
    report = page.report
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
        + _failing(figures)
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


def _failing(figures: ProductionFigures) -> str:
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


def _measure(run: JudgedRun) -> ProductionFigures | None:
    artifacts = run.artifacts
    if not artifacts.transcripts:
        return None
    return production_figures(artifacts.catalog, artifacts.graph, run.rated, artifacts.transcripts,
                              artifacts.production, strong_edge=run.settings.strong_edge)


PRODUCTION = Section(
    key="production",
    figures=ProductionFigures,
    measure=_measure,
    summary=lambda figures, report: [production_line(figures)],
    panel=production_panel,
)
"""The chatbot's real conversations beside the tests."""
