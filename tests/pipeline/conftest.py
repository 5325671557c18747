"""Fixtures of the whole-pipeline tests: the scripted run, and a frozen test set made once and copied per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from intellagent.api import freeze
from intellagent.llm import ScriptedLLM
from tests.pipeline.scripted_pipeline import config, pipeline_script


@pytest.fixture
def script() -> ScriptedLLM:
    """The scripted LLM of a whole run (in place of the suite's empty one)."""
    return pipeline_script()


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
