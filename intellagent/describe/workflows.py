"""Workflows as text, code or flowchart: how describe reads a policy document whatever form its procedures take.

A policy document may tell its procedures in prose, write them as procedural pseudo-code, or draw them as
Mermaid flowcharts: a whole `.mmd` file, or fenced ```mermaid blocks inside Markdown. Prose and
pseudo-code are read by the prompts as they are. A flowchart's syntax buries its steps in brackets and
arrows, so it is parsed here, with no model (nodes, their text and shape, the transitions and their
labels), and the prompts are shown the document followed by each chart read step by step: what each step
says, whether it is a question, and where it leads, under which answer. The chatbot still gets the
document exactly as given.

The parser reads Mermaid's flowchart subset: `flowchart`/`graph` headers, nodes of any shape
(`A[...]`, `A(...)`, `A{...}`, `A((...))`, `A[/.../]`, ...), text quoted or not, links of any style
(`-->`, `---`, `-.->`, `==>`, `--x`, ...) with a label as `-->|label|` or `-- label -->`, chains
(`A --> B --> C`) and groups (`A & B --> C`); comments, `subgraph`/`end`, styles, classes and clicks are
skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"^```\s*mermaid\s*$(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_HEADER = re.compile(r"^\s*(flowchart|graph)\b", re.IGNORECASE)
_SKIPPED = re.compile(r"^\s*(%%|subgraph\b|end\s*$|style\b|classDef\b|class\b|click\b|linkStyle\b|direction\b)")
# Openings of a node's shape, longest first, with their closings; a decision is drawn as a rhombus.
_SHAPES = (("(((", ")))"), ("([", "])"), ("[[", "]]"), ("[(", ")]"), ("((", "))"), ("{{", "}}"), ("[/", "/]"),
           ("[\\", "\\]"), ("[/", "\\]"), ("[\\", "/]"), ("[", "]"), ("(", ")"), ("{", "}"), (">", "]"))
_ID = re.compile(r"\s*([A-Za-z0-9_][\w-]*)")
_LINK = re.compile(r"\s*(?:(?:--|==|-\.)\s*([^|>\-=.][^>]*?)\s*)?(<?(?:-{2,}|={2,}|-\.+-)[->ox]?|<?-\.+->|~~~)"
                   r"(?:\|([^|]*)\|)?")
_AMPERSAND = re.compile(r"\s*&")


@dataclass
class Flowchart:
    """A parsed flowchart: its nodes (id → text), which are questions, and its links in source order."""

    nodes: dict[str, str] = field(default_factory=dict)
    questions: set[str] = field(default_factory=set)
    links: list[tuple[str, str, str]] = field(default_factory=list)  # (from, to, label)


def flowcharts(document: str) -> list[Flowchart]:
    """The Mermaid flowcharts of a document: the document itself when it is one, else its fenced mermaid blocks."""
    if _is_chart(document):
        return [parse_flowchart(document)]
    return [parse_flowchart(block) for block in _FENCE.findall(document) if _is_chart(block)]


def reading(document: str) -> str:
    """The document as describe's prompts show it: as given, followed by each of its flowcharts read step by step."""
    charts = flowcharts(document)
    if not charts:
        return document
    parts = [document.rstrip()]
    for number, chart in enumerate(charts, start=1):
        name = "The flowchart" if len(charts) == 1 else f"Flowchart {number}"
        parts.append(f"{name} above, read step by step (each step's id and text, then where it leads):\n"
                     + chart_steps(chart))
    return "\n\n".join(parts) + "\n"


def chart_steps(chart: Flowchart) -> str:
    """A chart's nodes, one per line in the order the chart first names them, with where each leads."""
    lines = []
    for node, text in chart.nodes.items():
        leads = [f"if {label!r}: {to}" if label else to for start, to, label in chart.links if start == node]
        kind = " (a question)" if node in chart.questions else ""
        after = f" → {'; '.join(leads)}" if leads else " (the end)"
        lines.append(f"- {node}{kind}: {text}{after}")
    return "\n".join(lines)


def parse_flowchart(text: str) -> Flowchart:
    """The nodes and links of one chart's source (its header line and unknown statements skipped)."""
    chart = Flowchart()
    for raw in text.splitlines():
        for statement in raw.split(";"):
            if statement.strip() and not _HEADER.match(statement) and not _SKIPPED.match(statement):
                _statement(chart, statement)
    return chart


def _is_chart(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip() and not line.strip().startswith("%%")), "")
    return _HEADER.match(first) is not None


def _statement(chart: Flowchart, statement: str) -> None:
    """One statement: a group of nodes, then any number of (link, group of nodes)."""
    group, rest = _group(chart, statement)
    while group and rest.strip():
        link = _LINK.match(rest)
        if link is None:
            return
        label = (link.group(3) or link.group(1) or "").strip().strip('"')
        following, rest = _group(chart, rest[link.end():])
        chart.links += [(start, to, label) for start in group for to in following]
        group = following


def _group(chart: Flowchart, text: str) -> tuple[list[str], str]:
    """The nodes of `A & B[text] & C` at the start of `text`, declared in `chart`, and the text after them."""
    found: list[str] = []
    while True:
        node, text = _node(chart, text)
        if node is None:
            return found, text
        found.append(node)
        more = _AMPERSAND.match(text)
        if more is None:
            return found, text
        text = text[more.end():]


def _node(chart: Flowchart, text: str) -> tuple[str | None, str]:
    """A node at the start of `text` (its id and, if given, its shape and text), and the text after it."""
    named = _ID.match(text)
    if named is None:
        return None, text
    node, rest = named.group(1), text[named.end():]
    chart.nodes.setdefault(node, node)
    for opening, closing in _SHAPES:
        if rest.startswith(opening):
            end = rest.find(closing, len(opening))
            if end < 0:
                continue
            chart.nodes[node] = " ".join(rest[len(opening):end].strip().strip('"').split()) or node
            if opening in ("{", "{{"):
                chart.questions.add(node)
            return node, rest[end + len(closing):]
    return node, rest
