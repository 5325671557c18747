"""A procedure read from a flowchart (Graphviz DOT, Mermaid) with no model: each node a step, each edge an order.

A node is a call of the domain's tool its `tool` attribute names (DOT: `A [label="Look the line up",
tool=get_details_by_id]`), or whose label names one word for word; else a question (a diamond) or something
to tell. `required=true` marks a step the procedure demands (see `checks.procedure_steps`). The steps and orders
are made a canonical graph as a model's reading is (`describe.procedure_reading`): a cycle broken, an implied order
dropped, the steps numbered by what they are.
"""

from __future__ import annotations

import re
from typing import Any

from intellagent.artifacts import SopGraph
from intellagent.describe.procedure_reading import canonical_procedure
from intellagent.describe.vocabulary import Vocabulary
from intellagent.describe.workflows import Flowchart

REQUIRED = ("true", "yes", "1")


def chart_procedure(chart: Flowchart, vocabulary: Vocabulary, *, flow: str) -> tuple[SopGraph | None, list[str]]:
    """The procedure a flowchart draws (None: it has no node), with a note for each change made to it and for each
    node that names a tool the domain lacks."""
    numbers = {node: number for number, node in enumerate(chart.nodes, start=1)}
    unknown = [f"{flow}: node {node} calls {tool}, which is not a tool of the domain" for node in chart.nodes
               if (tool := chart.attributes.get(node, {}).get("tool")) and tool not in vocabulary.tools]
    answer: dict[str, Any] = {
        "steps": [_step(node, text, chart, vocabulary) for node, text in chart.nodes.items()],
        "edges": [{"before": numbers[start], "after": numbers[end], "condition": label}
                  for start, end, label in chart.links],
    }
    procedure, notes = canonical_procedure(answer, vocabulary, flow=flow, policies=set())
    return procedure, [*unknown, *notes]


def _step(node: str, text: str, chart: Flowchart, vocabulary: Vocabulary) -> dict[str, Any]:
    attributes = chart.attributes.get(node, {})
    tool = attributes.get("tool") or next(
        (name for name in vocabulary.tools if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)), None)
    if tool not in vocabulary.tools:
        tool = None
    kind = "call" if tool else "ask" if node in chart.questions else "tell"
    return {"kind": kind, "tool": tool, "text": text, "policies": [],
            "required": attributes.get("required", "").lower() in REQUIRED}
