"""The gate on the outcome pass rate (`report.min_outcome`, `--min-outcome`): the one minimum no judge enters."""

from __future__ import annotations

import pytest
from shop_run import report_run

from intellagent.artifacts.run_report import Gate
from intellagent.cli import main
from intellagent.config import apply_overrides
from intellagent.pytest_plugin import failure_message


@pytest.fixture
def outcome_reported(config, outcome_folder, outcome_script):
    """The run of `outcome_run`, analysed once: a later report stage is answered without any model."""
    report_run(config, outcome_folder, outcome_script)
    return outcome_folder


def test_an_outcome_pass_rate_below_its_minimum_fails_the_gate(config, outcome_folder, outcome_script):
    result = report_run(config, outcome_folder, outcome_script, min_outcome=0.5)

    assert result.exit_code == 1 and result.report.gate.min_outcome == 0.5
    assert result.gate_failures == ["outcome pass rate 40.0% (2/5 graded dialogs) is below --min-outcome 0.5"]


def test_an_outcome_pass_rate_at_its_minimum_passes(config, outcome_folder, outcome_script):
    result = report_run(config, outcome_folder, outcome_script, min_outcome=0.4)

    assert (result.exit_code, result.gate_failures) == (0, [])


def test_gating_on_the_lower_bound_compares_the_outcome_pass_rates_interval(config, outcome_folder, outcome_script):
    result = report_run(config, outcome_folder, outcome_script, min_outcome=0.1, gate_on="lower_bound")
    stricter = report_run(config, outcome_folder, outcome_script, min_outcome=0.2, gate_on="lower_bound")

    assert result.gate_failures == []
    assert stricter.gate_failures == ["outcome pass rate 40.0% (2/5 graded dialogs) has a 95% lower bound of 11.8%, "
                                      "below --min-outcome 0.2 (report.gate_on: lower_bound)"]


def test_a_minimum_outcome_with_nothing_graded_fails_and_says_why(config, run_folder, analysis_script):
    result = report_run(config, run_folder, analysis_script, min_outcome=0.5)

    assert result.exit_code == 1
    assert result.gate_failures == ["--min-outcome 0.5 is set, but no dialog was graded against a verified expected "
                                    "outcome (0 of 5 events had one; the reasons are in events.jsonl)"]


def test_a_minimum_outcome_alone_sets_the_gate() -> None:
    assert Gate(fail_under=None, min_outcome=0.8, baseline=None, passed=True, failures=[]).is_set


def test_the_command_line_gates_on_the_outcome(config_file, outcome_reported, capsys):
    code = main(["--config", str(config_file), "--output", str(outcome_reported.root), "--stages", "report",
                 "--min-outcome", "0.9", "--no-progress"])
    out, err = capsys.readouterr()

    assert code == 1 and "quality gate: FAILED" in out
    assert "gate: outcome pass rate 40.0% (2/5 graded dialogs) is below --min-outcome 0.9" in err


def test_a_minimum_outcome_out_of_range_is_a_usage_error(capsys, tmp_path):
    code = main(["--config", "airline.yml", "--min-outcome", "1.5", "--output", str(tmp_path / "out")])

    assert code == 2 and "report.min_outcome" in capsys.readouterr().err


def test_the_api_takes_the_minimum_outcome_as_an_override(config):
    assert apply_overrides(config, min_outcome=0.75).report.min_outcome == 0.75


def test_a_failed_check_lists_the_dialogs_that_missed_their_outcome_and_what_differed(
    config, outcome_folder, outcome_script
):
    report = report_run(config, outcome_folder, outcome_script, min_outcome=0.9).report

    lines = failure_message(report, outcome_folder.root).splitlines()

    listed = lines[lines.index("dialogs that missed their expected outcome:") + 1:][:3]
    assert [line.split(":")[0] for line in listed] == ["  S002", "  S003", "  S005"]
    assert listed[0].startswith('  S002: made the forbidden write cancel_order(order_id="1024"); missed change_order(')
    assert "never said 'ready on Friday'" in listed[2]
