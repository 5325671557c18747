"""pytest run by pytest (pytester), in a project folder whose config and conftest play the scripted shop."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from tests.pipeline.scripted_pipeline import write_config

# What a project's conftest overrides so that the plugin's runs use the scripted LLM.
SCRIPTED_CONFTEST = """
import pytest

from tests.pipeline.scripted_pipeline import pipeline_script


@pytest.fixture
def intellagent_script():
    return pipeline_script()
"""


def installed() -> bool:
    """Whether the plugin comes in through the installed package's entry point (`pip install -e .`)."""
    return any(e.value == "intellagent.pytest_plugin" for e in importlib.metadata.entry_points(group="pytest11"))


def scripted_project(pytester: pytest.Pytester, config: str) -> pytest.Pytester:
    """The pytester folder as a project: the scripted shop's config at `config`, and the scripted conftest.

    The caller has made a whole run in this process first: pytester forgets the modules that a pytest
    run inside it imports, and some that a run needs (sqlalchemy's compiled parts) cannot be imported twice.
    """
    write_config(pytester.path / config)
    pytester.makeconftest(SCRIPTED_CONFTEST)
    return pytester


def run_pytest(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest in the project folder, with the plugin loaded as a user's suite would have it."""
    plugin = () if installed() else ("-p", "intellagent.pytest_plugin")
    return pytester.runpytest(*plugin, *args)


def report_folder(pytester: pytest.Pytester, test: str) -> Path:
    """Where the plugin puts the run folder of a test (the default --intellagent-output)."""
    return pytester.path / "results" / "pytest" / test
