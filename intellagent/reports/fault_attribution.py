"""The simulated user's faults in the report: which verdicts they void.

A dialog whose user's fault could have decided its verdict (`Dialog.deciding_fault`: a fault in a message the
chatbot answered, or an end the user made while the chatbot was on its request) is `user_fault`: its verdict says
how the chatbot fared against a user that did not play its scenario, so it is neither a pass nor a fail, and no
figure of the chatbot counts it. The rule never looks at the verdict, so that a pass and a fail with the same
fault are set aside alike and the figures lean neither way; the report counts how many of each it set aside
(`sections.simulator_faults`). A fault the chatbot never answered (in the user's closing message) decides nothing,
and neither does one the critique model, asked, read as none.
"""

from __future__ import annotations

from intellagent.artifacts import FAULT_LABELS, Analysis, Dialog, UserFault
from intellagent.reports.dialog_analysis import RATED


def attributed(dialog: Dialog, analysis: Analysis) -> Analysis:
    """The analysis, as `user_fault` when the dialog's user's fault could have decided its verdict (its violations
    kept, counted in no figure)."""
    fault = dialog.deciding_fault
    if fault is None or analysis.status not in RATED:
        return analysis
    return analysis.model_copy(update={"status": "user_fault", "error": fault_line(fault)})


def set_aside_verdict(analysis: Analysis) -> str | None:
    """The verdict a `user_fault` dialog would have had, pass or fail (None for another status)."""
    if analysis.status != "user_fault":
        return None
    return "fail" if analysis.violations else "pass"


def found_by(fault: UserFault) -> str:
    """Who found a fault, and whether the critique model confirmed it: "program, confirmed", "judge"."""
    reading = {True: ", confirmed", False: ", read as none", None: ""}[fault.confirmed]
    return f"{fault.source}{reading}"


def fault_line(fault: UserFault) -> str:
    """One fault in a line, as the reports show it."""
    return f"the simulated user {FAULT_LABELS[fault.kind]} at turn {fault.turn}: {fault.evidence}"
