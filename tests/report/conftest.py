"""Fixtures of the report tests: the shop run of `shop_run`, before and after its report stage, and the run of
`outcome_run`, whose dialogs are graded against expected outcomes."""

from __future__ import annotations

from pathlib import Path

import outcome_run
import pytest
from shop_run import answer_for, make_run, report_run, write_config

from intellagent.config import Config, load_config
from intellagent.llm import ScriptedLLM
from intellagent.run_folder import RunFolder
from intellagent.runner import RunResult


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    """A config file whose every role is the scripted LLM."""
    return write_config(tmp_path)


@pytest.fixture
def config(config_file: Path) -> Config:
    return load_config(config_file)


@pytest.fixture
def run_folder(config: Config, tmp_path: Path) -> RunFolder:
    """The fixture run, not yet reported."""
    return make_run(config, tmp_path / "run")


@pytest.fixture
def analysis_script(script: ScriptedLLM) -> ScriptedLLM:
    """The scripted analysis of the fixture's rated dialogs."""
    return script.on(role="analysis", schema="DialogAnalysis", reply=answer_for)


@pytest.fixture
def reported(config: Config, run_folder: RunFolder, analysis_script: ScriptedLLM) -> tuple[RunResult, RunFolder]:
    """The fixture run after its report stage: (result, folder), for tests that run it again or change it."""
    return report_run(config, run_folder, analysis_script), run_folder


@pytest.fixture(scope="module")
def shop_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, RunFolder]:
    """The fixture run after its report stage, shared by the tests of a module that only read it."""
    base = tmp_path_factory.mktemp("shop")
    config = load_config(write_config(base))
    folder = make_run(config, base / "run")
    return report_run(config, folder, ScriptedLLM().on(role="analysis", reply=answer_for)), folder



@pytest.fixture
def outcome_folder(config: Config, tmp_path: Path) -> RunFolder:
    """The run of `outcome_run`, not yet reported."""
    return outcome_run.make_run(config, tmp_path / "outcomes")


@pytest.fixture
def outcome_script() -> ScriptedLLM:
    """The scripted judge of `outcome_run`'s dialogs."""
    return ScriptedLLM().on(role="analysis", schema="DialogAnalysis", reply=outcome_run.answer_for)


@pytest.fixture(scope="module")
def outcome_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, RunFolder]:
    """The run of `outcome_run` after its report stage, shared by the tests of a module that only read it."""
    base = tmp_path_factory.mktemp("outcomes")
    config = load_config(write_config(base))
    folder = outcome_run.make_run(config, base / "run")
    return report_run(config, folder, ScriptedLLM().on(role="analysis", reply=outcome_run.answer_for)), folder
