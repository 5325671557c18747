"""The outcomes' floor in the report, on the run of `outcome_run` (ids of digits only, items as JSON) with each
outcome's floor set by hand:

    S001 S003 S004 S005 S008  a change the user is entitled to, forbidding nothing  nothing F  reckless T
    S002                      a change, and a cancellation forbidden                nothing F  reckless F
    S006                      a refusal: the cancellation forbidden                 nothing T  reckless F

The outcome figures count S001, S002, S003, S005 and S006 (S004 was cut short, S008 failed to run): the outcome pass
rate is 2 of 5 (S001, S006), and a chatbot that does nothing would pass 1 of them (S006)."""

from __future__ import annotations

from pathlib import Path

import outcome_run
import pytest
from shop_run import report_run, write_config

from intellagent.artifacts import OutcomeFloor
from intellagent.config import load_config
from intellagent.llm import ScriptedLLM
from intellagent.reports.sections import FLOOR, OUTCOMES
from intellagent.run_folder import RunFolder

FLOORS = {"S002": OutcomeFloor(nothing=False, reckless=False), "S006": OutcomeFloor(nothing=True, reckless=False)}


def floored(folder: RunFolder) -> RunFolder:
    """The run's events with their outcomes' floors."""
    events = [event.model_copy(update={"expected": event.expected.model_copy(update={
        "floor": FLOORS.get(event.id, OutcomeFloor(nothing=False, reckless=True))})}) if event.expected else event
        for event in folder.events.load()]
    folder.events.replace(events)
    return folder


@pytest.fixture
def run(tmp_path: Path):
    config = load_config(write_config(tmp_path))
    return config, floored(outcome_run.make_run(config, tmp_path / "run"))


def report(run, **settings):
    config, folder = run
    result = report_run(config, folder, ScriptedLLM().on(role="analysis", reply=outcome_run.answer_for), **settings)
    return result, folder


def test_the_floor_counts_what_doing_nothing_and_doing_everything_would_pass(run) -> None:
    result, _ = report(run)

    floors = FLOOR.of(result.report)
    assert floors is not None and (floors.outcomes, floors.deliveries) == (7, 6)
    assert (floors.nothing.count, floors.nothing.total) == (1, 7) and floors.non_discriminating == ["S006"]
    assert floors.forbidding == 2 and (floors.reckless.count, floors.reckless.total) == (0, 2)
    assert (floors.graded_floor.passed, floors.graded_floor.total) == (1, 5)
    outcomes = OUTCOMES.of(result.report)
    assert outcomes is not None and (outcomes.pass_rate.passed, outcomes.pass_rate.total) == (2, 5)


def test_the_summary_sets_the_floor_beside_the_outcome_pass_rate(run) -> None:
    _, folder = report(run)

    summary = (folder.root / "report.json").read_text()
    assert '"non_discriminating": [' in summary
    html = (folder.root / "report.html").read_text()
    assert "a chatbot that does nothing would pass 1 of 7 outcomes (14%), 20% of the graded dialogs against the " \
           "outcome pass rate&#x27;s 40%; 6 of 7 outcomes expect a change, 1 a refusal" in html


@pytest.mark.parametrize(("margin", "fails"), [(0.1, False), (0.3, True)])
def test_the_gate_holds_the_outcome_pass_rate_a_margin_above_its_floor(run, margin: float, fails: bool) -> None:
    result, _ = report(run, min_outcome_over_floor=margin)

    failures = [line for line in result.report.gate.failures if "report.min_outcome_over_floor" in line]
    assert bool(failures) is fails
    if fails:
        assert "stands +20.0% above what a chatbot that does nothing would score" in failures[0]


def test_a_run_whose_outcomes_have_no_floor_states_none_rather_than_a_zero(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path))
    folder = outcome_run.make_run(config, tmp_path / "run")
    result = report_run(config, folder, ScriptedLLM().on(role="analysis", reply=outcome_run.answer_for),
                        min_outcome_over_floor=0.2)

    assert FLOOR.of(result.report) is None
    assert any("no dialog was graded against an outcome whose floor was measured" in line
               for line in result.report.gate.failures)
