"""A procedure told in prose, drawn as a Mermaid or Graphviz flowchart (its own file or a fenced block) or written
as pseudo-code: a flowchart is parsed with no model and shown step by step, so that a reader following what it is
shown takes the prose's procedure from it; pseudo-code is shown as written."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import SopGraph
from intellagent.config import Config
from intellagent.describe.workflows import chart_steps, flowcharts, parse_flowchart, reading
from intellagent.llm import Request, ScriptedLLM
from tests.describe.conftest import catalog_of, configure, run_describe, script_document

POLICIES = Path(__file__).resolve().parents[2] / "policies"
CHART = POLICIES / "airline_change_flight.mmd"
DOT = POLICIES / "airline_change_flight.dot"
PSEUDO = POLICIES / "airline_change_flight.pseudo"
PROSE = POLICIES / "airline.md"

KEPT = "the reservation is not basic economy and keeps its origin, destination and trip type"
YES = "the user says yes"
# The change-flight procedure as a careful reader lists it from the prose.
PROSE_READING = {
    "steps": [{"kind": "ask", "text": "the user id"}, {"kind": "ask", "text": "the reservation id"},
              {"kind": "call", "tool": "get_reservation_details"},
              {"kind": "ask", "text": "the gift card or credit card that pays"},
              {"kind": "confirm", "text": "the change and its price"},
              {"kind": "call", "tool": "update_reservation_flights"}],
    "edges": [{"before": 1, "after": 2}, {"before": 2, "after": 3}, {"before": 3, "after": 4, "condition": KEPT},
              {"before": 4, "after": 5}, {"before": 5, "after": 6, "condition": YES}],
}
_SHOWN = re.compile(r"^- (\w+)( \(a question\))?: (.*?)(?: → (.*)| \(the end\))$", re.MULTILINE)
_CALLED = re.compile(r" with (\w+)$")


@dataclass
class ShownNode:
    """A node of a flowchart as the prompt shows it: whether it asks a question, its text, where it leads and on
    which answer ('' where it leads on no answer)."""

    question: bool
    text: str
    leads: list[tuple[str, str]]


def shown_nodes(request: Request) -> dict[str, ShownNode]:
    """The flowchart's nodes, by id, as the prompt's step-by-step reading of it shows them."""
    shown = request.text.split("read step by step", 1)[1]
    nodes = {}
    for node, question, text, leads in _SHOWN.findall(shown):
        answered = [lead.rpartition(": ") for lead in leads.split("; ") if lead]
        nodes[node] = ShownNode(bool(question), text, [(label.removeprefix("if ").strip("'"), to)
                                                      for label, _, to in answered])
    return nodes


def step_of(text: str) -> dict[str, Any] | None:
    """What a node does as a step: get the user's yes, call the tool it names, or ask (a decline, or an end that
    changes nothing, is no step)."""
    if "explicit yes" in text:
        return {"kind": "confirm", "text": text}
    if called := _CALLED.search(text):
        return {"kind": "call", "tool": called.group(1)}
    return {"kind": "ask", "text": text} if text.startswith("Ask") else None


def chart_reader(request: Request) -> dict[str, Any]:
    """A reader that takes the procedure from the flowchart as the prompt shows it, and from nothing else: a step
    per node that is one, and an order per way from a step to the next through the questions, on the answers taken
    on the way."""
    nodes = shown_nodes(request)
    steps = {node: step for node, shown in nodes.items() if not shown.question and (step := step_of(shown.text))}
    number = {node: place for place, node in enumerate(steps, start=1)}

    def ways(node: str, taken: list[str]) -> Iterator[tuple[str, list[str]]]:
        for label, to in nodes[node].leads:
            answers = [*taken, f"{nodes[node].text} {label}"] if label else taken
            if nodes[to].question:
                yield from ways(to, answers)
            elif to in steps:
                yield to, answers

    edges = [{"before": number[node], "after": number[to], "condition": "; ".join(answers)}
             for node in steps for to, answers in ways(node, [])]
    return {"steps": list(steps.values()), "edges": edges}


def shape(procedure: SopGraph | None) -> tuple[list[tuple[str, str | None]], list[tuple[str, str, bool]]]:
    """A procedure's steps by kind and tool, and its orders with whether each holds only on a condition: what two
    readings of one procedure in other words share."""
    assert procedure is not None
    return ([(step.kind, step.tool) for step in procedure.steps],
            [(edge.before, edge.after, bool(edge.condition)) for edge in procedure.edges])


def test_the_flowchart_file_is_parsed_into_its_steps_questions_and_labelled_transitions() -> None:
    (chart,) = flowcharts(CHART.read_text())
    assert list(chart.nodes) == ["A", "B", "C", "D", "X", "E", "Y", "F", "G", "H", "Z"]
    assert chart.questions == {"D", "E"}
    assert chart.nodes["C"] == "Look the reservation up with get_reservation_details"
    assert ("D", "X", "yes") in chart.links and ("G", "H", "the user says yes") in chart.links
    assert ("A", "B", "") in chart.links and len(chart.links) == 10


def test_a_fenced_flowchart_in_markdown_is_read_like_the_file() -> None:
    fenced = f"# Changing flights\n\nFollow this chart.\n\n```mermaid\n{CHART.read_text()}```\n\nBe polite.\n"
    (chart,) = flowcharts(fenced)
    assert chart_steps(chart) == chart_steps(parse_flowchart(CHART.read_text()))
    assert reading(fenced).startswith(fenced.rstrip()) and "Be polite." in reading(fenced)


def test_the_reading_shows_each_step_with_where_it_leads() -> None:
    shown = reading(CHART.read_text())
    assert "- D (a question): Is the reservation basic economy? → if 'yes': X; if 'no': E" in shown
    assert "- H: Change the flights with update_reservation_flights (the end)" in shown


def test_chains_groups_and_labels_written_between_dashes_are_parsed() -> None:
    chart = parse_flowchart('graph LR\n  A["Ask"] --> B(Look up) --> C\n  A & B -- "if refused" --> D{{Stop?}}\n'
                            "  %% a comment\n  style A fill:#fff\n")
    assert chart.nodes == {"A": "Ask", "B": "Look up", "C": "C", "D": "Stop?"}
    assert chart.links == [("A", "B", ""), ("B", "C", ""), ("A", "D", "if refused"), ("B", "D", "if refused")]
    assert chart.questions == {"D"}


def test_a_document_with_no_flowchart_is_shown_as_given() -> None:
    prose = PROSE.read_text()
    assert flowcharts(prose) == [] and reading(prose) == prose


def with_policy(config: Config, document: Path) -> Config:
    """`config` for one sample, with `document` as its policy."""
    config = configure(config, samples=1)
    return config.model_copy(update={"environment": config.environment.model_copy(update={"policy": document})})


def procedure_from(document: Path, scripted_config, folder: Path,
                   reader: Callable[[Request], Any] | dict = PROSE_READING) -> tuple[SopGraph | None, str]:
    """The change-flight flow's procedure describe reads from `document` (the reader answering), and the prompt it
    was read from."""
    script = script_document(ScriptedLLM(), flows={"Changing flights": [
        {"text": "The flights of a basic economy reservation cannot be changed.", "category": "company_policy",
         "challenge": 2}]}, procedure=reader)
    run_describe(with_policy(scripted_config, document), folder, script)
    (asked,) = script.calls(schema="SopAnswer")
    return catalog_of(folder).flows[0].sop, asked.text


@pytest.mark.parametrize("document", [CHART, DOT], ids=["mermaid", "dot"])
def test_a_flowchart_read_as_shown_gives_the_procedure_of_the_prose(document, scripted_config, tmp_path) -> None:
    prose, _ = procedure_from(PROSE, scripted_config, tmp_path / "prose")
    chart, _ = procedure_from(document, scripted_config, tmp_path / "chart", reader=chart_reader)

    assert shape(chart) == shape(prose) == (
        [("ask", None), ("ask", None), ("call", "get_reservation_details"), ("ask", None), ("confirm", None),
         ("call", "update_reservation_flights")],
        [("S1", "S2", False), ("S2", "S3", False), ("S3", "S4", True), ("S4", "S5", False), ("S5", "S6", True)])


def test_the_procedure_is_read_from_the_flowchart_step_by_step(scripted_config, tmp_path) -> None:
    _, asked = procedure_from(CHART, scripted_config, tmp_path / "run")
    assert "read step by step" in asked and "- G: Set out exactly what will change" in asked


def test_pseudo_code_is_shown_to_the_reader_as_written(scripted_config, tmp_path) -> None:
    _, asked = procedure_from(PSEUDO, scripted_config, tmp_path / "run")
    assert PSEUDO.read_text().strip() in asked and "read step by step" not in asked


def test_the_aimed_reading_of_uncovered_passages_shows_the_flowchart_step_by_step(scripted_config, tmp_path) -> None:
    document = tmp_path / "desk.md"
    document.write_text("# Desk\n\n- Never share what a parcel holds with anyone but its customer.\n\n"
                        "```mermaid\nflowchart TD\n  A[Ask for the tracking number] --> B[Track the parcel]\n```\n")
    script = script_document(ScriptedLLM(), flows={"Tracking": [
        {"text": "Greet the customer warmly.", "category": "company_policy", "challenge": 1}]})
    run_describe(with_policy(scripted_config, document), tmp_path / "run", script)
    (asked,) = script.calls(schema="CoveringRules")
    assert "- A: Ask for the tracking number → B" in asked.text and "Never share what a parcel holds" in asked.text
