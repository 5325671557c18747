"""Workflows as text, code or flowchart: how describe reads a policy document whatever form its procedures take.

A policy document may tell its procedures in prose, write them as procedural pseudo-code, or draw them as
flowcharts: Mermaid (a whole `.mmd` file, or fenced ```mermaid blocks inside Markdown) or Graphviz DOT (a
whole `.dot` file, or fenced ```dot blocks). Prose and pseudo-code are read by the prompts as they are. A
flowchart's syntax buries its steps in brackets and arrows, so it is parsed here, with no model (nodes,
their text and shape, the transitions and their labels), and the prompts are shown the document followed
by each chart read step by step: what each step says, whether it is a question, and where it leads, under
which answer. The chatbot still gets the document exactly as given.

A DOT chart is parsed by pydot: a node's `label` is its text (its id when it has none), a `diamond` node is
a question, an edge's `label` is its answer, and a node's other attributes are kept, which a procedure may use
(`tool=`, `required=true`: see `rules.chart_procedures`); default `node`/`edge` statements, attributes of the graph
and subgraph boundaries are layout, and are skipped (the nodes and edges inside a subgraph are kept).

The parser reads Mermaid's flowchart subset: `flowchart`/`graph` headers, nodes of any shape
(`A[...]`, `A(...)`, `A{...}`, `A((...))`, `A[/.../]`, ...), text quoted or not, links of any style
(`-->`, `---`, `-.->`, `==>`, `--x`, ...) with a label as `-->|label|` or `-- label -->`, chains
(`A --> B --> C`) and groups (`A & B --> C`); comments, `subgraph`/`end`, styles, classes and clicks are
skipped.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass, field

import pydot

_FENCE = re.compile(r"^```\s*mermaid\s*$(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_DOT_FENCE = re.compile(r"^```\s*(?:dot|graphviz)\s*$(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
# A DOT graph opens with its kind, an optional id and a brace; a Mermaid `graph TD` header has no brace.
_DOT_HEADER = re.compile(r'^\s*(?:strict\s+)?(?:di)?graph\s*(?:"[^"]*"|[\w.]+)?\s*\{', re.IGNORECASE)
_DOT_COMMENT = re.compile(r"^\s*(?://|#|/\*).*$", re.MULTILINE)
_DOT_SETTINGS = ("node", "edge", "graph")
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
    attributes: dict[str, dict[str, str]] = field(default_factory=dict)  # DOT: node → its other attributes


def flowcharts(document: str) -> list[Flowchart]:
    """The flowcharts of a document: the document itself when it is one (DOT or Mermaid), else its fenced dot and
    mermaid blocks, DOT first."""
    if _is_dot(document):
        return [parse_dot(document)]
    if _is_chart(document):
        return [parse_flowchart(document)]
    dot = [parse_dot(block) for block in _DOT_FENCE.findall(document) if _is_dot(block)]
    return dot + [parse_flowchart(block) for block in _FENCE.findall(document) if _is_chart(block)]


def reading(document: str) -> str:
    """The document as describe's prompts show it: as given, followed by each of its flowcharts read step by step."""
    charts = [chart for chart in flowcharts(document) if chart.nodes]
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


def parse_dot(text: str) -> Flowchart:
    """The nodes and links of one Graphviz DOT chart, in the order its source names them (an empty chart when
    pydot cannot read it: the prompts then read the document as it is)."""
    chart = Flowchart()
    with contextlib.redirect_stdout(io.StringIO()):  # pydot prints what it cannot parse; the chart is left empty
        graphs = pydot.graph_from_dot_data(text) or []
    for graph in graphs[:1]:
        _dot_graph(chart, graph)
    return chart


def _dot_graph(chart: Flowchart, graph: pydot.Graph) -> None:
    """The statements of a graph and of its subgraphs, in source order within each."""
    for node in graph.get_nodes():
        name = _dot_text(node.get_name())
        if name in _DOT_SETTINGS:
            continue
        label = node.get_label()
        chart.nodes[name] = _dot_text(label) if label is not None else chart.nodes.get(name, name)
        if (node.get_shape() or "").strip('"').lower() in ("diamond", "mdiamond"):
            chart.questions.add(name)
        others = {key: _dot_text(str(value)) for key, value in node.get_attributes().items() if key != "label"}
        if others:
            chart.attributes[name] = {**chart.attributes.get(name, {}), **others}
    for edge in graph.get_edges():
        start, to = _dot_text(str(edge.get_source())), _dot_text(str(edge.get_destination()))
        for name in (start, to):
            chart.nodes.setdefault(name, name)
        label = edge.get_label()
        chart.links.append((start, to, _dot_text(label) if label is not None else ""))
    for subgraph in graph.get_subgraphs():
        _dot_graph(chart, subgraph)


def _dot_text(value: str) -> str:
    """A DOT id or label as words: quotes off, line breaks (`\\n`, `\\l`, `\\r`) and runs of space as one space."""
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    text = re.sub(r"\\[nlr]", " ", text).replace('\\"', '"')
    return " ".join(text.split())


def _is_dot(text: str) -> bool:
    return _DOT_HEADER.match(_DOT_COMMENT.sub("", text)) is not None


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
