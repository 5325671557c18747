"""Fixtures of the whole-pipeline tests: the scripted run, and a frozen test set made once and copied per test."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel

from intellagent.api import evaluate, freeze
from intellagent.artifacts.run_report import Report
from intellagent.llm import ModelSpec, ScriptedLLM, roles
from intellagent.llm.factory import build_chat_model
from tests.pipeline.scripted_pipeline import config, pipeline_script


@pytest.fixture
def script() -> ScriptedLLM:
    """The scripted LLM of a whole run (in place of the suite's empty one)."""
    return pipeline_script()


@pytest.fixture(scope="session")
def whole_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    """One whole run of the scripted shop, for the tests that only read it: (report, run folder)."""
    folder = tmp_path_factory.mktemp("whole") / "run"
    return evaluate(config(), output=folder, script=pipeline_script()), folder


@pytest.fixture(scope="session")
def frozen_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A frozen test set of the scripted shop (describe + populate), made once."""
    folder = tmp_path_factory.mktemp("frozen") / "shop"
    freeze(config(), output=folder, script=pipeline_script())
    return folder


@pytest.fixture
def frozen(frozen_master: Path, tmp_path: Path) -> Path:
    """This test's own copy of the frozen set: an evaluation records its LLM calls in the set's cache."""
    folder = tmp_path / "frozen"
    shutil.copytree(frozen_master, folder)
    return folder


@pytest.fixture
def scripted_models(monkeypatch: pytest.MonkeyPatch, script: ScriptedLLM) -> ScriptedLLM:
    """Every model a run builds is `script`, for code that has no way to pass one: the command line, the examples."""

    def build(spec: ModelSpec, **options: Any) -> BaseChatModel:
        return build_chat_model(spec, **{**options, "script": script})

    monkeypatch.setattr(roles, "build_chat_model", build)
    return script
