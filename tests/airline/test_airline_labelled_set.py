"""The labelled set of the airline example: 48 dialogs on τ-bench's world, each read by a person for the verdict of
its sampled rules and for its simulated user's faults. The audit's program detectors are measured against those
labels, through the same agreement figures a report gives for `--labels`; each detector's precision and recall
must stay above the floors docs/trust.md states."""

from __future__ import annotations

import asyncio

import pytest

from intellagent.artifacts import Analysis
from intellagent.artifacts.audit import FAULT_LABELS
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.reports.label_agreement import label_figures
from intellagent.reports.sections import LABELS
from intellagent.reports.sections.label_figures import detector_scores
from intellagent.reports.summary import reliability_line
from intellagent.simulate.user_audit import program_audit
from tests.airline.judged_set import judged, settings
from tests.airline.labelled_set import catalog, labelled_dialogs, labels

PRECISION_FLOOR = 0.75
RECALL_FLOOR = 0.6
"""The floors docs/trust.md states for every program detector on this set."""
DETECTORS = ("invented", "contradicted_goal", "narrated", "spoke_as_agent", "stopped_early", "gave_up")


@pytest.fixture(scope="module")
def audited(airline, tau_template):
    """Every dialog of the set with its program audit, read on τ-bench's world."""
    played = labelled_dialogs()
    for item in played:
        item.dialog.audit = program_audit(airline, item.event, item.dialog, world=tau_template)
    return [item.dialog for item in played]


@pytest.fixture(scope="module")
def figures(audited):
    analyses = {d.id: Analysis(id=d.id, status="pass", tested=d.policies, source=d.id) for d in audited}
    return label_figures("labels.jsonl", labels(), audited, analyses)


def test_the_set_holds_at_least_forty_dialogs_each_labelled_for_its_user():
    dialogs, read = labelled_dialogs(), labels()
    assert len(dialogs) >= 40 and len({d.dialog.id for d in dialogs}) == len(dialogs)
    assert {label.dialog for label in read if label.user_at_fault is not None} == {d.dialog.id for d in dialogs}


def test_every_label_names_a_dialog_and_one_of_its_sampled_rules():
    sampled = {d.dialog.id: set(d.dialog.policies) for d in labelled_dialogs()}
    known = {policy.id for policy in catalog().policies}
    assert all(label.policy is None or label.policy in sampled[label.dialog] & known for label in labels())


def test_the_set_labels_held_and_broken_rules_and_every_kind_of_fault():
    read = labels()
    assert {label.verdict for label in read} == {"held", "broken", None}
    assert sum(label.verdict == "broken" for label in read) >= 10
    assert {kind for label in read for kind in label.faults} >= set(DETECTORS)


def test_the_false_positives_a_program_once_made_are_labelled_as_no_fault():
    # A scoped negation, a customer's "anything else", the vague persona's slips, an injection persona's move.
    no_fault = {label.dialog for label in labels() if label.user_at_fault is False}
    assert {"L03", "L04", "L05", "L06", "L07", "L08", "L35", "L44", "L45", "L48"} <= no_fault


@pytest.mark.parametrize("kind", DETECTORS)
def test_each_detectors_precision_and_recall_stay_above_the_floors(figures, kind):
    precision, recall = detector_scores(figures.faults[kind])
    assert precision is not None and precision >= PRECISION_FLOOR, (FAULT_LABELS[kind], precision)
    assert recall is not None and recall >= RECALL_FLOOR, (FAULT_LABELS[kind], recall)


def test_the_audit_finds_the_faulty_users_and_blames_almost_no_other(figures):
    audit = figures.audit
    assert audit.table["no"]["yes"] <= 2 and audit.kappa.value >= 0.7


@pytest.mark.parametrize("seed", [1, 2])
def test_the_set_judged_by_the_careless_double_reports_valid_agreement_figures(tmp_path, tau_template, seed):
    script = ScriptedLLM().on(reply=careless_answers(seed=seed))
    result = asyncio.run(judged(settings("scripted"), tmp_path / "run", world=tau_template, script=script))
    figures = LABELS.of(result.report)
    assert result.report is not None and figures.applied == figures.lines == len(labels())
    assert figures.audit.agreed.total == len(labelled_dialogs())
    assert script.calls(schema="DialogAnalysis") and script.calls(schema="FaultReading")
    judge = figures.judge
    assert judge.agreed.total + judge.unread == sum(label.verdict is not None for label in labels())
    assert "labels" in reliability_line(result.report)
