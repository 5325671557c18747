"""A team labels a reported run's dialogs and reads, in the next report, how far its judge and audit agree: the
report stage run again with `--labels` (or with the run folder's own labels.jsonl) asks no model anew, and every
output says it: report.json, the reliability line, the page's panel; each dialog card carries its label form."""

from __future__ import annotations

import json

import pytest
from shop_run import report_run

from intellagent.artifacts.labels import Label
from intellagent.cli import main
from intellagent.reports.sections import LABELS
from intellagent.reports.summary import reliability_line
from intellagent.run_folder import RunFolder

# The shop fixture's judge: S001 held P01 and P02, S002 broke P03, S003 broke P02, S004 broke P03.
LINES = [
    Label(dialog="S001", policy="P01", verdict="held", user_at_fault=False),
    Label(dialog="S002", policy="P03", verdict="broken", user_at_fault=False),
    Label(dialog="S003", policy="P02", verdict="held", note="store credit is allowed for this customer"),
    Label(dialog="S004", policy="P03", verdict="broken"),
]


def labels_file(path, labels=LINES):
    path.write_text("".join(label.model_dump_json(exclude_defaults=True) + "\n" for label in labels))
    return path


@pytest.fixture
def labelled(reported, analysis_script, config, tmp_path):
    """The reported shop run, reported again with a labels file."""
    _, folder = reported
    calls = len(analysis_script.requests)
    result = report_run(config, folder, analysis_script, labels=labels_file(tmp_path / "mine.jsonl"))
    assert len(analysis_script.requests) == calls  # the judge's answers are kept: no model is asked again
    return result.report, folder


def test_the_next_report_gives_the_judges_agreement_with_the_labels(labelled):
    figures = LABELS.of(labelled[0])
    assert (figures.applied, figures.judge.agreed.count, figures.judge.agreed.total) == (4, 3, 4)
    (worst,) = figures.worst
    assert (worst.dialog, worst.policy, worst.said, worst.note) == ("S003", "P02", "broken",
                                                                   "store credit is allowed for this customer")


def test_report_json_keeps_the_agreement_under_labels(labelled):
    data = json.loads(labelled[1].path("report.json").read_text())
    assert data["labels"]["judge"]["agreed"]["count"] == 3 and data["labels"]["source"].endswith("mine.jsonl")


def test_the_reliability_line_states_the_judges_agreement_with_its_kappa(labelled):
    assert "judge and labels agreed on 3 of 4 policy verdicts (75%, κ 0.50, 95% CI" in reliability_line(labelled[0])


def test_the_page_has_the_labels_panel_with_the_worst_disagreement(labelled):
    html = labelled[1].path("report.html").read_text()
    panel = html.split('id="labels"')[1].split("</section>")[0]
    assert "Against your labels" in panel and "store credit is allowed for this customer" in panel


def test_without_labels_a_report_has_no_labels_section(shop_report):
    report, _ = shop_report[0].report, shop_report[1]
    assert LABELS.of(report) is None and "labels" not in reliability_line(report)


def test_the_run_folders_own_labels_are_read_when_none_is_given(reported, analysis_script, config):
    _, folder = reported
    labels_file(folder.path(RunFolder.labels), LINES[:1])
    figures = LABELS.of(report_run(config, folder, analysis_script).report)
    assert (figures.source, figures.applied) == (RunFolder.labels, 1)


def test_every_dialog_card_carries_a_label_form_with_its_digest_and_policies(shop_report):
    _, folder = shop_report
    html = folder.path("report.html").read_text()
    digests = {analysis.id: analysis.source for analysis in folder.analyses.load()}
    card = html.split('id="dialog-S002"')[1].split("</details>")[0]
    assert (f'class="label-open" data-dialog="S002" data-digest="{digests["S002"]}" data-policies="P01 P03"'
            in card)
    assert html.count('id="label-template"') == 1
    # The form offers no answer of the report's: a label is the person's own reading.
    template = html.split('id="label-template"')[1].split("</template>")[0]
    assert "selected" not in template and "checked" not in template


def test_a_missing_labels_file_stops_the_command_line_before_anything_runs(config_file, reported, tmp_path, capsys):
    _, folder = reported
    code = main(["--config", str(config_file), "--output", str(folder.root), "--stages", "report",
                 "--labels", str(tmp_path / "none.jsonl"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "none.jsonl: cannot read it" in err and err.count("\n") == 1


def test_a_malformed_labels_line_is_named_on_the_command_line(config_file, reported, tmp_path, capsys):
    _, folder = reported
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"dialog": "S001", "policy": "P01", "verdict": "held"}\n{"dialog": "S001", "verdict": "ok"}\n')
    code = main(["--config", str(config_file), "--output", str(folder.root), "--stages", "report",
                 "--labels", str(bad), "--no-progress"])
    assert code == 2 and "bad.jsonl:2: not a label" in capsys.readouterr().err
