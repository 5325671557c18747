"""A policy's history over the runs of its suite: each run's rates, and the runs where it moved significantly by the
gate's own test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from intellagent.artifacts.rates import Rate
from intellagent.run_folder import RunFolder
from intellagent.view.history import policy_history
from intellagent.view.runs import Catalogue, find_runs
from intellagent.view.server import Viewer
from tests.view.pages import element, get, page_text


def with_counts(source: Path, target: Path, started: str, policy: str, passed: int, tested: int) -> None:
    """A copy of a run whose report says `policy` held in `passed` of `tested` dialogs."""
    shutil.copytree(source, target)
    folder = RunFolder(target)
    report = folder.report.require()
    policies = [p.model_copy(update={"passed": passed, "tested": tested, "violated": tested - passed,
                                     "pass_rate": Rate.of(passed, tested)}) if p.id == policy else p
                for p in report.policies]
    folder.report.save(report.model_copy(update={"policies": policies}))
    folder.run_info.save(folder.run_info.require().model_copy(update={"started_at": started}))


@pytest.fixture(scope="module")
def swings(shelf: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three runs of the shop whose P01 held 10 of 10 times, then 1 of 10, then 10 of 10 again."""
    root = tmp_path_factory.mktemp("swings")
    for day, passed in enumerate((10, 1, 10), start=1):
        with_counts(shelf / "build-1", root / f"day-{day}", f"2025-04-0{day}T09:00:00+00:00", "P01", passed, 10)
    return root


def test_the_history_holds_each_runs_pass_rate_and_outcome_rate(catalogue: Catalogue) -> None:
    history = policy_history(catalogue, "shop", "P03", alpha=0.05)
    assert [(p.run.name, p.result.pass_rate.passed, p.result.pass_rate.total) for p in history.points] == [
        ("build-1", 0, 2), ("build-2", 1, 2)]
    assert [p.outcome.total for p in history.points] == [0, 0]  # the shop's events carry no outcome
    assert history.changed == []  # one pass more in two dialogs is no significant move


def test_a_significant_fall_and_rise_are_marked_on_their_runs(swings: Path) -> None:
    history = policy_history(find_runs(swings), "shop", "P01", alpha=0.05)
    assert [(p.run.name, p.move.direction) for p in history.changed] == [("day-2", "worse"), ("day-3", "better")]
    assert history.points[1].move.change.significantly_worse


def test_the_history_page_draws_the_rates_and_names_the_runs_that_moved(swings: Path) -> None:
    status, html = get(Viewer(root=swings, alpha=0.05, base=""), "/policy?suite=shop&id=P01")
    assert status == 200
    assert page_text(element(html, "changed")) == "Changed significantly in: day-2, day-3."
    assert html.count('<circle class="s1"') == 3
    table = page_text(element(html, "history-table"))
    assert "significantly worse (p = " in table and "significantly better (p = " in table


def test_a_stricter_level_moves_fewer_runs(swings: Path) -> None:
    history = policy_history(find_runs(swings), "shop", "P01", alpha=1e-9)
    assert history.changed == []


def test_a_rule_of_another_text_under_the_same_id_is_kept_out_of_the_history(swings: Path, tmp_path: Path) -> None:
    shutil.copytree(swings, tmp_path / "runs")
    folder = RunFolder(tmp_path / "runs" / "day-1")
    report = folder.report.require()
    policies = [p.model_copy(update={"text": "Another rule."}) if p.id == "P01" else p for p in report.policies]
    folder.report.save(report.model_copy(update={"policies": policies}))

    history = policy_history(find_runs(tmp_path / "runs"), "shop", "P01", alpha=0.05)
    assert [p.run.name for p in history.points] == ["day-2", "day-3"]
    assert [run.name for run in history.others] == ["day-1"]


def test_a_policy_no_run_holds_is_answered_with_why(shelf: Path) -> None:
    status, html = get(Viewer(root=shelf, alpha=0.05, base=""), "/policy?suite=shop&id=P99")
    assert status == 404 and "no run of suite 'shop' holds a policy 'P99'" in page_text(element(html, "why"))
