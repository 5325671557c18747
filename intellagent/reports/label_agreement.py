"""A person's labels (`labels.jsonl`) against the run's instruments: the judge's verdict on each labelled policy,
the report's verdict (outcome, checks and judge together), and the audit of the simulated user, overall, per policy
and per kind of fault, with the disagreements that matter most.

Every dialog with an analysis counts, a `user_fault` one and a mutant's too: the figures measure the instruments,
not the chatbot. A label counts only on the dialog it was read on (its digest, when it gives one); a label of a
dialog since played anew, or of a dialog or policy the run does not have, is counted apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from intellagent.artifacts import Analysis, Dialog, UserFault
from intellagent.artifacts.labels import Agreement, Disagreement, Label, LabelFigures
from intellagent.artifacts.rates import Kappa, Share
from intellagent.errors import UsageError
from intellagent.run_folder import RunFolder

WORST = 10
"""Disagreements named in the report, at most."""

VERDICTS = ("broken", "held")
FAULTED = ("yes", "no")


def read_labels(path: Path) -> list[Label]:
    """The labels of a file, in its order; a one-line error for a missing file, a line that is no label, or a
    dialog's user said to be at fault on one line and not on another."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"--labels {path}: cannot read it ({reason}); give a labels.jsonl file") from None
    labels: list[Label] = []
    fault_said: dict[str, tuple[bool, int]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            label = Label.model_validate_json(line)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            raise UsageError(f"{path}:{number}: not a label: {where + ': ' if where else ''}"
                             f"{problem['msg'].removeprefix('Value error, ')}") from None
        if label.user_at_fault is not None:
            earlier = fault_said.setdefault(label.dialog, (label.user_at_fault, number))
            if earlier[0] != label.user_at_fault:
                raise UsageError(f"{path}:{number}: dialog {label.dialog}'s user is said to be at fault on one line "
                                 f"({earlier[1]} or {number}) and not on the other; keep one reading")
        labels.append(label)
    return labels


@dataclass(frozen=True)
class LabelFile:
    """The labels a report reads, and where they came from, as the report names it."""

    source: str
    labels: list[Label]


def labels_of_run(setting: Path | None, folder: RunFolder) -> LabelFile | None:
    """The labels a report holds its instruments to: the file `report.labels` names, or else the run folder's own
    labels.jsonl (a frozen test set's, copied in); None when there are none."""
    if setting is not None:
        return LabelFile(str(setting), read_labels(setting))
    path = folder.path(RunFolder.labels)
    return LabelFile(RunFolder.labels, read_labels(path)) if path.is_file() else None


def label_figures(source: str, labels: list[Label], dialogs: Iterable[Dialog],
                  analyses: dict[str, Analysis]) -> LabelFigures:
    """The agreement of the run's instruments with the labels.

    Args:
        source: where the labels came from, as the report names it.
        labels: the labels, in their file's order.
        dialogs: every dialog of the run that has an analysis.
        analyses: their analyses, by dialog id.
    """
    by_id = {dialog.id: dialog for dialog in dialogs if dialog.id in analyses}
    applied, stale, unknown = [], 0, 0
    for label in labels:
        dialog = by_id.get(label.dialog)
        if dialog is None or (label.policy is not None and label.policy not in _policies(dialog, analyses[dialog.id])):
            unknown += 1
        elif label.digest is not None and label.digest != analyses[dialog.id].source:
            stale += 1
        else:
            applied.append(label)
    on_policy = [label for label in applied if label.verdict is not None]
    on_user = list({label.dialog: label for label in applied if label.user_at_fault is not None}.values())
    judged = [(label, judge_reading(analyses[label.dialog], label.policy)) for label in on_policy]  # type: ignore[arg-type]
    verdicts = [(label, verdict_reading(analyses[label.dialog], label.policy)) for label in on_policy]  # type: ignore[arg-type]
    audited = [(label, audit_reading(by_id[label.dialog])) for label in on_user]
    return LabelFigures(
        source=source, lines=len(labels), applied=len(applied), stale=stale, unknown=unknown,
        judge=agreement([(label.verdict, said) for label, said in judged], VERDICTS),
        verdict=agreement([(label.verdict, said) for label, said in verdicts], VERDICTS),
        audit=agreement([(_yes(label.user_at_fault), said) for label, said in audited], FAULTED),
        policies={policy: found for policy in dict.fromkeys(label.policy for label, _ in judged)
                  if (found := agreement([(label.verdict, said) for label, said in judged if label.policy == policy],
                                         VERDICTS)) is not None},
        faults=_per_kind(on_user, by_id),
        worst=_worst(judged, verdicts, audited, analyses, by_id)[:WORST],
    )


def judge_reading(analysis: Analysis, policy: str) -> str | None:
    """The judge's verdict on a policy in a dialog: broken, held, or None when it did not rule on it (it gave no
    answer, or did not count the policy as tested)."""
    if analysis.judge_error is not None or analysis.status == "error":
        return None
    if any(v.policy == policy and v.source == "judge" for v in analysis.violations):
        return "broken"
    # Where a program ruled too, the judge's own reading is recorded as agreed or disputed; elsewhere it is `tested`.
    by_program = policy in analysis.checked or policy in analysis.decided
    tested = policy in analysis.agreed or policy in analysis.disputed if by_program else policy in analysis.tested
    return "held" if tested else None


def verdict_reading(analysis: Analysis, policy: str) -> str | None:
    """The report's verdict on a policy in a dialog, every source together: broken, held, or None (not tested)."""
    if any(v.policy == policy for v in analysis.violations):
        return "broken"
    return "held" if policy in analysis.tested else None


def audit_reading(dialog: Dialog) -> str | None:
    """Whether the audit found the dialog's user at fault: yes (a fault not read as none), no, or None (not
    audited)."""
    if dialog.audit is None:
        return None
    return _yes(bool(_found(dialog.audit.faults)))


def agreement(pairs: list[tuple[str | None, str | None]], answers: tuple[str, str]) -> Agreement | None:
    """The agreement of (person, instrument) answers, the first of `answers` the "yes" of the kappa; None when
    nothing was labelled."""
    if not pairs:
        return None
    read = [(person, said) for person, said in pairs if said is not None]
    counts = Counter(read)
    yes, no = answers
    return Agreement(
        agreed=Share.of(sum(person == said for person, said in read), len(read)),
        kappa=Kappa.of(counts[(yes, yes)], counts[(yes, no)], counts[(no, yes)], counts[(no, no)]),
        table={person: {said: counts[(person, said)] for said in answers} for person in answers},
        unread=len(pairs) - len(read),
    )


def _per_kind(on_user: list[Label], by_id: dict[str, Dialog]) -> dict[str, Agreement]:
    """Per kind of fault the person or the audit saw: the audit's finding of it against the person's, on the
    dialogs whose label says the user kept to its part or names the kinds of its faults."""
    named = [label for label in on_user if not label.user_at_fault or label.faults]
    audits = {label.dialog: by_id[label.dialog].audit for label in named}
    found = {name: {f.kind for f in _found(audit.faults)} for name, audit in audits.items() if audit is not None}
    kinds = dict.fromkeys([*(kind for label in named for kind in label.faults),
                           *(kind for kinds in found.values() for kind in sorted(kinds))])
    per_kind = {}
    for kind in kinds:
        pairs = [(_yes(kind in label.faults), _yes(kind in found[label.dialog]) if label.dialog in found else None)
                 for label in named]
        per_kind[kind] = agreement(pairs, FAULTED)
    return {kind: figures for kind, figures in per_kind.items() if figures is not None}


def _worst(judged: list[tuple[Label, str | None]], verdicts: list[tuple[Label, str | None]],
           audited: list[tuple[Label, str | None]], analyses: dict[str, Analysis],
           by_id: dict[str, Dialog]) -> list[Disagreement]:
    """The disagreements, worst first: a breach the judge missed, one it made up, the report's verdict where the
    judge agreed or did not rule, then the audit's (a fault it found that the person did not, then one it missed)."""
    def on_policy(pairs: list[tuple[Label, str | None]], instrument: str, label_said: str) -> list[Disagreement]:
        return [Disagreement(dialog=label.dialog, policy=label.policy, instrument=instrument, label=label_said,
                             said=said, note=label.note, evidence=_reason(analyses[label.dialog], label.policy))
                for label, said in pairs if label.verdict == label_said and said not in (None, label_said)]

    judge = on_policy(judged, "judge", "broken") + on_policy(judged, "judge", "held")
    judge_wrong = {(d.dialog, d.policy) for d in judge}
    verdict_only = [d for d in on_policy(verdicts, "verdict", "broken") + on_policy(verdicts, "verdict", "held")
                    if (d.dialog, d.policy) not in judge_wrong]
    audit = [Disagreement(dialog=label.dialog, instrument="audit", label=_fault_words(label.user_at_fault),
                          said=_fault_words(said == "yes"), note=label.note,
                          evidence="; ".join(f.evidence for f in _found(by_id[label.dialog].audit.faults)))  # type: ignore[union-attr]
             for label, said in audited if said is not None and said != _yes(label.user_at_fault)]
    audit.sort(key=lambda d: d.said != "at fault")  # a user blamed wrongly sets a dialog aside: the worse mistake
    return [*judge, *verdict_only, *audit]


def _policies(dialog: Dialog, analysis: Analysis) -> set[str]:
    return {*dialog.policies, *analysis.tested, *(v.policy for v in analysis.violations)}


def _found(faults: list[UserFault]) -> list[UserFault]:
    """The faults the audit stands by: those the critique model did not read as none."""
    return [fault for fault in faults if fault.confirmed is not False]


def _reason(analysis: Analysis, policy: str | None) -> str:
    return next((v.reason for v in analysis.violations if v.policy == policy), "")


def _yes(value: bool | None) -> str:
    return "yes" if value else "no"


def _fault_words(at_fault: bool | None) -> str:
    return "at fault" if at_fault else "not at fault"
