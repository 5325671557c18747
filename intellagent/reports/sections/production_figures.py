"""Production (`production`, with `transcripts:`): the verdicts on the chatbot's real conversations, beside the
tests' (or alone, in a run that played none).

Per policy, how many conversations with a verdict reached it and how many broke it, with the pass rate's
95% Wilson interval; the policies production broke, worst first; and coverage on the policy graph both
ways: the policies and strong pairs by production frequency, those production reaches that no test dialog
tested, and those the tests tested that production never reaches. Its panel shades the policy graph by traffic.
What was read of each conversation (its turns, tool calls and results, the values masked) is listed, so that
nothing is lost silently. Its gate rule is `report.min_production`, on the share of conversations that broke no
policy; junit.xml has a suite of its own, a case per conversation.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from html import escape

import networkx as nx

from intellagent.artifacts import Analysis, Dialog, PolicyCatalog
from intellagent.artifacts.production_report import (
    MASK,
    ConversationRead,
    ProductionBreach,
    ProductionFailure,
    ProductionFigures,
    ProductionPair,
    ProductionPolicy,
)
from intellagent.artifacts.run_report import Rate, Report
from intellagent.config import ReportConfig
from intellagent.describe.production_traffic import Traffic
from intellagent.files import id_order
from intellagent.reports.charts import policy_graph
from intellagent.reports.coverage import share, strong_pairs
from intellagent.reports.dialog_analysis import RATED, by_status
from intellagent.reports.junit_cases import clean, figure, junit_case, junit_suite
from intellagent.reports.minimums import shortfall
from intellagent.reports.section import Durations, JudgedRun, Page, Section
from intellagent.reports.text import counted, one_line, percent

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
        read=_read(transcripts, production),
    )


def _read(transcripts: list[Dialog], production: list[Analysis]) -> list[ConversationRead]:
    """Each conversation as read, masked and judged, in the file's order."""
    verdicts = {analysis.id: analysis for analysis in production}
    read = []
    for dialog in transcripts:
        analysis = verdicts.get(dialog.id)
        status = analysis.status if analysis is not None else dialog.status
        reason = dialog.reason if dialog.status == "error" else analysis.error if analysis is not None else None
        calls = [call for message in dialog.transcript for call in message.tool_calls]
        text = json.dumps([message.model_dump(include={"content", "tool_calls"}) for message in dialog.transcript],
                          ensure_ascii=False)
        masked = Counter(mask.split("-")[0][1:] for mask in set(MASK.findall(text)))
        read.append(ConversationRead(
            id=dialog.id, conversation=dialog.production or dialog.id, status=status, reason=reason,
            turns=sum(message.role == "user" for message in dialog.transcript), calls=len(calls),
            results=sum(call.result is not None for call in calls), masked=dict(sorted(masked.items()))))
    return read


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
        parts.append(f"{counted(len(production.skipped), 'record')} skipped")
    if production.regression:
        parts.append(f"{counted(len(production.regression), 'regression scenario')} in regression/")
    return "; ".join(parts)


def reading_line(production: ProductionFigures) -> str:
    """What was read of production in one line: conversations, tool calls and their results, values masked."""
    read = [entry for entry in production.read if entry.status != "error" or entry.turns]
    masked: Counter[str] = Counter()
    for entry in production.read:
        masked.update(entry.masked)
    parts = [f"production read: {counted(len(read), 'conversation')}, {counted(production.calls, 'tool call')} "
             f"({production.results} with their result)"]
    if masked:
        parts.append("masked " + ", ".join(f"{n} {kind}" for kind, n in sorted(masked.items())))
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
        + _reading(figures)
        + "</section>"
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


def _reading(figures: ProductionFigures) -> str:
    """Each conversation as read: its turns, calls and results, what was masked, and its verdict."""
    rows = "".join(
        f"<tr><td><code>{escape(entry.id)}</code></td><td>{escape(entry.conversation)}</td><td>{entry.turns}</td>"
        f"<td>{entry.calls}</td><td>{entry.results}</td>"
        f"<td>{escape(', '.join(f'{n} {kind}' for kind, n in entry.masked.items()) or '–')}</td>"
        f"<td>{escape(entry.status)}{': ' + escape(one_line(entry.reason, 200)) if entry.reason else ''}</td></tr>"
        for entry in figures.read)
    return ('<h3 class="sub">Conversations read</h3><table><thead><tr><th>Id</th><th>Conversation</th><th>Turns</th>'
            "<th>Tool calls</th><th>With their result</th><th>Masked</th><th>Verdict</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>") if rows else ""


def production_gate(figures: ProductionFigures | None, settings: ReportConfig, report: Report) -> list[str]:
    """`report.min_production` against production's pass rate (or its 95% low end, under `report.gate_on`)."""
    minimum = settings.min_production
    if minimum is None:
        return []
    if figures is None or not figures.pass_rate.total:
        given = "the run was given no transcripts" if figures is None else (
            f"{counted(figures.conversations, 'conversation')} read, none with a verdict")
        return [f"--min-production {minimum:g} is set, but no production conversation got a verdict ({given})"]
    return shortfall("production pass rate", figures.pass_rate, minimum, setting="--min-production",
                     unit="conversations", gate_on=settings.gate_on)


def production_suite(figures: ProductionFigures, report: Report, took: Durations) -> list[ET.Element]:
    """The production suite: a case per conversation, passed, failed with what it broke, an error (a record that
    could not be read, a judge that failed) or skipped with why it has no verdict."""
    name = f"{report.name or 'run'}.production"
    breaches = {failure.id: failure.breaches for failure in figures.failures}
    cases = []
    for entry in figures.read:
        case = junit_case(name, f"{entry.id} {entry.conversation}", 0.0)
        if entry.status == "fail":
            found = breaches.get(entry.id, [])
            failure = ET.SubElement(case, "failure", {"type": "PolicyViolation", "message": clean(one_line(
                "broke " + ", ".join(dict.fromkeys(b.policy for b in found))))})
            failure.text = clean("\n".join(f"{b.policy} at turn {'–' if b.turn is None else b.turn} ({b.source}): "
                                            f"{b.reason}" for b in found))
        elif entry.status == "error":
            ET.SubElement(case, "error", {"type": "ConversationError",
                                          "message": clean(one_line(entry.reason or "it could not be judged"))})
        elif entry.status != "pass":
            ET.SubElement(case, "skipped", {"message": clean(one_line(f"no verdict ({entry.status}): "
                                                                      f"{entry.reason or ''}"))})
        cases.append(case)
    properties: dict[str, object] = {"conversations": figures.conversations,
                                     "pass_rate": figure(figures.pass_rate.rate), "tool_calls": figures.calls,
                                     "tool_results": figures.results}
    return [junit_suite(name, cases, properties, 0.0)]


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
    summary=lambda figures, report: [production_line(figures), reading_line(figures)],
    panel=production_panel,
    verdicts=lambda figures: figures.pass_rate.total,
    settings=("min_production",),
    gate=production_gate,
    junit_properties=lambda figures: {"production_pass_rate": figure(figures.pass_rate.rate)},
    junit_suites=production_suite,
)
"""The chatbot's real conversations beside the tests."""
