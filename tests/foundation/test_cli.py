"""The command line: documented options, one-line errors with exit code 2."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from intellagent.cli import main, parser
from intellagent.llm import Usage
from intellagent.progress import RunProgress

ROOT = Path(__file__).resolve().parents[2]

OPTIONS = ["--config", "--output", "--llm", "--chatbot-llm", "--samples", "--seed", "--workers", "--max-cost",
           "--replay", "--fresh", "--fail-under", "--baseline", "--trials", "--gate-on", "--calibrate",
           "--min-detection", "--debug", "--help", "--version"]


def test_help_documents_every_option():
    text = parser().format_help()
    for option in OPTIONS:
        assert option in text
    assert "openai:MODEL@BASE_URL" in text and "exit codes" in text


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--config", "nowhere.yml"], "config file nowhere.yml not found"),
        (["--samples", "3"], "--config"),
        (["--config", "airline.yml", "--llm", "gpt-4o"], "model SPEC 'gpt-4o' not understood"),
        (["--config", "airline.yml", "--samples", "zero"], "invalid int value"),
        (["--config", "airline.yml", "--fail-under", "1.5"], "report.fail_under"),
        (["--config", "airline.yml", "--stages", "judge"], "unknown stage"),
        (["--config", "airline.yml", "--min-detection", "2"], "report.min_detection"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(argv, expected, capsys, tmp_path):
    code = main([*argv, "--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert expected in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_bad_config_file_names_the_key_and_file(tmp_path, capsys):
    config = tmp_path / "bad.yml"
    config.write_text("environment:\n  policy: p.md\n  schema: s\n  tools: t\nturns: 3\n")
    (tmp_path / "p.md").write_text("policy")
    assert main(["--config", str(config)]) == 2
    assert f"{config}: unknown key `turns`" in capsys.readouterr().err


def test_run_py_is_the_command_line(tmp_path):
    done = subprocess.run([sys.executable, "run.py", "--config", "nowhere.yml"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("error: config file nowhere.yml not found")


def test_version_prints_the_installed_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"intellagent {importlib.metadata.version('intellagent')}"


@pytest.mark.parametrize(("failed", "shown"), [(0, "0 errors"), (1, "1 error"), (2, "2 errors")])
def test_a_progress_bar_counts_its_errors_in_words(failed, shown):
    console = Console(record=True, width=160, force_terminal=False)
    with RunProgress(Usage(), console=console) as progress:
        bar = progress.stage("simulate", total=3)
        for number in range(3):
            bar.advance(error=number < failed)
    assert f" {shown} " in console.export_text()
