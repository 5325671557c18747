"""A procedure told in prose, drawn as a Mermaid or Graphviz flowchart (its own file or a fenced block) or written
as pseudo-code is read into the same flow procedure; a flowchart is parsed with no model and shown step by step."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.artifacts import SopGraph
from intellagent.config import Config
from intellagent.describe.workflows import chart_steps, flowcharts, parse_flowchart, reading
from intellagent.llm import ScriptedLLM
from tests.describe.conftest import catalog_of, configure, run_describe, script_document

POLICIES = Path(__file__).resolve().parents[2] / "policies"
CHART = POLICIES / "airline_change_flight.mmd"
DOT = POLICIES / "airline_change_flight.dot"
PSEUDO = POLICIES / "airline_change_flight.pseudo"
PROSE = POLICIES / "airline.md"

KEPT = "the reservation is not basic economy and keeps its origin, destination and trip type"
YES = "the user says yes"
# The change-flight procedure as a reader lists it from each format: the same steps and orders, in other orders,
# one answer giving an order the others imply.
STEPS = {"user": {"kind": "ask", "text": "the user id"}, "id": {"kind": "ask", "text": "the reservation id"},
         "look": {"kind": "call", "tool": "get_reservation_details"},
         "pay": {"kind": "ask", "text": "the gift card or credit card that pays"},
         "yes": {"kind": "confirm", "text": "the change and its price"},
         "change": {"kind": "call", "tool": "update_reservation_flights"}}
ORDERS = [("user", "id", ""), ("id", "look", ""), ("look", "pay", KEPT), ("pay", "yes", ""), ("yes", "change", YES)]


def answer(order: list[str], orders: list[tuple[str, str, str]]) -> dict:
    number = {name: place for place, name in enumerate(order, start=1)}
    return {"steps": [STEPS[name] for name in order],
            "edges": [{"before": number[a], "after": number[b], "condition": c} for a, b, c in orders]}


READERS = {
    PROSE: answer(list(STEPS), ORDERS),
    CHART: answer(["change", "yes", "pay", "look", "id", "user"], [*reversed(ORDERS), ("user", "look", "")]),
    DOT: answer(["yes", "change", "user", "pay", "id", "look"], [*ORDERS[::2], *ORDERS[1::2]]),
    PSEUDO: answer(["look", "user", "change", "id", "pay", "yes"], [*ORDERS, ("id", "look", "")]),
}


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


def procedure_from(document: Path, scripted_config, folder: Path) -> tuple[SopGraph | None, str]:
    """The change-flight flow's procedure describe reads from `document`, and the prompt it was read from."""
    script = script_document(ScriptedLLM(), flows={"Changing flights": [
        {"text": "The flights of a basic economy reservation cannot be changed.", "category": "company_policy",
         "challenge": 2}]}, procedure=READERS[document])
    run_describe(with_policy(scripted_config, document), folder, script)
    (asked,) = script.calls(schema="SopAnswer")
    return catalog_of(folder).flows[0].sop, asked.text


@pytest.mark.parametrize("document", [CHART, DOT, PSEUDO], ids=["mermaid", "dot", "pseudo-code"])
def test_a_flowchart_or_pseudo_code_gives_the_same_procedure_as_the_prose(document, scripted_config, tmp_path) -> None:
    prose, _ = procedure_from(PROSE, scripted_config, tmp_path / "prose")
    other, _ = procedure_from(document, scripted_config, tmp_path / "other")
    assert prose is not None and other == prose
    assert [step.label() for step in prose.steps] == [
        "ask: the user id", "ask: the reservation id", "call get_reservation_details",
        "ask: the gift card or credit card that pays", "confirm: the change and its price",
        "call update_reservation_flights"]
    assert [(e.before, e.after, e.condition) for e in prose.edges] == [
        ("S1", "S2", ""), ("S2", "S3", ""), ("S3", "S4", KEPT), ("S4", "S5", ""), ("S5", "S6", YES)]


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
