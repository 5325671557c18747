"""The index: every run under the folder with the figures of its own report, and what is not shown, with why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from intellagent.run_folder import RunFolder
from intellagent.view.runs import find_runs
from intellagent.view.server import Viewer
from tests.view.pages import element, get, page_text


@pytest.fixture(scope="module")
def index(shelf: Path) -> str:
    status, html = get(Viewer(root=shelf, alpha=0.05, base=""), "/")
    assert status == 200
    return html


def row(index: str, name: str) -> str:
    return page_text(element(index, f"run-{name}"))


def percent(value: float) -> str:
    return f"{value * 100:.0f}%"


@pytest.mark.parametrize("name", ["build-1", "build-2", "build-3"])
def test_each_run_shows_the_figures_of_its_report(index: str, shelf: Path, name: str) -> None:
    report = json.loads((shelf / name / "report.json").read_text())
    rate, coverage = report["overall"]["pass_rate"], report["coverage"]
    outcome = report["outcomes"]["pass_rate"]
    shown = row(index, name)

    interval = f"{percent(rate['low'])}–{percent(rate['high'])}"
    assert f"{percent(rate['rate'])} {rate['passed']}/{rate['total']} · {interval}" in shown
    if outcome["rate"] is None:
        assert "– 0 with a verdict" in shown
    else:
        assert f"{percent(outcome['rate'])} {outcome['passed']}/{outcome['total']}" in shown
    assert f"{coverage['tested']} of {coverage['total']}" in shown
    assert f"${report['overall']['usage']['cost_usd']:.4f}" in shown
    assert report["name"] in shown and "2025-03-0" in shown


def test_the_outcome_rate_of_a_graded_run_is_its_reports(index: str, shelf: Path) -> None:
    outcome = json.loads((shelf / "build-3" / "report.json").read_text())["outcomes"]["pass_rate"]
    assert outcome["total"] > 0
    assert f"{percent(outcome['rate'])} {outcome['passed']}/{outcome['total']}" in row(index, "build-3")


def test_a_run_shows_its_label_or_else_the_commit_it_was_started_from(index: str, shelf: Path) -> None:
    commit = RunFolder(shelf / "build-1").run_info.require().commit
    assert "build two" in row(index, "build-2")
    assert commit is None or commit in row(index, "build-1")


def test_each_run_opens_its_own_report(index: str) -> None:
    assert 'href="/runs/build-1/report.html"' in element(index, "run-build-1")


def test_the_runs_are_listed_newest_first(index: str) -> None:
    order = [index.index(f'id="run-{name}"') for name in ("half", "build-3", "build-2", "build-1", "torn")]
    assert order == sorted(order)


def test_a_run_is_offered_a_comparison_with_the_run_before_it_on_its_test_set(index: str) -> None:
    assert 'href="/compare?a=build-1&amp;b=build-2"' in element(index, "run-build-2")
    assert "/compare?" not in element(index, "run-build-3")  # the first of its own test set


def test_a_run_still_running_is_listed_with_where_it_stopped(index: str) -> None:
    assert "no report: simulate was running" in row(index, "half")


def test_a_half_written_report_is_listed_with_what_is_wrong_with_it(index: str) -> None:
    assert "report.json cannot be read (half-written" in row(index, "torn")


def test_a_folder_that_is_not_a_run_is_listed_apart_with_why(index: str) -> None:
    assert page_text(element(index, "strays")) == "Not runs notes : not a run folder: no run.json in it or below it"


def test_an_unreadable_run_json_is_a_reason_not_a_crash(shelf: Path, tmp_path: Path) -> None:
    shutil.copytree(shelf / "build-1", tmp_path / "broken")
    (tmp_path / "broken" / "run.json").write_text("{not json")
    (run,) = find_runs(tmp_path).runs
    assert run.figures is None and run.problem.startswith("run.json cannot be read: Invalid JSON")


def test_the_viewed_folder_may_be_a_run_folder_itself(shelf: Path) -> None:
    catalogue = find_runs(shelf / "build-1")
    assert [run.name for run in catalogue.runs] == ["."] and catalogue.runs[0].figures is not None
    status, html = get(Viewer(root=shelf / "build-1", alpha=0.05, base=""), "/")
    assert status == 200 and 'href="/runs/report.html"' in html


def test_the_outcome_floor_is_a_dash_where_the_report_does_not_state_it(index: str) -> None:
    assert 'class="num floor">—<' in element(index, "run-build-1")


def test_each_policy_of_a_suite_links_to_its_history(index: str) -> None:
    table = element(index, "suite-shop")
    assert 'href="/policy?suite=shop&amp;id=P03"' in table
    assert page_text(table).count("%") >= 8  # each of its policies' rate in each of its two runs
