"""report.html's section on the simulated user: how often it was at fault, of what kinds, and every fault with
its dialog, turn and evidence, and what the fault made of the dialog's verdict.

Every fault's evidence quotes a model's words, so it is escaped like everything else a model wrote.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts import FAULT_LABELS
from intellagent.artifacts.report import DialogResult, Report
from intellagent.reports.text import percent

# What a fault made of its dialog, by the dialog's status in the report.
COUNTED_AS = {
    "user_fault": "kept out: its user was at fault before the chatbot broke a rule",
    "fail": "a failure: the chatbot had broken a rule before",
    "pass": "a pass",
    "incomplete": "not judged",
    "error": "failed to run",
}


def simulator_section(report: Report) -> str:
    """The section, for a report whose dialogs were audited (`report.simulator` is set)."""
    figures = report.simulator
    assert figures is not None
    faulted, kept = figures.faulted, len(figures.kept_out)
    kinds = "".join(f'<span class="chip user_fault">{escape(FAULT_LABELS[kind])} · {count}</span>'
                    for kind, count in figures.kinds.items())
    unanswered = (f" The judge's question on the user's goal got no answer in {figures.judge_errors} dialogs; "
                  "there the program's reading stands alone." if figures.judge_errors else "")
    rows = "".join(_rows(dialog) for dialog in report.dialogs if dialog.user_faults)
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
        f"{kept} of those dialogs are kept out of every figure of the chatbot, since the user failed before the "
        "chatbot broke any rule; a fault after the chatbot's first violation excuses nothing, and the dialog "
        f'counts as a failure.{unanswered}</p><p class="chips">{kinds}</p>{table}</section>'
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
                     f"<td>{escape(fault.evidence)}</td><td>{escape(fault.source)}</td></tr>")
    return "".join(cells)
