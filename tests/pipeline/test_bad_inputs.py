"""Bad inputs and a hostile machine: one line and a documented exit code, before any LLM call when it can
be known then, and nothing lost — a full disk, a file that is not UTF-8, a baseline or target that is not there."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from intellagent.cli import main
from intellagent.files import JsonlFile
from intellagent.llm import ScriptedLLM
from tests.pipeline.scripted_pipeline import write_config
from tests.simulate.scripted_dialogs import shop_settings


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(("settings", "expected"), [
    ({"report": {"baseline": "nowhere"}}, "--baseline"),
    ({"chatbot": {"type": "python", "target": "no_such_module:reply"}}, "chatbot.target"),
])
def test_an_input_a_later_stage_needs_is_checked_before_any_llm_call(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str], settings, expected: str
) -> None:
    config = write_config(tmp_path / "shop.yml", **settings)
    assert main(["--config", str(config), "--output", str(tmp_path / "run"), "--no-progress"]) == 2
    assert expected in one_line(capsys)
    assert scripted_models.requests == []


def test_a_broken_domain_module_stops_the_run_before_describe_spends_a_call(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "tools.py"
    broken.write_text("def get_order(:\n")
    environment = {**shop_settings()["environment"], "tools": str(broken)}
    config = write_config(tmp_path / "shop.yml", environment=environment)
    assert main(["--config", str(config), "--output", str(tmp_path / "run"), "--no-progress"]) == 2
    assert "environment.tools" in one_line(capsys)
    assert scripted_models.requests == []


def test_files_that_are_not_utf8_are_named_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "latin.yml"
    config.write_bytes("name: caf\xe9\n".encode("latin-1"))
    assert main(["--config", str(config)]) == 2
    assert "not UTF-8 text" in one_line(capsys)

    policy = tmp_path / "policy.md"
    policy.write_bytes("Be caf\xe9 polite.".encode("latin-1"))
    good = write_config(tmp_path / "shop.yml")
    good.write_text(good.read_text().replace("policy: ", f"policy: {policy}  # ", 1))
    assert main(["--config", str(good), "--output", str(tmp_path / "run"), "--no-progress"]) == 2
    assert "environment.policy" in one_line(capsys)


def test_an_empty_stage_list_is_an_error_not_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path / "shop.yml")
    assert main(["--config", str(config), "--output", str(tmp_path / "run"), "--stages", ""]) == 2
    assert "unknown stage ''" in one_line(capsys)


def test_a_full_disk_exits_4_in_one_line_and_the_same_command_then_resumes(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path / "shop.yml")
    command = ["--config", str(config), "--output", str(tmp_path / "run"), "--no-progress"]
    append = JsonlFile.append

    def full(self: JsonlFile, item: object) -> None:
        if self.path.name == "dialogs.jsonl":
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path))
        append(self, item)

    monkeypatch.setattr(JsonlFile, "append", full)
    assert main(command) == 4
    assert "No space left on device" in one_line(capsys)
    assert not list((tmp_path / "run").rglob("*.partial"))

    monkeypatch.setattr(JsonlFile, "append", append)  # space again
    assert main(command) == 0
    assert len((tmp_path / "run" / "dialogs.jsonl").read_text().splitlines()) == 2


@pytest.mark.parametrize(("stage", "missing", "maker"), [
    ("populate", "scenarios.jsonl", "describe"),
    ("simulate", "events.jsonl", "populate"),
    ("report", "policies.json", "describe"),
])
def test_a_stage_run_before_the_one_that_makes_its_input_names_the_file_and_that_stage(
    tmp_path: Path, scripted_models: ScriptedLLM, capsys: pytest.CaptureFixture[str], stage: str, missing: str,
    maker: str
) -> None:
    config = write_config(tmp_path / "shop.yml")
    command = ["--config", str(config), "--output", str(tmp_path / "run"), "--no-progress", "--stages", stage]

    assert main(command) == 2
    assert f"{missing} not found; run the {maker} stage first (--stages {maker})" in one_line(capsys)
