"""The judge's and the audit's agreement with a person's labels (`labels`): given a labels.jsonl (`--labels`, or the
run folder's own, which a frozen test set carries), how far the judge, the report's verdict and the audit of the
simulated user agree with a person's reading, with Cohen's kappa and its interval, the tables of the two readings,
per policy and per kind of fault, and the worst disagreements (see `reports.label_agreement`).

It is a part of the reliability line, and its panel holds the tables. The labels are a person's words and every
evidence quoted a model's: all of it is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from intellagent.artifacts import FAULT_LABELS
from intellagent.artifacts.labels import Agreement, Disagreement, LabelFigures
from intellagent.artifacts.run_report import Report
from intellagent.config import Config
from intellagent.reports.label_agreement import label_figures, read_labels
from intellagent.reports.panels import policy_link
from intellagent.reports.section import JudgedRun, Page, Section
from intellagent.reports.text import agreement_text, percent


def check_labels(config: Config, chatbot: Any = None) -> None:
    """Before the run starts: a `--labels` file that cannot be read, or holds a line that is no label, fails now.

    Raises:
        UsageError: the file is missing or malformed (its line named).
    """
    if config.report.labels is not None:
        read_labels(config.report.labels)


def measure(run: JudgedRun) -> LabelFigures | None:
    """The agreement with the run's labels; None when it has none."""
    artifacts = run.artifacts
    if artifacts.labels is None:
        return None
    dialogs = [*artifacts.dialogs, *artifacts.mutant_dialogs, *artifacts.solo_dialogs]
    return label_figures(artifacts.labels.source, artifacts.labels.labels, dialogs, run.analyses)


def kappa_text(agreement: Agreement) -> str:
    """Cohen's kappa and its interval, in a few words: "κ 0.62, 95% CI 0.35–0.89"."""
    kappa = agreement.kappa
    if kappa.value is None:
        return "κ undefined: one answer throughout"
    return f"κ {kappa.value:.2f}, 95% CI {kappa.low:.2f}–{kappa.high:.2f}"


def label_line(figures: LabelFigures | None, report: Report) -> list[str]:
    """The reliability line's part: the judge's and the audit's agreement with the labels."""
    if figures is None:
        return []
    parts = []
    if figures.judge is not None and figures.judge.agreed.total:
        parts.append(f"{agreement_text('labels', figures.judge.agreed)[:-1]}, {kappa_text(figures.judge)})")
    if figures.audit is not None and figures.audit.agreed.total:
        audit = figures.audit.agreed
        parts.append(f"audit and labels agreed on {audit.count} of {audit.total} users ({percent(audit.rate)}, "
                     f"{kappa_text(figures.audit)})")
    return parts or [f"none of {figures.lines} labels applies to a dialog the judge or the audit read"]


def label_panel(figures: LabelFigures, page: Page) -> str:
    """The panel: the agreements, per policy and per kind of fault, and the worst disagreements."""
    apart = [f"{count} {what}" for count, what in ((figures.stale, "of dialogs since played anew"),
                                                    (figures.unknown, "of dialogs or policies this run does not have"))
             if count]
    overall = "".join(_row(name, agreement, answers) for name, agreement, answers in (
        ("Judge", figures.judge, ("broken", "held")), ("Report's verdict", figures.verdict, ("broken", "held")),
        ("Audit of the user", figures.audit, ("yes", "no"))) if agreement is not None)
    policies = "".join(_row(policy_link(policy), agreement, ("broken", "held"), escaped=True)
                       for policy, agreement in figures.policies.items())
    kinds = "".join(_kind_row(kind, agreement) for kind, agreement in figures.faults.items())
    return (
        '<section class="panel" id="labels"><h2>Against your labels</h2>'
        f'<p class="hint">{figures.applied} of {figures.lines} labels from {escape(figures.source)} apply to this '
        f"run's dialogs{' (not counted: ' + ', '.join(apart) + ')' if apart else ''}. κ is Cohen's kappa: 1 when the "
        "instrument always reads as you did, 0 when it agrees no more than chance would. The table counts your "
        "answer against the instrument's; items it did not rule on are counted apart.</p>"
        f"{_table(('Instrument', 'Agreed', 'κ', 'Yours: broken / at fault', 'Yours: held / not'), overall)}"
        + (f"<h3>The judge, per policy</h3>{_table(POLICY_HEADS, policies)}" if policies else "")
        + (f"<h3>The audit, per kind of fault</h3><p class=\"hint\">Precision: of the dialogs the audit flagged with "
           "the kind, the share you did; recall: of those you did, the share it flagged.</p>"
           f"{_table(('Fault', 'Agreed', 'κ', 'Precision', 'Recall'), kinds)}" if kinds else "")
        + _worst(figures.worst) + "</section>"
    )


POLICY_HEADS = ("Policy", "Agreed", "κ", "Yours: broken", "Yours: held")


def _table(heads: tuple[str, ...], rows: str) -> str:
    head = "".join(f"<th>{escape(name)}</th>" for name in heads)
    return f'<table class="compact"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _row(name: str, agreement: Agreement, answers: tuple[str, str], *, escaped: bool = False) -> str:
    """An instrument's agreement: the share, kappa, and your answers against its (unread counted apart)."""
    yes, no = answers
    cells = [f"{agreement.table[person][yes]} {yes} · {agreement.table[person][no]} {no}" for person in answers]
    unread = f" ({agreement.unread} not ruled on)" if agreement.unread else ""
    return (f"<tr><td>{name if escaped else escape(name)}</td><td>{agreement.agreed.count} of "
            f"{agreement.agreed.total} ({percent(agreement.agreed.rate)}){unread}</td>"
            f"<td>{escape(kappa_text(agreement))}</td>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")


def detector_scores(agreement: Agreement) -> tuple[float | None, float | None]:
    """The audit's precision and recall on one kind of fault, against the labels (None: nothing to divide)."""
    found, missed = agreement.table["yes"]["yes"], agreement.table["yes"]["no"]
    flagged = found + agreement.table["no"]["yes"]
    return (found / flagged if flagged else None), (found / (found + missed) if found + missed else None)


def _kind_row(kind: str, agreement: Agreement) -> str:
    precision, recall = detector_scores(agreement)
    return (f"<tr><td>{escape(FAULT_LABELS.get(kind, kind))}</td><td>{agreement.agreed.count} of "
            f"{agreement.agreed.total}</td><td>{escape(kappa_text(agreement))}</td><td>{percent(precision)}</td>"
            f"<td>{percent(recall)}</td></tr>")


def _worst(worst: list[Disagreement]) -> str:
    if not worst:
        return '<p class="hint">No disagreement: every instrument read the labelled items as you did.</p>'
    return f'<h3>The worst disagreements</h3><ol class="violations">{"".join(map(_disagreement, worst))}</ol>'


def _disagreement(d: Disagreement) -> str:
    policy = f" {policy_link(d.policy)}" if d.policy else ""
    evidence = f'. <span class="why">{escape(d.evidence)}</span>' if d.evidence else ""
    note = f' <span class="muted">(your note: {escape(d.note)})</span>' if d.note else ""
    return (f'<li><a href="#dialog-{escape(d.dialog)}">{escape(d.dialog)}</a>{policy}: you said '
            f"<b>{escape(d.label)}</b>, the {escape(d.instrument)} <b>{escape(d.said)}</b>{evidence}{note}</li>")


LABELS = Section(
    key="labels",
    figures=LabelFigures,
    measure=measure,
    panel=label_panel,
    reliability=label_line,
)
"""The judge and the audit against a person's labels."""
