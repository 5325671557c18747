"""Two runs compared: policies by the gate's test, and on one test set each dialog whose verdict flipped, with
both transcripts; two runs that cannot be compared dialog by dialog say why."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.reports.sections.baseline_comparison import compare
from intellagent.view.comparison import compare_runs
from intellagent.view.runs import Catalogue
from intellagent.view.server import Viewer
from tests.view.pages import element, get, page_text
from tests.view.run_shelf import ASKED


@pytest.fixture(scope="module")
def viewer(shelf: Path) -> Viewer:
    return Viewer(root=shelf, alpha=0.05, base="http://127.0.0.1:8765")


def test_the_dialog_whose_verdict_flipped_is_listed_as_fixed(catalogue: Catalogue) -> None:
    comparison = compare_runs(catalogue.run("build-1"), catalogue.run("build-2"), alpha=0.05)
    assert comparison.mismatch is None
    assert [(c.id, c.before, c.after) for c in comparison.fixed] == [("S002", "fail", "pass")]
    assert comparison.new_failures == [] and comparison.other == []


def test_the_other_way_round_it_is_a_new_failure(catalogue: Catalogue) -> None:
    comparison = compare_runs(catalogue.run("build-2"), catalogue.run("build-1"), alpha=0.05)
    assert [(c.id, c.before, c.after) for c in comparison.new_failures] == [("S002", "pass", "fail")]
    assert comparison.fixed == []


def test_the_page_sets_both_transcripts_of_the_flipped_dialog_side_by_side(viewer: Viewer) -> None:
    status, html = get(viewer, "/compare?a=build-1&b=build-2")
    flip = element(html, "flip-S002")
    before, after = flip.split('class="side after"')
    assert status == 200
    assert "build-1: fail" in page_text(before) and "Done, I changed it." in page_text(before)
    assert "build-2: pass" in page_text(after) and ASKED in page_text(after)
    assert '<details class="dialog" open' in before and '<details class="dialog" open' in after
    assert "Fixed failures (1)" in page_text(element(html, "fixed"))
    assert "New failures (0)" in page_text(element(html, "new-failures"))


def test_the_page_names_the_pair_in_a_link(viewer: Viewer) -> None:
    _, html = get(viewer, "/compare?a=build-1&b=build-2")
    assert page_text(element(html, "pair-link")) == "http://127.0.0.1:8765/compare?a=build-1&b=build-2"


def test_policies_move_by_the_gates_own_test(catalogue: Catalogue) -> None:
    before, after = catalogue.run("build-1"), catalogue.run("build-2")
    moves = compare_runs(before, after, alpha=0.05).policies
    gate = compare(after.figures.report, before.figures.report, folder=before.folder.root, alpha=0.05)
    assert [m.change for m in moves.moves] == gate.policies
    assert [m.direction for m in moves.moves] == ["same"] * len(gate.policies)


def test_runs_of_two_test_sets_are_compared_policy_by_policy_and_say_why_not_dialog_by_dialog(viewer: Viewer) -> None:
    status, html = get(viewer, "/compare?a=build-1&b=build-3")
    assert status == 200
    assert "they were played on different test sets" in page_text(element(html, "mismatch"))
    assert 'id="policies"' in html and 'id="fixed"' not in html and 'id="new-failures"' not in html


def test_a_run_without_a_report_is_not_compared_and_the_page_says_why(viewer: Viewer) -> None:
    status, html = get(viewer, "/compare?a=half&b=build-2")
    assert status == 422
    assert page_text(element(html, "why")).startswith("half cannot be compared: no report: simulate was running")


def test_a_half_written_report_is_not_compared_and_the_page_says_why(viewer: Viewer) -> None:
    status, html = get(viewer, "/compare?a=build-1&b=torn")
    assert status == 422 and "report.json cannot be read" in page_text(element(html, "why"))


def test_a_run_name_that_is_not_there_is_named_back(viewer: Viewer) -> None:
    status, html = get(viewer, "/compare?a=build-1&b=build-9")
    assert status == 404 and "no run named 'build-9'" in page_text(element(html, "why"))
