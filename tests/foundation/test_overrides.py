"""An override is declared once (`intellagent.overrides.OVERRIDES`) and is a flag of the command line, a change of
the config and a keyword of the Python API, all from that declaration."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from intellagent import api, overrides
from intellagent.cli import parser
from intellagent.config import apply_overrides, load_config
from intellagent.errors import UsageError
from intellagent.overrides import Override, documented, given

ROOT = Path(__file__).resolve().parents[2]

NEW = Override("max_turns", "simulate.max_turns", "user turns before a dialog ends", type=int, metavar="N")
"""An override the declaration does not have (yet): a config key with no flag."""


@pytest.fixture
def declared_anew(monkeypatch: pytest.MonkeyPatch) -> Override:
    monkeypatch.setattr(overrides, "OVERRIDES", (*overrides.OVERRIDES, NEW))
    return NEW


@pytest.fixture
def config():
    return load_config(ROOT / "configs/airline.yml")


def test_a_new_declared_override_is_a_flag_of_the_command_line(declared_anew):
    args = parser().parse_args(["--max-turns", "7"])

    assert "--max-turns N" in parser().format_help()
    assert given(args) == {"max_turns": 7}


def test_a_new_declared_override_changes_its_config_key(declared_anew, config):
    assert config.simulate.max_turns != 7

    assert apply_overrides(config, max_turns=7).simulate.max_turns == 7


def test_a_new_declared_override_is_a_documented_keyword_of_the_api(declared_anew):
    async def run(config: str, *, output: str | None = None, **overrides: object) -> None:
        """Run.

        Args:
            config: the config.
        """

    made = documented(run)

    assert inspect.signature(made).parameters["max_turns"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "max_turns (N): user turns before a dialog ends (`simulate.max_turns`)." in inspect.getdoc(made)


def test_the_api_documents_every_override_it_takes():
    parameters = inspect.signature(api.arun).parameters
    text = inspect.getdoc(api.arun)

    for override in overrides.OVERRIDES:
        assert (override.name in parameters) == override.api
        assert (f"    {override.name}" in text) == override.api


def test_the_command_line_gives_its_flags_to_the_config(config, tmp_path):
    args = parser().parse_args(["--fail-under", "0.8", "--calibrate", "--baseline", "earlier", "--llm", "scripted"])

    changed = apply_overrides(config, **given(args))

    assert (changed.report.fail_under, changed.calibrate.enabled) == (0.8, True)
    assert changed.report.baseline == Path("earlier").resolve()
    assert changed.llm.default.provider == "scripted"


def test_a_flag_named_otherwise_gives_its_override_by_name():
    assert given(parser().parse_args(["--tasks", "0-3"])) == {"tau_tasks": "0-3"}


def test_a_flag_not_given_leaves_the_config_s_own_setting(config):
    args = parser().parse_args([])

    assert given(args) == {}
    assert apply_overrides(config, **given(args)) == config


def test_a_setting_no_override_declares_is_a_usage_error(config):
    with pytest.raises(UsageError, match="unknown setting fail_undr"):
        apply_overrides(config, fail_undr=0.8)
