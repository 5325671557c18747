"""A person's labels against the judge, the report's verdict and the audit of the simulated user: Cohen's kappa
against a worked example, and every figure of a hand-counted label file."""

from __future__ import annotations

import pytest

from intellagent.artifacts import Analysis, Dialog, UserAudit, UserFault, Violation
from intellagent.artifacts.labels import Label
from intellagent.artifacts.rates import Kappa
from intellagent.errors import UsageError
from intellagent.reports.label_agreement import label_figures, read_labels
from intellagent.reports.sections.label_figures import detector_scores


def test_kappa_is_the_worked_example_of_two_readers_of_fifty_items():
    # 50 items: both said yes to 20, the first alone to 5, the second alone to 10, neither to 15. Agreement
    # pₒ = 0.7, chance pₑ = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.2 / 0.5 = 0.4; SE = √(0.7·0.3 / (50·0.25)) = 0.1296,
    # and the interval 0.4 ± 1.96·0.1296.
    assert Kappa.of(20, 5, 10, 15) == Kappa(value=0.4, low=0.146, high=0.654)


def test_kappa_is_one_when_the_readers_always_agree_and_undefined_on_one_answer_throughout():
    assert Kappa.of(3, 0, 0, 4).value == 1.0 and Kappa.of(3, 0, 0, 4).high == 1.0
    assert Kappa.of(5, 0, 0, 0) == Kappa() and Kappa.of(0, 0, 0, 0) == Kappa()


def test_a_worse_than_chance_agreement_has_a_negative_kappa_kept_above_minus_one():
    kappa = Kappa.of(0, 5, 5, 0)
    assert kappa.value == -1.0 and kappa.low == -1.0


def judged(dialog_id: str, tested: list[str], broken: list[str] = (), **fields) -> Analysis:
    violations = [Violation(policy=p, turn=2, reason=f"the judge on {p}", source="judge") for p in broken]
    return Analysis(id=dialog_id, status="fail" if violations else "pass", tested=tested, violations=violations,
                    source=f"digest-{dialog_id}", **fields)


ANALYSES = {
    "S1": judged("S1", ["P1", "P2"], ["P1"]),
    "S2": judged("S2", ["P1"]),
    "S3": judged("S3", ["P1", "P2"], ["P2"]),
    "S4": judged("S4", [], judge_error="no answer"),
    # A check found P1 broken; the judge read it as held (disputed).
    "S5": Analysis(id="S5", status="fail", tested=["P1"], checked=["P1"], disputed=["P1"], source="digest-S5",
                   violations=[Violation(policy="P1", turn=2, reason="refund_check: refunded twice", source="check",
                                         check="refund_check")]),
    "S6": judged("S6", ["P1"]),
}


def audited(dialog_id: str, *faults: UserFault) -> Dialog:
    return Dialog(id=dialog_id, status="pass", policies=["P1", "P2"], audit=UserAudit(faults=list(faults)))


NARRATED = UserFault(kind="narrated", turn=1, evidence="The customer asks.")
DIALOGS = [
    audited("S1", NARRATED),
    audited("S2", UserFault(kind="spoke_as_agent", turn=3, evidence="Is there anything else you would like?")),
    audited("S3"), audited("S4"), audited("S5"),
    audited("S6", NARRATED.model_copy(update={"confirmed": False})),
]

LABELS = [
    Label(dialog="S1", policy="P1", verdict="broken", user_at_fault=True, faults=["narrated"]),
    Label(dialog="S1", policy="P2", verdict="broken", note="it never asked before the second change"),
    Label(dialog="S2", policy="P1", verdict="held", user_at_fault=False, digest="digest-S2"),
    Label(dialog="S2", policy="P2", verdict="held"),
    Label(dialog="S3", policy="P1", verdict="held", user_at_fault=True),
    Label(dialog="S3", policy="P2", verdict="held"),
    Label(dialog="S4", policy="P1", verdict="broken"),
    Label(dialog="S5", policy="P1", verdict="broken"),
    Label(dialog="S6", user_at_fault=False),
    Label(dialog="S1", policy="P1", verdict="held", digest="digest-of-an-older-S1"),  # stale
    Label(dialog="S9", policy="P1", verdict="held"),  # no such dialog
    Label(dialog="S2", policy="P7", verdict="held"),  # no such policy in S2
]


@pytest.fixture(scope="module")
def figures():
    return label_figures("labels.jsonl", LABELS, DIALOGS, ANALYSES)


def test_labels_of_a_dialog_played_anew_or_of_what_the_run_lacks_are_counted_apart(figures):
    assert (figures.lines, figures.applied, figures.stale, figures.unknown) == (12, 9, 1, 2)


def test_the_judges_agreement_is_counted_where_it_ruled(figures):
    # Read: S1 P1 broken/broken, S1 P2 broken/held, S2 P1 held/held, S3 P1 held/held, S3 P2 held/broken,
    # S5 P1 broken/held (disputed with the check); unread: S2 P2 (not tested), S4 P1 (no answer).
    judge = figures.judge
    assert (judge.agreed.count, judge.agreed.total, judge.unread) == (3, 6, 2)
    assert judge.table == {"broken": {"broken": 1, "held": 2}, "held": {"broken": 1, "held": 2}}
    assert judge.kappa.value == 0.0  # pₒ = 0.5 = pₑ


def test_the_reports_verdict_counts_every_source(figures):
    verdict = figures.verdict  # S5 P1 is broken by the check: agreed; S4 P1 was not tested
    assert (verdict.agreed.count, verdict.agreed.total, verdict.unread) == (4, 6, 2)
    assert verdict.table == {"broken": {"broken": 2, "held": 1}, "held": {"broken": 1, "held": 2}}
    assert verdict.kappa.value == pytest.approx(0.3333, abs=1e-4)


def test_the_audits_agreement_counts_a_fault_read_as_none_as_none(figures):
    audit = figures.audit  # S1 yes/yes, S2 no/yes, S3 yes/no, S6 no/no (its fault was read as none)
    assert (audit.agreed.count, audit.agreed.total) == (2, 4)
    assert audit.table == {"yes": {"yes": 1, "no": 1}, "no": {"yes": 1, "no": 1}}


def test_per_policy_the_judges_agreement_on_that_policys_labels(figures):
    assert {policy: (a.agreed.count, a.agreed.total) for policy, a in figures.policies.items()} == {
        "P1": (3, 4), "P2": (0, 2)}


def test_per_kind_of_fault_only_dialogs_whose_label_names_the_kinds_count(figures):
    # S3's user is at fault of kinds not said: left out. S1 narrated (found), S2 none (spoke_as_agent found),
    # S6 none (narrated read as none).
    narrated, agent = figures.faults["narrated"], figures.faults["spoke_as_agent"]
    assert (narrated.agreed.count, narrated.agreed.total) == (3, 3) and detector_scores(narrated) == (1.0, 1.0)
    assert (agent.agreed.count, agent.agreed.total) == (2, 3) and detector_scores(agent) == (0.0, None)


def test_the_worst_disagreements_are_missed_breaches_then_made_up_ones_then_the_audits(figures):
    assert [(d.dialog, d.policy, d.instrument, d.label, d.said) for d in figures.worst] == [
        ("S1", "P2", "judge", "broken", "held"),
        ("S5", "P1", "judge", "broken", "held"),
        ("S3", "P2", "judge", "held", "broken"),
        ("S2", None, "audit", "not at fault", "at fault"),
        ("S3", None, "audit", "at fault", "not at fault"),
    ]
    assert figures.worst[0].note == "it never asked before the second change"
    assert figures.worst[2].evidence == "the judge on P2"


def write(tmp_path, *lines: str):
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_labels_file_is_read_line_by_line_skipping_blank_lines(tmp_path):
    path = write(tmp_path, '{"dialog": "S1", "policy": "P1", "verdict": "held"}', "",
                 '{"dialog": "S1", "user_at_fault": true, "faults": ["narrated"], "note": "it narrates"}')
    assert [(label.policy, label.user_at_fault) for label in read_labels(path)] == [("P1", None), (None, True)]


@pytest.mark.parametrize(("line", "problem"), [
    ('{"dialog": "S1", "policy": "P1"}', "needs both `policy` and `verdict`"),
    ('{"dialog": "S1"}', "says a policy's `verdict`, whether the `user_at_fault`, or both"),
    ('{"dialog": "S1", "user_at_fault": false, "faults": ["narrated"]}', "set `user_at_fault: true`"),
    ('{"dialog": "S1", "policy": "P1", "verdict": "fine"}', "verdict"),
    ('{"dialog": "S1", "policy": "P1", "verdict": "held", "judge": "held"}', "judge"),
    ("not json", "not a label"),
])
def test_a_line_that_is_no_label_is_a_one_line_error_naming_it(tmp_path, line, problem):
    path = write(tmp_path, '{"dialog": "S1", "policy": "P1", "verdict": "held"}', line)
    with pytest.raises(UsageError, match=rf"labels.jsonl:2: .*{problem}") as raised:
        read_labels(path)
    assert "\n" not in str(raised.value)


def test_a_user_said_to_be_at_fault_and_not_is_an_error(tmp_path):
    path = write(tmp_path, '{"dialog": "S1", "user_at_fault": true}', '{"dialog": "S1", "user_at_fault": false}')
    with pytest.raises(UsageError, match="S1's user is said to be at fault on one line"):
        read_labels(path)


def test_a_missing_labels_file_is_a_one_line_error(tmp_path):
    with pytest.raises(UsageError, match=r"--labels .*missing.jsonl: cannot read it"):
        read_labels(tmp_path / "missing.jsonl")
