"""The viewer over the airline's runs on the careless double: a frozen test set made once, two builds played on it,
each answering arbitrarily. Whatever they answered, both runs are shown with their reports' figures, and the
comparison lists exactly the dialogs whose status differs between the two reports."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from intellagent.api import arun
from intellagent.config import apply_overrides, load_config
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.view.comparison import compare_runs
from intellagent.view.runs import find_runs
from intellagent.view.server import Viewer
from tests.conftest import ROOT
from tests.view.pages import element, get


def careless(seed: int) -> ScriptedLLM:
    return ScriptedLLM().on(reply=careless_answers(seed=seed))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """results/build-1 and results/build-2, of one frozen airline test set kept beside them."""
    base = tmp_path_factory.mktemp("airline")
    config = apply_overrides(load_config(ROOT / "configs/airline.yml"), llm="scripted", chatbot_llm="scripted",
                             workers=1)
    config = config.model_copy(update={"budget": config.budget.model_copy(update={"max_error_rate": 1.0})})
    asyncio.run(arun(config, stages=("describe", "populate"), output=base / "frozen", script=careless(7)))
    for build, seed in ((1, 7), (2, 8)):
        asyncio.run(arun(config, stages=("simulate", "report"), scenarios_from=base / "frozen",
                         output=base / "results" / f"build-{build}", script=careless(seed), label=f"build {build}"))
    return base / "results"


def statuses(folder: Path) -> dict[str, str]:
    return {d["id"]: d["status"] for d in json.loads((folder / "report.json").read_text())["dialogs"]}


def test_both_builds_are_shown_as_runs_of_one_test_set(runs: Path) -> None:
    catalogue = find_runs(runs)
    assert [(run.name, run.source, run.problem) for run in catalogue.runs] == [
        ("build-1", "build 1", None), ("build-2", "build 2", None)]
    assert catalogue.runs[0].test_set == catalogue.runs[1].test_set is not None


def test_the_comparison_lists_every_dialog_whose_status_differs_in_the_reports(runs: Path) -> None:
    before, after = statuses(runs / "build-1"), statuses(runs / "build-2")
    catalogue = find_runs(runs)
    comparison = compare_runs(catalogue.run("build-1"), catalogue.run("build-2"), alpha=0.05)
    assert {c.id: (c.before, c.after) for c in comparison.changes} == {
        i: (before.get(i), after.get(i)) for i in before.keys() | after.keys() if before.get(i) != after.get(i)}


def test_every_page_over_the_builds_opens_and_each_flip_shows_both_transcripts(runs: Path) -> None:
    viewer = Viewer(root=runs, alpha=0.05, base="")
    status, html = get(viewer, "/compare?a=build-1&b=build-2")
    assert status == 200
    comparison = compare_runs(*find_runs(runs).runs, alpha=0.05)
    for flipped in comparison.new_failures + comparison.fixed:  # each with its two transcripts
        assert element(html, f"flip-{flipped.id}").count('<ol class="transcript">') == 2
    assert get(viewer, "/")[0] == 200
    policies = find_runs(runs).runs[-1].figures.policies
    assert all(get(viewer, f"/policy?suite=airline&id={pid}")[0] == 200 for pid in policies)
