"""What a run says it ran, for the viewer: the label it was given, and the git commit it was started from."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from intellagent.config import load_config
from intellagent.run_folder import RunFolder
from intellagent.runner import execute
from tests.report.shop_run import write_config


def started(tmp_path: Path, folder: str, **options) -> RunFolder:
    config = load_config(write_config(tmp_path))
    asyncio.run(execute(config, output=tmp_path / folder, stages=(), progress=False, **options))
    return RunFolder(tmp_path / folder)


def test_a_run_records_the_label_it_was_given(tmp_path: Path) -> None:
    assert started(tmp_path, "run", label="build 42").run_info.require().label == "build 42"


def test_a_resumed_run_keeps_its_label(tmp_path: Path) -> None:
    started(tmp_path, "run", label="build 42")
    assert started(tmp_path, "run").run_info.require().label == "build 42"


def test_a_run_records_the_commit_checked_out_where_it_started(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    checkout = tmp_path / "chatbot"
    checkout.mkdir()
    git = ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=checkout, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "build"], cwd=checkout, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, check=True, capture_output=True, text=True)
    monkeypatch.chdir(checkout)

    commit = started(tmp_path, "run").run_info.require().commit
    assert commit is not None and head.stdout.startswith(commit) and len(commit) == 12


def test_a_run_started_outside_a_checkout_records_no_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert started(tmp_path, "run").run_info.require().commit is None
