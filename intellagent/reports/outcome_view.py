"""The outcome grade in each dialog's card on the report page: the expected calls beside the calls made (the
run's outcome figures are the `outcomes` section's, `sections.outcome_grade`).

Calls, arguments, outputs and reasons were written by a model or by the chatbot under test: every piece
of text goes through `escape` and lands in an element as text.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts import Dialog, Event, ExpectedOutcome, OutcomeGrade, ToolCall
from intellagent.artifacts.outcomes import call_text
from intellagent.artifacts.run_report import CallScore
from intellagent.reports.dialog_outcomes import dialog_outcome
from intellagent.reports.text import call_scores, one_line

CALL_CHARS = 240


def outcome_panel(dialog: Dialog, event: Event | None, *, kept_out: bool = False) -> str:
    """The dialog card's outcome: the expected calls beside the calls made, the forbidden writes, the outputs and
    the records that differ; a line saying why when the dialog is not graded; nothing when no outcome was sought.

    Args:
        kept_out: the dialog is `user_fault`: its grade is shown, marked as counted in no figure.
    """
    outcome = dialog_outcome(dialog, event, kept_out=kept_out)
    if outcome is None or event is None:
        return ""
    expected, grade = event.expected, outcome.grade
    if expected is None or grade is None:
        return (f'<section class="outcome-check"><h4>Expected outcome</h4><p class="sim">Not graded: '
                f"{escape(outcome.reason or '')}.</p></section>")
    verdict = "reached" if grade.passed else "missed"
    note = "" if outcome.counted else f' <span class="muted">(not counted: {escape(outcome.reason or "")})</span>'
    score = CallScore.of(expected=grade.expected_calls, made=grade.made_calls, matched=grade.matched_calls)
    return (
        f'<section class="outcome-check {"pass" if grade.passed else "fail"}"><h4>Expected outcome: {verdict} · reward '
        f"{grade.reward:g} · progress {grade.progress:.2f} · {escape(call_scores(score))}{note}</h4>"
        '<div class="outcome-grid">'
        f"<div><h5>Expected calls</h5>{_expected_calls(expected, grade)}{_forbidden(dialog, expected, grade)}"
        f"{_outputs(grade)}</div>"
        f"<div><h5>Calls made</h5>{_calls_made(dialog, expected, grade)}{_differs(grade)}</div>"
        "</div></section>"
    )


def _expected_calls(expected: ExpectedOutcome, grade: OutcomeGrade) -> str:
    if not expected.calls:
        return '<p class="muted">none: nothing may be done here</p>'
    made = set(grade.matched.values())
    items = []
    for position, call in enumerate(expected.calls):
        kind = "write" if call.writes else "read"
        policies = f" for {escape(', '.join(call.policies))}" if call.policies else ""
        mark = "✓ made" if position in made else "✗ missed"
        items.append(f'<li class="{"made" if position in made else "missed"}"><code>'
                     f"{escape(one_line(call.text(), CALL_CHARS))}</code> "
                     f'<span class="tag">{kind}</span>{policies} <b>{mark}</b></li>')
    return f'<ol class="calls">{"".join(items)}</ol>'


def _forbidden(dialog: Dialog, expected: ExpectedOutcome, grade: OutcomeGrade) -> str:
    if not expected.forbidden:
        return ""
    calls = [call for message in dialog.transcript for call in message.tool_calls]
    items = []
    for number, forbidden in enumerate(expected.forbidden):
        broken = [call_text(calls[index].name, calls[index].arguments) for index, numbers in grade.breaking.items()
                  if number in numbers and index < len(calls)]
        state = f"✗ made {escape(one_line(broken[0], CALL_CHARS))}" if broken else "✓ not made"
        why = f": {escape(forbidden.reason)}" if forbidden.reason else ""
        by = escape(", ".join(forbidden.policies))
        items.append(f'<li class="{"missed" if broken else "made"}"><code>'
                     f"{escape(one_line(forbidden.text(), CALL_CHARS))}</code> by {by}{why} <b>{state}</b></li>")
    return f'<h5>Forbidden writes</h5><ul class="calls">{"".join(items)}</ul>'


def _outputs(grade: OutcomeGrade) -> str:
    if not grade.outputs:
        return ""
    items = "".join(f'<li class="{"made" if said else "missed"}">“{escape(output)}” '
                    f"<b>{'✓ said' if said else '✗ never said'}</b></li>" for output, said in grade.outputs.items())
    return f'<h5>Outputs</h5><ul class="calls">{items}</ul>'


def _calls_made(dialog: Dialog, expected: ExpectedOutcome, grade: OutcomeGrade) -> str:
    items = []
    position = 0
    for turn, message in enumerate(dialog.transcript):
        for call in message.tool_calls:
            css, mark = _made(call, position, grade)
            position += 1
            link = f'<a href="#turn-{escape(dialog.id)}-{turn}">turn {turn}</a>'
            text = escape(one_line(call_text(call.name, call.arguments), CALL_CHARS))
            items.append(f'<li class="{css}">{link} <code>{text}</code> <b>{mark}</b></li>')
    if not items:
        return '<p class="muted">none: the chatbot called no tool</p>'
    return f'<ol class="calls">{"".join(items)}</ol>'


def _made(call: ToolCall, position: int, grade: OutcomeGrade) -> tuple[str, str]:
    """How the dialog's call at `position` stands against the outcome, as its grade found: its class and mark."""
    if call.reported:
        return "other", "reported only: it did not run"
    if call.failed:
        return "other", "error: it changed nothing"
    if position in grade.breaking:
        return "missed", "✗ forbidden"
    if position in grade.matched:
        return "made", "✓ expected"
    if call_text(call.name, call.arguments) in grade.unexpected:
        return "missed", "✗ not expected"
    return "other", "a look-up the outcome does not need"


def _differs(grade: OutcomeGrade) -> str:
    if not grade.diff:
        return ""
    items = "".join(f"<li>{escape(record)}</li>" for record in grade.diff)
    return f'<h5>Records that differ from the expected end state</h5><ul class="differs">{items}</ul>'
