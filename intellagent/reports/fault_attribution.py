"""The simulated user's faults in the report: which verdicts they void.

A dialog whose user was at fault (its audit, `Dialog.audit`) before the chatbot broke any rule is
`user_fault`: its verdict says how the chatbot fared against a user that did not play its scenario, so it
is neither a pass nor a fail, and no figure of the chatbot counts it. A fault after the chatbot's first
violation excuses nothing: the chatbot had already failed, and the dialog fails. What counts as the chatbot's
failure is any violation, whoever found it; when it happened is its turn in the transcript, and a violation
that names no turn cannot be shown to come after the fault, so it stands. How often it happened is the report's
`simulator` section (`sections.simulator_faults`).
"""

from __future__ import annotations

from intellagent.artifacts import FAULT_LABELS, Analysis, Dialog, UserFault
from intellagent.reports.dialog_analysis import RATED


def attributed(dialog: Dialog, analysis: Analysis) -> Analysis:
    """The analysis, as `user_fault` when the dialog's user was at fault before the chatbot broke any rule."""
    audit = dialog.audit
    if audit is None or analysis.status not in RATED or not audit.excuses(v.turn for v in analysis.violations):
        return analysis
    assert audit.first is not None
    return analysis.model_copy(update={"status": "user_fault", "error": fault_line(audit.first)})


def fault_line(fault: UserFault) -> str:
    """One fault in a line, as the reports show it."""
    return f"the simulated user {FAULT_LABELS[fault.kind]} at turn {fault.turn}: {fault.evidence}"
