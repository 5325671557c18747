"""The report's charts, drawn as inline SVG: no plotting library, no network, readable without JavaScript (a
procedure's layers are laid out by networkx).

Every label passes through `escape`, since policy texts and names come from a model.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

import networkx as nx

from intellagent.artifacts import SopGraph
from intellagent.artifacts.production_report import ProductionFigures, ProductionPolicy
from intellagent.artifacts.run_report import (
    GroupCoverage,
    GroupResult,
    LevelResult,
    PassK,
    PolicyPair,
    PolicyResult,
    Rate,
)
from intellagent.reports.text import one_line, percent

# Colours shared with the page's stylesheet (report.html).
PASS, FAIL, MUTED, ACCENT, GRID = "#1f9d63", "#d6455d", "#c3c8d1", "#3b6fd8", "#e6e9ef"


def _svg(width: int, height: int, body: list[str], label: str, css: str = "chart") -> str:
    return (
        f'<svg class="{css}" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">' + "".join(body) + "</svg>"
    )


def _rate_colour(rate: float | None) -> str:
    if rate is None:
        return MUTED
    # From red at 0% through amber to green at 100%: the eye finds the bad rows first.
    hue = round(120 * rate * rate)
    return f"hsl({hue}, 58%, 44%)"


def level_chart(levels: list[LevelResult]) -> str:
    """Pass rate of the dialogs at or above each challenge level, with 95% intervals as a band."""
    width, height, left, right, top, bottom = 520, 250, 44, 16, 14, 58
    if not levels:
        return '<p class="empty">No dialog got a verdict, so there is no rate to draw.</p>'
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / max(1, len(levels) - 1) if len(levels) > 1 else 0

    def x(i: int) -> float:
        return left + (i * step if len(levels) > 1 else plot_w / 2)

    def y(value: float) -> float:
        return top + plot_h * (1 - value)

    body = _y_grid(left, width - right, y)
    # Label every level while there is room, else every k-th one, so the labels never overlap.
    every = max(1, math.ceil(34 / step)) if step else 1
    rated = [(i, level.pass_rate) for i, level in enumerate(levels) if level.pass_rate.rate is not None]
    if len(rated) > 1:
        upper = [f"{x(i):.1f},{y(r.high or 0):.1f}" for i, r in rated]
        lower = [f"{x(i):.1f},{y(r.low or 0):.1f}" for i, r in reversed(rated)]
        body.append(f'<polygon points="{" ".join(upper + lower)}" fill="{ACCENT}" opacity="0.12"/>')
        line = " ".join(f"{x(i):.1f},{y(r.rate or 0):.1f}" for i, r in rated)
        body.append(f'<polyline points="{line}" fill="none" stroke="{ACCENT}" stroke-width="2.5"/>')
    for i, level in enumerate(levels):
        rate = level.pass_rate
        if i % every == 0:
            body.append(f'<text x="{x(i):.1f}" y="{height - bottom + 16}" class="axis" text-anchor="middle">'
                        f"{level.level}</text>")
            body.append(f'<text x="{x(i):.1f}" y="{height - bottom + 30}" class="note" text-anchor="middle">'
                        f"n={rate.total}</text>")
        if rate.rate is None:
            continue
        if len(rated) == 1:  # no band to draw: show the interval as a whisker
            body.append(f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{y(rate.low or 0):.1f}" '
                        f'y2="{y(rate.high or 0):.1f}" stroke="{ACCENT}" stroke-width="2" opacity="0.5"/>')
        body.append(
            f'<circle cx="{x(i):.1f}" cy="{y(rate.rate):.1f}" r="5" fill="{_rate_colour(rate.rate)}" stroke="#fff" '
            f'stroke-width="1.5"><title>{escape(_rate_title(f"challenge ≥ {level.level}", rate))}</title></circle>'
        )
    body.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" class="axis" text-anchor="middle">'
                "challenge level (dialogs at or above it)</text>")
    return _svg(width, height, body, "Pass rate against challenge level")


def pass_k_chart(curve: list[PassK]) -> str:
    """pass^k against k: how fast the chance that every trial passes falls as trials are added."""
    width, height, left, right, top, bottom = 520, 220, 44, 16, 14, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / max(1, len(curve) - 1)

    def x(i: int) -> float:
        return left + i * step

    def y(value: float) -> float:
        return top + plot_h * (1 - value)

    body = _y_grid(left, width - right, y)
    known = [(i, point.value) for i, point in enumerate(curve) if point.value is not None]
    if len(known) > 1:
        line = " ".join(f"{x(i):.1f},{y(value):.1f}" for i, value in known)
        body.append(f'<polyline points="{line}" fill="none" stroke="{ACCENT}" stroke-width="2.5"/>')
    for i, point in enumerate(curve):
        body.append(f'<text x="{x(i):.1f}" y="{height - bottom + 16}" class="axis" text-anchor="middle">'
                    f"{point.k}</text>")
        if point.value is not None:
            title = f"pass^{point.k} = {point.value:.0%} over {point.events} events"
            body.append(f'<circle cx="{x(i):.1f}" cy="{y(point.value):.1f}" r="5" fill="{_rate_colour(point.value)}" '
                        f'stroke="#fff" stroke-width="1.5"><title>{escape(title)}</title></circle>')
    body.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" class="axis" text-anchor="middle">'
                "k: trials of an event that must all pass</text>")
    return _svg(width, height, body, "pass^k against k")


def _y_grid(x1: float, x2: float, y: Callable[[float], float]) -> list[str]:
    lines = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        at = y(tick)
        lines.append(f'<line x1="{x1}" x2="{x2}" y1="{at:.1f}" y2="{at:.1f}" stroke="{GRID}"/>')
        lines.append(f'<text x="{x1 - 6}" y="{at + 4:.1f}" class="axis" text-anchor="end">{tick * 100:.0f}%</text>')
    return lines


def _rate_title(label: str, rate: Rate) -> str:
    if rate.rate is None:
        return f"{label}: not tested"
    interval = f"95% CI {percent(rate.low)}–{percent(rate.high)}"
    return f"{label}: {percent(rate.rate)} passed ({rate.passed}/{rate.total}), {interval}"


# The frame of the bar charts: a name, a bar and a value per row.
ROW, NAME_W, BAR_W, VALUE_W = 28, 180, 240, 100


@dataclass
class _Bar:
    name: str
    title: str  # shown on hover
    value: str
    filled: float | None = None  # share of the track filled, 0-1; None draws the track alone
    colour: str = ACCENT
    whisker: tuple[float, float] | None = None  # an interval, as shares of the track


def group_bars(groups: list[GroupResult], *, label: str) -> str:
    """A horizontal bar per group: its pass rate over policy tests, with the 95% interval as a whisker."""
    return rate_bars([(group.name, group.pass_rate) for group in groups], label=label)


def rate_bars(rates: list[tuple[str, Rate]], *, label: str, empty: str = "not tested") -> str:
    """A horizontal bar per named rate, with its 95% interval as a whisker (`empty`: the value of one counted
    over nothing)."""
    bars = []
    for name, rate in rates:
        title = _rate_title(name, rate)
        if rate.rate is None:
            bars.append(_Bar(name, title, empty))
        else:
            value = f"{percent(rate.rate)} ({rate.passed}/{rate.total})"
            bars.append(_Bar(name, title, value, filled=rate.rate, colour=_rate_colour(rate.rate),
                             whisker=(rate.low or 0, rate.high or 0)))
    return _bar_chart(bars, label=label)


def coverage_bars(groups: list[GroupCoverage], *, label: str) -> str:
    """A bar per group: tested policies (filled) and never-tested ones (pale), with the counts."""
    bars = []
    for group in groups:
        never = ", ".join(group.never_tested) or "none"
        title = f"{group.name}: {group.tested} of {group.total} tested; never tested: {never}"
        share = group.tested / group.total if group.total else 0
        bars.append(_Bar(group.name, title, f"{group.tested}/{group.total} tested", filled=share))
    return _bar_chart(bars, label=label)


def _bar_chart(bars: list[_Bar], *, label: str) -> str:
    """One row per bar: its name, a pale full-width track with the filled share and whisker, its value."""
    if not bars:
        return '<p class="empty">Nothing to show.</p>'
    body = []
    for i, bar in enumerate(bars):
        top = 4 + i * ROW
        body.append(f"<g><title>{escape(bar.title)}</title>")
        body.append(f'<text x="{NAME_W - 8}" y="{top + 17}" class="label" text-anchor="end">'
                    f"{escape(one_line(bar.name, 25))}</text>")
        body.append(f'<rect x="{NAME_W}" y="{top + 5}" width="{BAR_W}" height="16" rx="3" fill="{GRID}"/>')
        if bar.filled is not None:
            body.append(f'<rect x="{NAME_W}" y="{top + 5}" width="{BAR_W * bar.filled:.1f}" height="16" rx="3" '
                        f'fill="{bar.colour}"/>')
        if bar.whisker is not None:
            low, high = (NAME_W + BAR_W * share for share in bar.whisker)
            body.append(f'<line x1="{low:.1f}" x2="{high:.1f}" y1="{top + 13}" y2="{top + 13}" stroke="#1d2433" '
                        'stroke-width="1.5" opacity="0.55"/>')
        body.append(f'<text x="{NAME_W + BAR_W + 8}" y="{top + 17}" class="value">{escape(bar.value)}</text></g>')
    return _svg(NAME_W + BAR_W + VALUE_W, ROW * len(bars) + 6, body, label)


def policy_graph(policies: list[PolicyResult], pairs: list[PolicyPair], *,
                 traffic: ProductionFigures | None = None) -> str:
    """The policies on a circle (grouped by flow) with their strong links; pairs tested together are solid.

    With `traffic`, the graph is production's: a policy is shaded by the share of real conversations that
    reached it (ringed red when one broke it), a link is as thick as the share that reached both.
    """
    if not policies:
        return '<p class="empty">No policies.</p>'
    size, margin = 440, 44
    centre, radius = size / 2, size / 2 - margin
    ordered = sorted(policies, key=lambda p: (p.flows[:1], p.id))
    place = {}
    for i, policy in enumerate(ordered):
        angle = 2 * math.pi * i / len(ordered) - math.pi / 2
        place[policy.id] = (centre + radius * math.cos(angle), centre + radius * math.sin(angle), angle)
    seen = {pair.policies: pair for pair in traffic.pairs} if traffic else {}
    body = []
    for pair in pairs:
        (x1, y1, _), (x2, y2, _) = place[pair.policies[0]], place[pair.policies[1]]
        if traffic is not None:
            frequency = seen[pair.policies].frequency or 0 if pair.policies in seen else 0
            style = f'stroke="{ACCENT}" stroke-opacity="{0.15 + 0.85 * frequency:.2f}"'
            width = 0.6 + 6 * frequency
            title = f"{pair.policies[0]} – {pair.policies[1]}: together in {percent(frequency)} of production"
        else:
            style = (f'stroke="{PASS}" stroke-opacity="0.75"' if pair.tested_together
                     else f'stroke="{MUTED}" stroke-dasharray="4 3"')
            width = 0.6 + pair.weight / 5
            title = f"{pair.policies[0]} – {pair.policies[1]} (weight {pair.weight:g}): " + (
                "tested together" if pair.tested_together else "never tested together")
        body.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" {style} '
                    f'stroke-width="{width:.1f}"><title>{escape(title)}</title></line>')
    labels = len(ordered) <= 48
    shades = {p.id: p for p in traffic.policies} if traffic else {}
    for policy in ordered:
        x, y, angle = place[policy.id]
        look = _traffic_look(shades.get(policy.id)) if traffic is not None else _test_look(policy)
        fill, stroke, state = look
        title = f"{policy.id} ({state}): {one_line(policy.text, 160)}"
        body.append(f'<a href="#policy-{escape(policy.id)}"><circle cx="{x:.1f}" cy="{y:.1f}" r="7" {fill} '
                    f'stroke="{stroke}" stroke-width="2">'
                    f"<title>{escape(title)}</title></circle></a>")
        if labels:
            lx, ly = centre + (radius + 20) * math.cos(angle), centre + (radius + 20) * math.sin(angle)
            body.append(f'<text x="{lx:.1f}" y="{ly + 4:.1f}" class="node" text-anchor="middle">'
                        f"{escape(policy.id)}</text>")
    label = "Policy graph shaded by production traffic" if traffic else "Policy graph with the strongly linked pairs"
    return _svg(size, size, body, label, "chart graph")


def _test_look(policy: PolicyResult) -> tuple[str, str, str]:
    """A policy's fill, ring and state in words, by the tests."""
    if policy.violated:
        return f'fill="{FAIL}"', FAIL, f"violated in {policy.violated} of {policy.tested}"
    if policy.tested:
        return f'fill="{PASS}"', PASS, f"held in {policy.tested} of {policy.tested}"
    return 'fill="#fff"', MUTED, "never tested"


def _traffic_look(policy: ProductionPolicy | None) -> tuple[str, str, str]:
    """A policy's fill, ring and state in words, by production: the more traffic, the darker."""
    if policy is None or not policy.seen:
        return 'fill="#fff"', MUTED, "never seen in production"
    frequency = policy.frequency or 0
    state = f"in {percent(frequency)} of production, broken in {policy.broken} of {policy.seen}"
    return (f'fill="{ACCENT}" fill-opacity="{0.15 + 0.85 * frequency:.2f}"', FAIL if policy.broken else ACCENT,
            state)


def status_bar(by_status: dict[str, int]) -> str:
    """One stacked bar of the dialogs by status."""
    total = sum(by_status.values())
    if not total:
        return ""
    parts = []
    for status, count in by_status.items():
        if count:
            parts.append(f'<span class="seg {escape(status)}" style="flex:{count}" '
                         f'title="{escape(f"{count} {status}")}"></span>')
    return f'<div class="stack">{"".join(parts)}</div>'


# The colours of a procedure's steps, by kind: what a program sees (calls, handovers, yeses) stands out.
STEP_COLOURS = {"call": ACCENT, "handoff": FAIL, "confirm": PASS, "ask": MUTED, "tell": MUTED}
STEP_W, STEP_H, LAYER_GAP, ROW_GAP = 168, 40, 44, 16


def procedure_graph(procedure: SopGraph, *, name: str) -> str:
    """A flow's procedure as a left-to-right layered drawing: one column per layer of its steps (networkx's
    topological generations: a step stands right of every step that comes before it), an arrow per order,
    dashed where a condition holds it (shown on hover)."""
    if not procedure.steps:
        return '<p class="empty">No steps.</p>'
    graph = nx.DiGraph()
    graph.add_nodes_from(step.id for step in procedure.steps)
    graph.add_edges_from((edge.before, edge.after) for edge in procedure.edges)
    order = {step.id: number for number, step in enumerate(procedure.steps)}
    layers = [sorted(members, key=order.__getitem__) for members in nx.topological_generations(graph)]
    tallest = max(len(members) for members in layers)
    width = len(layers) * (STEP_W + LAYER_GAP) - LAYER_GAP + 16
    height = tallest * (STEP_H + ROW_GAP) - ROW_GAP + 16
    box = {member: (8 + column * (STEP_W + LAYER_GAP),
                    8 + ((tallest - len(members)) / 2 + row) * (STEP_H + ROW_GAP))
           for column, members in enumerate(layers) for row, member in enumerate(members)}
    marker = f"arrow-{re.sub(r'[^A-Za-z0-9_-]', '', name)}"
    body = [f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#6b7385"/></marker></defs>']
    for edge in procedure.edges:
        (x1, y1), (x2, y2) = box[edge.before], box[edge.after]
        dash = ' stroke-dasharray="5 4"' if edge.condition else ""
        title = f"{edge.before} before {edge.after}" + (f", when {edge.condition}" if edge.condition else "")
        body.append(f'<line x1="{x1 + STEP_W:.1f}" y1="{y1 + STEP_H / 2:.1f}" x2="{x2:.1f}" y2="{y2 + STEP_H / 2:.1f}" '
                    f'stroke="#6b7385" stroke-width="1.5"{dash} marker-end="url(#{marker})">'
                    f"<title>{escape(title)}</title></line>")
    for step in procedure.steps:
        x, y = box[step.id]
        colour = STEP_COLOURS[step.kind]
        title = f"{step.id} {step.label()}" + (f" — {step.text}" if step.tool and step.text else "") + (
            f" (from {', '.join(step.policies)})" if step.policies else "")
        body.append(f'<g><title>{escape(title)}</title><rect x="{x:.1f}" y="{y:.1f}" width="{STEP_W}" '
                    f'height="{STEP_H}" rx="7" fill="#fff" stroke="{colour}" stroke-width="2"/>'
                    f'<text x="{x + 8:.1f}" y="{y + 16:.1f}" class="node">{escape(step.id)} · {escape(step.kind)}'
                    "</text>"
                    f'<text x="{x + 8:.1f}" y="{y + 31:.1f}" class="label">'
                    f"{escape(one_line(step.tool or step.text or step.kind, 24))}</text></g>")
    return _svg(width, height, body, f"Procedure of {name}", "chart procedure")


def history_chart(points: list[tuple[str, Rate, Rate | None, str]]) -> str:
    """A rate over runs, oldest left: per run (its name, pass rate, outcome rate, and `worse`, `better` or `same`
    from the run before), each rate with its 95% interval as a whisker; a ring marks a significant move."""
    width, height, left, right, top, bottom, inset = 720, 240, 44, 16, 14, 40, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    step = (plot_w - 2 * inset) / max(1, len(points) - 1) if len(points) > 1 else 0

    def x(i: int) -> float:  # inset: the first and last runs' names are centred under them, inside the chart
        return left + (inset + i * step if len(points) > 1 else plot_w / 2)

    def y(value: float) -> float:
        return top + plot_h * (1 - value)

    body = _y_grid(left, width - right, y)
    every = max(1, math.ceil(60 / step)) if step else 1
    for series, colour, shift in ((1, ACCENT, -3), (2, PASS, 3)):
        rated = [(i, point[series]) for i, point in enumerate(points)
                 if point[series] is not None and point[series].rate is not None]
        if len(rated) > 1:
            line = " ".join(f"{x(i) + shift:.1f},{y(r.rate or 0):.1f}" for i, r in rated)
            dash = "" if series == 1 else ' stroke-dasharray="5 4"'
            body.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for i, rate in rated:
            name, move = points[i][0], points[i][3]
            label = f"{name}: {'pass rate' if series == 1 else 'outcome rate'}"
            body.append(f'<line x1="{x(i) + shift:.1f}" x2="{x(i) + shift:.1f}" y1="{y(rate.low or 0):.1f}" '
                        f'y2="{y(rate.high or 0):.1f}" stroke="{colour}" stroke-width="2" opacity="0.45"/>')
            ring = (f' stroke="{FAIL if move == "worse" else PASS}" stroke-width="3"' if series == 1 and move != "same"
                    else ' stroke="#fff" stroke-width="1.5"')
            body.append(f'<circle class="s{series}" cx="{x(i) + shift:.1f}" cy="{y(rate.rate or 0):.1f}" r="5" '
                        f'fill="{colour}"{ring}><title>{escape(_rate_title(label, rate))}</title></circle>')
    for i, point in enumerate(points):
        if i % every == 0:
            body.append(f'<text x="{x(i):.1f}" y="{height - bottom + 16}" class="axis" text-anchor="middle">'
                        f"{escape(one_line(point[0], 14))}</text>")
    return _svg(width, height, body, "A policy's pass rate and outcome rate over the runs")
