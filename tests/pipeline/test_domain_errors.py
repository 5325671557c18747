"""A domain's own errors are reported as the domain's: one line naming the config key, the function, the file and
line it raised at, and the error; exit 2, before any LLM call. On the scripted shop, the parcel desk and the
airline. A tool that raises in a dialog stays the chatbot's `Error: …` observation, and a check that raises a
logged warning."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from textwrap import dedent

import pytest

from intellagent.artifacts import Message
from intellagent.checks import check, run_checks
from intellagent.cli import main
from intellagent.config import EnvironmentConfig
from intellagent.environment import Environment, load_environment
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from tests.environment.conftest import PARCELS
from tests.pipeline.scripted_pipeline import write_config
from tests.simulate.scripted_dialogs import shop_settings

REPO = Path(__file__).resolve().parents[2]
AIRLINE = {"policy": str(REPO / "policies" / "airline.md"), "schema": "intellagent.db_schemas.airline.schema",
           "tools": "intellagent.db_schemas.airline.tools"}
PARCEL_DESK = {"policy": str(PARCELS / "parcels.md"), "schema": str(PARCELS / "schema.py"),
               "tools": str(PARCELS / "tools.py")}
DOMAINS = {"shop": shop_settings()["environment"], "parcels": PARCEL_DESK, "airline": AIRLINE}

RAISES = '''
    from sqlmodel import Session


    def generate(session: Session, seed: int) -> None:
        """A world whose seed data is not there."""
        raise ValueError("no seed data for region 'north'")
'''
READS_A_MISSING_FILE = '''
    import json
    from pathlib import Path

    from sqlmodel import Session

    DATA = Path(__file__).with_name("rows.json")


    def generate(session: Session, seed: int) -> None:
        """Rows read from a data file that is not there."""
        rows = json.loads(DATA.read_text())
        session.add_all(rows)
'''


def module(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(dedent(text))
    return path


def line_of(path: Path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def run(tmp_path: Path, environment: dict[str, str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    config = write_config(tmp_path / "run.yml", environment=environment)
    code = main(["--config", str(config), "--output", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return code, err.strip()


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_background_that_raises_is_one_line_naming_it_exit_2_before_any_call(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str], domain: str
) -> None:
    background = module(tmp_path, "background.py", RAISES)

    code, error = run(tmp_path, {**DOMAINS[domain], "background": str(background)}, capsys)

    raised = line_of(background, "raise ValueError")
    assert code == 2
    assert re.fullmatch(rf"error: environment\.background: generate \(\S*background\.py:{raised}\) raised "
                        r"ValueError: no seed data for region 'north'; fix .*", error), error
    assert scripted_models.requests == []


@pytest.mark.parametrize("domain", ["shop", "airline"])
def test_a_data_file_the_background_cannot_find_is_the_domains_error_not_the_disks(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str], domain: str
) -> None:
    background = module(tmp_path, "background.py", READS_A_MISSING_FILE)

    code, error = run(tmp_path, {**DOMAINS[domain], "background": str(background)}, capsys)

    assert code == 2
    read = line_of(background, "DATA.read_text()")
    assert re.match(rf"error: environment\.background: generate \(\S*background\.py:{read}\) raised FileNotFoundError: "
                    r".*rows\.json", error), error
    assert "free space" not in error


def test_rows_the_database_refuses_are_the_generators_error(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    code, error = run(tmp_path, {**PARCEL_DESK, "background": str(PARCELS / "twice_background.py")}, capsys)

    assert code == 2
    assert re.match(r"error: environment\.background: generate \(\S*twice_background\.py:\d+\) raised IntegrityError: "
                    r".*UNIQUE constraint failed: depots\.code", error), error


def test_a_tool_module_that_raises_while_loading_names_its_line(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = module(tmp_path, "tools.py", '''
        import os

        RATES = {"standard": 4.5}
        EXPRESS = RATES["express"]
    ''')

    code, error = run(tmp_path, {**PARCEL_DESK, "tools": str(tools)}, capsys)

    assert code == 2
    assert error.startswith("error: environment.tools: importing ") and \
        f"tools.py:{line_of(tools, 'EXPRESS =')}): KeyError: 'express'" in error, error


def test_a_tau_module_that_cannot_load_its_data_is_one_line_naming_it(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "tau_parcels"
    data.mkdir()
    (data / "tasks.json").write_text(json.dumps([{"user_id": "cus_1", "actions": []}]))
    (data / "parcels.json").write_text(json.dumps({"depots": {}}))  # no customers, parcels or items
    config = write_config(tmp_path / "run.yml", environment={**PARCEL_DESK, "tau": str(PARCELS / "tau.py")})
    scripted_models.on(reply=careless_answers(seed=1))  # describe's calls the shop's script does not answer

    code = main(["--config", str(config), "--scenarios-from", f"tau:{data}", "--output", str(tmp_path / "out"),
                 "--no-progress"])

    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1, error
    assert re.match(r"error: environment\.tau: build_tau_database \(\S*tau\.py:\d+\) raised KeyError: 'customers'; "
                    r"check that tau\.data", error), error


def test_a_check_that_raises_is_a_logged_warning_naming_it_and_rules_on_nothing(
    parcels: Environment, caplog: pytest.LogCaptureFixture
) -> None:
    @check
    def counts_parcels(trace):
        """At most one parcel is held per dialog."""
        return len(trace.missing)

    desk = Environment(name=parcels.name, policy=parcels.policy, tables=parcels.tables, tools=parcels.tools,
                       checks=[counts_parcels])
    with caplog.at_level(logging.WARNING, logger="intellagent"):
        names, findings, _ = run_checks(desk, [Message(role="chatbot", content="Hello.")], before=None, database=None)

    assert "counts_parcels" not in names and not [f for f in findings if f.check == "counts_parcels"]
    (warning,) = [r.getMessage() for r in caplog.records if "counts_parcels" in r.getMessage()]
    assert re.fullmatch(r"check counts_parcels \(\S*test_domain_errors\.py:\d+\) could not run: AttributeError: .*",
                        warning), warning


@pytest.fixture(scope="module")
def parcels() -> Environment:
    return load_environment(EnvironmentConfig.model_validate({**PARCEL_DESK, "background": None}))
def test_a_missing_task_list_names_no_other_domains_files(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    task_set = tmp_path / "tau_parcels"
    task_set.mkdir()
    (task_set / "parcels.json").write_text("{}")
    config = tmp_path / "parcels.yml"
    config.write_text(json.dumps({
        "name": "parcels", "llm": "scripted", "chatbot": {"llm": "scripted"},
        "environment": {"policy": str(PARCELS / "parcels.md"), "schema": str(PARCELS / "schema.py"),
                        "tools": str(PARCELS / "tools.py"), "tau": str(PARCELS / "tau.py")},
    }))

    code = main(["--config", str(config), "--scenarios-from", f"tau:{task_set}", "--output", str(tmp_path / "run"),
                 "--no-progress"])

    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1 and "Traceback" not in error
    assert "tasks.json not found" in error and "environment.tau" in error
    assert not any(word in error for word in ("flights", "reservations", "users.json", "airline"))
    assert scripted_models.requests == []
