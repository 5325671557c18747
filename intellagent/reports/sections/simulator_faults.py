"""The simulated user's faults (`simulator`): how often the chatbot's dialogs had a faulty user, of what kinds,
and the dialogs those faults kept out of every figure, with how many of them would have passed and how many failed
(see `reports.fault_attribution`).

It is a part of the reliability line; its panel lists every fault with its dialog, turn and evidence, and what
the fault made of the dialog's verdict. Every fault's evidence quotes a model's words, so it is escaped like
everything else a model wrote.
"""

from __future__ import annotations

from collections import Counter
from html import escape

from intellagent.artifacts import FAULT_LABELS, Analysis, Dialog
from intellagent.artifacts.rates import Share
from intellagent.artifacts.run_report import DialogResult, Report, SimulatorFaults
from intellagent.reports.fault_attribution import found_by, set_aside_verdict
from intellagent.reports.section import Page, Section
from intellagent.reports.text import percent

# What a fault made of its dialog, by the dialog's status in the report.
COUNTED_AS = {
    "user_fault": "kept out: its user's fault could have decided its verdict",
    "fail": "a failure: no fault of its user could have decided it",
    "pass": "a pass: no fault of its user could have decided it",
    "incomplete": "not judged",
    "error": "failed to run",
}


def simulator_faults(dialogs: list[Dialog], analyses: dict[str, Analysis]) -> SimulatorFaults | None:
    """How often the chatbot's dialogs had a faulty user, per kind, and which dialogs that kept out; None when
    none was audited (the dialogs of an older run).

    Args:
        dialogs: the chatbot's dialogs (not the mutants').
        analyses: every dialog's analysis, by dialog id.
    """
    audits = {dialog.id: dialog.audit for dialog in dialogs if dialog.audit is not None}
    if not audits:
        return None
    kinds = Counter(kind for audit in audits.values() for kind in {fault.kind for fault in audit.faults})
    kept_out = [name for name in audits if name in analyses and analyses[name].status == "user_fault"]
    verdicts = Counter(set_aside_verdict(analyses[name]) for name in kept_out)
    return SimulatorFaults(
        audited=len(audits),
        faulted=Share.of(sum(bool(audit.faults) for audit in audits.values()), len(audits)),
        kept_out=kept_out,
        kept_out_verdicts={"pass": verdicts["pass"], "fail": verdicts["fail"]},
        kinds={kind: kinds[kind] for kind in FAULT_LABELS if kinds[kind]},  # in the labels' order
        judge_errors=sum(bool(audit.judge_error) for audit in audits.values()),
        read_as_none=sum(fault.confirmed is False for audit in audits.values() for fault in audit.faults),
    )


def simulator_line(figures: SimulatorFaults | None, report: Report) -> list[str]:
    """The reliability line's part: how often the simulated user was at fault, its commonest faults, and the dialogs
    that kept out."""
    if figures is None:
        return []
    faulted = figures.faulted
    line = f"simulator faults in {faulted.count} of {faulted.total} dialogs ({percent(faulted.rate)})"
    if not faulted.count:
        return [line]
    common = sorted(figures.kinds.items(), key=lambda item: -item[1])[:3]
    kinds = ", ".join(f"{FAULT_LABELS[kind]} {count}" for kind, count in common)
    return [f"{line}: {kinds}; {len(figures.kept_out)} kept out of the figures{_verdicts(figures)}"]


def _verdicts(figures: SimulatorFaults) -> str:
    """How many of the dialogs kept out would have passed and failed, in brackets (nothing when none was)."""
    if not figures.kept_out or not figures.kept_out_verdicts:
        return ""
    passed, failed = figures.kept_out_verdicts.get("pass", 0), figures.kept_out_verdicts.get("fail", 0)
    return f" ({passed} pass{'es' if passed != 1 else ''}, {failed} fail{'s' if failed != 1 else ''})"


def simulator_panel(figures: SimulatorFaults, page: Page) -> str:
    """The panel: the faults' figures, then every fault of every dialog."""
    faulted, kept = figures.faulted, len(figures.kept_out)
    kinds = "".join(f'<span class="chip user_fault">{escape(FAULT_LABELS[kind])} · {count}</span>'
                    for kind, count in figures.kinds.items())
    unanswered = (f" The judge's question on the user's goal got no answer in {figures.judge_errors} dialogs; "
                  "there the program's reading stands alone." if figures.judge_errors else "")
    none = (f" The critique model, asked to confirm, read {figures.read_as_none} of the faults a program found as "
            "none: they are listed, and set nothing aside." if figures.read_as_none else "")
    rows = "".join(_rows(dialog) for dialog in page.report.dialogs if dialog.user_faults)
    table = (
        '<table class="compact"><thead><tr><th>Dialog</th><th>Counted as</th><th>Turn</th><th>Fault</th>'
        f"<th>Evidence</th><th>Found by</th></tr></thead><tbody>{rows}</tbody></table>"
        if rows else '<p class="hint">No fault found: the simulated user played its part in every dialog.</p>'
    )
    return (
        '<section class="panel" id="simulated-user"><h2>Simulated user</h2>'
        f'<p class="hint">The simulated user was at fault in {faulted.count} of {faulted.total} dialogs '
        f"({percent(faulted.rate)}). The audit looks for a fact the user made up, a goal it reversed, a stop before "
        "the chatbot answered, a user that could not go on, narration, the agent's part played, and (the judge's "
        "one question) a goal not pursued. "
        f"{kept} of those dialogs{_verdicts(figures)} are kept out of every figure of the chatbot, since the fault "
        "came before the chatbot's work on the request ended and could have decided the verdict. The rule is the "
        "same for a pass and a fail, so that the figures lean neither way; a fault in the closing courtesies, or "
        f'one a model read as none, sets nothing aside.{none}{unanswered}</p><p class="chips">{kinds}</p>{table}'
        "</section>"
    )


def _rows(dialog: DialogResult) -> str:
    counted = COUNTED_AS.get(dialog.status, dialog.status)
    cells = []
    for index, fault in enumerate(dialog.user_faults):
        first = (f'<td rowspan="{len(dialog.user_faults)}"><a href="#dialog-{escape(dialog.id)}">{escape(dialog.id)}'
                 f'</a></td><td rowspan="{len(dialog.user_faults)}"><span class="badge {escape(dialog.status)}">'
                 f'{escape(dialog.status.replace("_", " "))}</span> <span class="muted">{escape(counted)}</span></td>'
                 if index == 0 else "")
        cells.append(f"<tr>{first}<td>{fault.turn}</td><td>{escape(FAULT_LABELS[fault.kind])}</td>"
                     f"<td>{escape(fault.evidence)}</td><td>{escape(found_by(fault))}</td></tr>")
    return "".join(cells)


SIMULATOR = Section(
    key="simulator",
    figures=SimulatorFaults,
    measure=lambda run: simulator_faults(run.artifacts.dialogs, run.analyses),
    panel=simulator_panel,
    reliability=simulator_line,
)
"""The audit of the simulated user."""
