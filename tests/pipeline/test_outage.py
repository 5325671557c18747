"""A provider outage mid-run: the stage stops (exit 3) instead of failing every item, and the resume ends
where an uninterrupted run ends."""

from __future__ import annotations

from pathlib import Path

import pytest

import intellagent
from intellagent.artifacts import Analysis, Dialog
from intellagent.llm import HTTPError, ProviderUnavailable, ScriptedLLM
from tests.pipeline.scripted_pipeline import config, pipeline_script
from tests.pipeline.test_stage_functions import STABLE, records, without_usage


def outcomes(folder: Path) -> list[dict]:
    """The dialogs without their accounting: calls the first invocation made are cached hits on resume."""
    return [{key: value for key, value in dialog.items() if key != "usage"}
            for dialog in records(folder, "dialogs.jsonl", Dialog)]


def test_an_outage_mid_simulate_stops_the_run_and_the_resume_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    settings = config(llm_retries=0)
    intellagent.evaluate(settings, output=tmp_path / "whole", script=pipeline_script())

    outage = ScriptedLLM().on(role="user", replies=[HTTPError(429, "rate limited: quota exhausted")])
    outage.rules += pipeline_script().rules  # after the outage, the same answers as the uninterrupted run
    with pytest.raises(ProviderUnavailable, match="quota exhausted"):
        intellagent.evaluate(settings, output=tmp_path / "resumed", script=outage)
    dialogs = tmp_path / "resumed" / "dialogs.jsonl"
    assert not dialogs.exists() or '"error"' not in dialogs.read_text()  # no dialog recorded as an error

    intellagent.evaluate(settings, output=tmp_path / "resumed", script=outage)

    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    for name in STABLE:
        assert (resumed / name).read_bytes() == (whole / name).read_bytes(), name
    assert outcomes(resumed) == outcomes(whole)
    assert records(resumed, "analysis.jsonl", Analysis) == records(whole, "analysis.jsonl", Analysis)
    assert without_usage(resumed / "report.json") == without_usage(whole / "report.json")
