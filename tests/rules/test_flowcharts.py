"""Procedures drawn as Graphviz DOT: τ²-bench's three troubleshooting flowcharts read with no model, shown to
describe's prompts step by step, and made procedures; a rules file's procedure given as a DOT file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from intellagent.describe.vocabulary import Vocabulary
from intellagent.describe.workflows import flowcharts, reading
from intellagent.environment import Environment
from intellagent.rules.chart_procedures import chart_procedure
from intellagent.rules.review import reviewed
from intellagent.rules.rules_file import read_rules
from tests.conftest import SHARED_DATA
from tests.rules import POLICY
from tests.rules.kinds import findings

WORKFLOWS = SHARED_DATA / "tau2_telecom" / "workflows"
CHARTS = sorted(WORKFLOWS.glob("*.dot"))


@pytest.mark.parametrize("path", CHARTS, ids=lambda path: path.stem)
def test_every_edge_and_question_of_a_tau2_flowchart_is_read(path: Path) -> None:
    text = path.read_text(encoding="utf-8")

    (chart,) = flowcharts(text)

    assert len(chart.links) == text.count("->")
    assert len(chart.questions) == len(re.findall(r"shape=diamond", text))
    assert all(start in chart.nodes and end in chart.nodes for start, end, _ in chart.links)


def test_a_flowchart_reads_its_labels_and_the_answers_on_its_edges() -> None:
    (chart,) = flowcharts((WORKFLOWS / "tech_support_path3_mms.dot").read_text(encoding="utf-8"))

    assert chart.nodes["P3_S0_Decision_MMSWorks"] == "Can send MMS?"
    assert ("P3_S0_Decision_MMSWorks", "End_Resolve", "Yes (Not an MMS issue)") in chart.links


def test_describe_shows_a_dot_document_step_by_step_after_the_document() -> None:
    text = (WORKFLOWS / "tech_support_path3_mms.dot").read_text(encoding="utf-8")

    shown = reading(text)

    assert shown.startswith(text.rstrip())
    assert "- P3_S0_Decision_MMSWorks (a question): Can send MMS? → if 'Yes (Not an MMS issue)': End_Resolve" in shown


@pytest.mark.parametrize("path", CHARTS, ids=lambda path: path.stem)
def test_a_tau2_flowchart_is_made_an_acyclic_procedure_whose_questions_are_asked(path: Path,
                                                                                returns: Environment) -> None:
    (chart,) = flowcharts(path.read_text(encoding="utf-8"))

    procedure, _ = chart_procedure(chart, Vocabulary.of(returns), flow=path.stem)

    assert procedure is not None and len(procedure.steps) == len(chart.nodes)
    assert sum(step.kind == "ask" for step in procedure.steps) == len(chart.questions)


def test_a_rules_files_procedure_drawn_in_dot_marks_its_required_step(tmp_path: Path, returns: Environment) -> None:
    (tmp_path / "cancel.dot").write_text("""digraph cancel {
        look [label="Look the order up", tool=get_order, required=true];
        ok [label="Does the customer agree?", shape=diamond];
        cancel [label="Cancel it with cancel_order"];
        look -> ok; ok -> cancel [label="yes"];
    }""", encoding="utf-8")
    words = next(line for line in POLICY.read_text().splitlines() if line.startswith("- A pending order"))
    (tmp_path / "rules.yml").write_text(f"""rules:
- id: cancel-procedure
  kind: procedure
  cite: {{passage: L16, words: "{words[2:40]}"}}
  flow: cancellation
  dot: cancel.dot
  examples:
    keeps: [{{dialog: [{{call: get_order, args: {{order_id: W1}}}}, {{call: cancel_order, args: {{order_id: W1}}}}]}}]
    breaks: [{{dialog: [{{call: cancel_order, args: {{order_id: W1}}}}]}}]
""", encoding="utf-8")

    found = reviewed(read_rules(tmp_path / "rules.yml"), returns, folder=tmp_path)

    (procedure,) = found.held
    assert [(step.tool, step.required) for step in procedure.steps if step.tool] == [("get_order", True),
                                                                                       ("cancel_order", False)]
    assert findings(procedure, returns, "[{call: cancel_order, args: {order_id: '#W1'}}]")[0].message == (
        "cancellation: call cancel_order came with no call get_order before it, which the procedure requires")
