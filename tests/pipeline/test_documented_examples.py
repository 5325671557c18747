"""The QA-gate examples of the documentation: shown as they are in examples/qa_gate/, and they run.

The examples name configs/airline.yml and are run from the project folder. Here each runs in a
folder of its own whose configs/airline.yml holds the scripted shop, with every model scripted.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from intellagent.llm import ScriptedLLM
from tests.pipeline.pytest_runs import report_folder, run_pytest, scripted_project
from tests.pipeline.scripted_pipeline import CONFIRM, write_config

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "qa_gate"
CONFIG = "configs/airline.yml"
SHOWN = {  # each example, and the page of docs/ that shows it
    "evaluate_build.py": "python-api.md",
    "stage_by_stage.py": "python-api.md",
    "frozen_set.py": "frozen-sets.md",
    "test_chatbot_policy.py": "pytest.md",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scripted_models: ScriptedLLM) -> Path:
    """A project folder to run the examples from, its config the scripted shop, its models scripted."""
    write_config(tmp_path / CONFIG)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_example(name: str) -> None:
    runpy.run_module(f"examples.qa_gate.{name}", run_name="__main__")


@pytest.mark.parametrize(("name", "page"), SHOWN.items())
def test_the_docs_show_the_example_as_it_is(name: str, page: str) -> None:
    block = f"```python\n{(EXAMPLES / name).read_text()}```\n"
    assert block in (ROOT / "docs" / page).read_text(), f"docs/{page} lacks examples/qa_gate/{name} as it is"


def test_the_api_example_gates_on_the_report(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_code:
        run_example("evaluate_build")

    assert exit_code.value.code == 0
    assert capsys.readouterr().out == "2 of 2 dialogs passed\n"
    assert (project / "results" / "qa-gate" / "report.html").is_file()


def test_the_stage_by_stage_example_runs_every_stage(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_example("stage_by_stage")

    assert capsys.readouterr().out.splitlines() == [
        f"P01 user_consent {CONFIRM}",
        "P02 data_privacy Never reveal an order to someone who is not its customer.",
        "2 events, 2 dialogs, 2 passed",
    ]


def test_the_frozen_set_example_catches_the_regression_and_replays_it(
    project: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    run_example("frozen_set")
    out = capsys.readouterr().out.splitlines()
    asked = len(scripted_models.requests)

    assert out[:3] == ["build 1: 2 of 2 dialogs passed", "build 2: 1 of 2 dialogs passed",
                       "violated in build 2, not in build 1: P01"]
    assert out[3].startswith("replayed: ") and out[3].endswith(" calls answered from the cache, 0 sent")
    run_example("frozen_set")  # again: the set is frozen, every build's run is there already
    assert len(scripted_models.requests) == asked


def test_the_pytest_example_passes_the_careful_build_and_fails_the_hasty_one(
    pytester: pytest.Pytester, whole_run: object
) -> None:
    project = scripted_project(pytester, CONFIG)
    project.makepyfile(test_chatbot_policy=(EXAMPLES / "test_chatbot_policy.py").read_text())

    result = run_pytest(project)

    result.assert_outcomes(passed=1, failed=1)
    folder = report_folder(project, "test_the_chatbot_keeps_its_policy_hasty_")
    result.stdout.fnmatch_lines([
        "*policy adherence gate failed for shop:",
        "*  - pass rate 50.0% (1/2 dialogs) is below --fail-under 0.8",
        "*  - category user_consent 0.0% (0/1 tests) is below report.min_category 1",
        f"*  P01 (1 of 1 dialogs): {CONFIRM}",
        '*    dialog S002, turn 2: Cancelled without asking: "Done: it is cancelled."',
        f"*reports: {folder / 'report.html'}  {folder / 'report.json'}  {folder / 'junit.xml'}",
        "FAILED test_chatbot_policy.py::test_the_chatbot_keeps_its_policy?hasty? - *",
    ])
