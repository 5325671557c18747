"""The pytest plugin, run by pytest itself: a policy-adherence test in a few lines, and why it fails."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import intellagent
from examples.qa_gate.chatbot import careful
from tests.pipeline.pytest_runs import report_folder, run_pytest, scripted_project
from tests.pipeline.scripted_pipeline import CONFIRM, pipeline_script, write_config

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(pytester: pytest.Pytester, whole_run: object) -> pytest.Pytester:
    """A project with the scripted shop's config (shop.yml) and conftest, once a whole run was made here."""
    return scripted_project(pytester, "shop.yml")


def adherence_test(check: str) -> str:
    """A test module whose one test checks the `hasty` build with `check`'s keyword arguments."""
    return f"""
from examples.qa_gate.chatbot import hasty


def test_shop_policies(intellagent):
    intellagent.check("shop.yml", chatbot=hasty, {check})
"""


def test_a_passing_check_passes_and_leaves_its_reports(project: pytest.Pytester) -> None:
    project.makepyfile(test_shop="""
from examples.qa_gate.chatbot import careful


def test_shop_policies(intellagent):
    report = intellagent.check("shop.yml", chatbot=careful, fail_under=1.0, min_category={"user_consent": 1.0})
    assert report.gate.passed and report.overall.pass_rate.rate == 1.0
""")
    result = run_pytest(project)

    result.assert_outcomes(passed=1)
    folder = report_folder(project, "test_shop_policies")
    assert json.loads((folder / "report.json").read_text())["gate"]["passed"] is True


@pytest.mark.parametrize(
    ("check", "reason"),
    [
        ("fail_under=0.8", "pass rate 50.0% (1/2 dialogs) is below --fail-under 0.8"),
        ('min_policy={"P01": 1.0}', f"P01 ({CONFIRM[:60]}) 0.0% (0/1 dialogs) is below report.min_policy 1"),
        ('min_category={"user_consent": 1.0}', "category user_consent 0.0% (0/1 tests) is below report.min_category 1"),
    ],
    ids=["fail_under", "min_policy", "min_category"],
)
def test_a_threshold_failure_names_the_reason_the_policy_the_dialog_and_the_reports(
    project: pytest.Pytester, check: str, reason: str
) -> None:
    project.makepyfile(test_shop=adherence_test(check))
    result = run_pytest(project)

    result.assert_outcomes(failed=1)
    folder = report_folder(project, "test_shop_policies")
    result.stdout.fnmatch_lines([
        "*policy adherence gate failed for shop:",
        f"*  - {reason}",
        "*violated policies:",
        f"*  P01 (1 of 1 dialogs): {CONFIRM}",
        '*    dialog S002, turn 2: Cancelled without asking: "Done: it is cancelled."',
        f"*reports: {folder / 'report.html'}  {folder / 'report.json'}  {folder / 'junit.xml'}",
    ])
    assert "Traceback" not in result.stdout.str()


def test_a_minimum_outcome_reaches_the_gate_of_a_check(project: pytest.Pytester) -> None:
    project.makepyfile(test_shop=adherence_test("min_outcome=0.9"))
    result = run_pytest(project)

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*policy adherence gate failed for shop:", "*  - *--min-outcome 0.9*"])
    report = json.loads((report_folder(project, "test_shop_policies") / "report.json").read_text())
    assert report["gate"]["min_outcome"] == 0.9


def test_a_policy_worse_than_in_the_baseline_fails_the_check(project: pytest.Pytester) -> None:
    # Two dialogs cannot reach the default 5% level of the test behind "significantly worse".
    write_config(project.path / "shop.yml", report={"significance": 0.5})
    intellagent.evaluate(project.path / "shop.yml", chatbot=careful, output=project.path / "baseline",
                         script=pipeline_script())
    project.makepyfile(test_shop=adherence_test('baseline="baseline"'))
    result = run_pytest(project)

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*  - P01 got significantly worse than the baseline: passed 1/1 before, 0/1 now*",
        f"*  P01 (1 of 1 dialogs): {CONFIRM}",
        "*    dialog S002, turn 2: *",
    ])


def test_replay_option_answers_every_call_from_the_recorded_ones(project: pytest.Pytester, frozen: Path) -> None:
    shutil.copytree(frozen, project.path / "frozen")
    project.makepyfile(test_shop=adherence_test('scenarios_from="frozen", min_policy={"P02": 1.0}'))
    run_pytest(project).assert_outcomes(passed=1)  # records the calls in the frozen set's cache
    project.makeconftest("")  # no scripted LLM now: a call that is not recorded could not be answered

    run_pytest(project, "--intellagent-replay").assert_outcomes(passed=1)

    report = json.loads((report_folder(project, "test_shop_policies") / "report.json").read_text())
    assert report["overall"]["usage"]["calls"] == 0 and report["overall"]["usage"]["cached"] > 0


def test_a_whole_run_is_replayed_from_the_calls_its_last_run_recorded(project: pytest.Pytester) -> None:
    project.makepyfile(test_shop=adherence_test('min_policy={"P02": 1.0}'))
    run_pytest(project).assert_outcomes(passed=1)
    project.makeconftest("")

    run_pytest(project, "--intellagent-replay").assert_outcomes(passed=1)

    report = json.loads((report_folder(project, "test_shop_policies") / "report.json").read_text())
    assert report["overall"]["usage"]["calls"] == 0 and report["overall"]["usage"]["cached"] > 0


def test_a_replay_miss_fails_the_test_with_one_clear_line(project: pytest.Pytester, frozen: Path) -> None:
    shutil.copytree(frozen, project.path / "frozen")
    project.makepyfile(test_shop=adherence_test('scenarios_from="frozen"'))

    result = run_pytest(project, "--intellagent-replay")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*intellagent run aborted: --replay: no recorded answer for user at simulate/user*"])
    assert "Traceback" not in result.stdout.str()


def test_llm_options_reach_the_run_config(project: pytest.Pytester) -> None:
    # Models the test could not reach (no key): only the options make this run possible.
    unreachable = {"provider": "openai", "model": "gpt-4o-mini", "api_key_env": "INTELLAGENT_TEST_NO_SUCH_KEY"}
    write_config(project.path / "shop.yml", llm={"default": unreachable}, chatbot={"llm": unreachable})
    project.makepyfile(test_shop="""
def test_shop_policies(intellagent):
    intellagent.check("shop.yml", min_policy={"P02": 1.0})
""")
    result = run_pytest(project, "--intellagent-llm", "scripted", "--intellagent-chatbot-llm", "scripted")

    result.assert_outcomes(passed=1)
    info = json.loads((report_folder(project, "test_shop_policies") / "run.json").read_text())
    assert info["config"]["llm"]["default"]["provider"] == "scripted"
    assert info["config"]["chatbot"]["llm"]["provider"] == "scripted"


def test_the_package_registers_the_plugin_through_its_entry_points() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    target = project["project"]["entry-points"]["pytest11"]["intellagent"]
    plugin = importlib.import_module(target)
    assert {"pytest_addoption", "intellagent", "intellagent_script"} <= set(vars(plugin))


def test_loading_the_plugin_imports_nothing_heavy():
    """pytest loads the plugin in every project that has IntellAgent installed: it must cost next to nothing."""
    probe = ("import sys, intellagent.pytest_plugin; "
             "print(sorted(m for m in ('langchain_core', 'openai', 'networkx', 'sqlmodel', 'intellagent.llm', "
             "'intellagent.config', 'intellagent.reports') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
