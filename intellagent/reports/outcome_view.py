"""The report page's view of the outcome grade: its headline figure, its section (per flow, per tool, per
challenge level, pass^k, the events without a verified outcome) and, in each dialog's card, the expected
calls beside the calls made.

Calls, arguments, outputs and reasons were written by a model or by the chatbot under test: every piece
of text goes through `escape` and lands in an element as text.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts import Dialog, Event, ExpectedOutcome, OutcomeGrade, ToolCall
from intellagent.artifacts.outcomes import call_text
from intellagent.artifacts.report import CallScore, Outcomes, Rate
from intellagent.reports.charts import level_chart, pass_k_chart, rate_bars
from intellagent.reports.outcomes import dialog_outcome, left_ungraded, why_ungraded
from intellagent.reports.summary import agreement_text, call_scores
from intellagent.reports.text import counted, one_line, percent

CALL_CHARS = 240


def outcome_headline(outcomes: Outcomes | None) -> tuple[str, str]:
    """The headline card's figure and note (HTML): the outcome pass rate, or why there is none."""
    if outcomes is None:
        return "–", "this report's run recorded no expected outcomes"
    rate = outcomes.pass_rate
    if not rate.total:
        return "–", escape(why_ungraded(outcomes))
    return percent(rate.rate), escape(
        f"95% CI {percent(rate.low)}–{percent(rate.high)} · {rate.passed} of {counted(rate.total, 'graded dialog')}"
        f" · tool calls {call_scores(outcomes.calls)}"
    )


def outcome_section(outcomes: Outcomes) -> str:
    """The outcome grade's panel: what it measures, its figures per flow, tool and challenge level, and the events
    it could not grade."""
    rate = outcomes.pass_rate
    intro = (
        '<p class="hint">Every event carries an expected outcome: the calls a chatbot that keeps every sampled rule '
        "makes, the writes it must not make and the facts it must say, verified by running them on a copy of the "
        "event's world. A dialog earns the reward when its world ends as the expected calls leave it and every "
        "expected output was said; a call matches an expected one by tool and arguments, and precision, recall and "
        "F1 are over the summed counts. No judge enters these figures. "
        f"{outcomes.verified} of {counted(outcomes.events, 'event')} have a verified outcome.</p>"
    )
    if not rate.total:
        return (f'<section class="panel" id="outcomes"><h2>Outcome grade</h2>{intro}'
                f'<p class="empty">{escape(why_ungraded(outcomes).capitalize())}.</p>{_unverified(outcomes)}</section>')
    figures = [
        f"<b>{percent(rate.rate)}</b> of {counted(rate.total, 'graded dialog')} reached the expected outcome "
        f"(95% CI {percent(rate.low)}–{percent(rate.high)})",
        f"{outcomes.end_state.passed} ended in the expected world",
        f"{outcomes.forbidden_made} made a forbidden write",
        f"mean progress {'–' if outcomes.progress is None else f'{outcomes.progress:.2f}'}",
        f"tool calls {escape(call_scores(outcomes.calls))}",
    ]
    if outcomes.judge_agreement is not None:
        figures.append(agreement_text("outcome", outcomes.judge_agreement))
    apart = left_ungraded(outcomes)
    if apart:
        figures.append(f"{' and '.join(apart)}, not graded")
    flows = "".join(f"<tr><td>{escape(group.name)}</td>{_rate_cells(group.pass_rate)}{_score_cells(group.calls)}</tr>"
                    for group in outcomes.flows)
    bars = rate_bars([(group.name, group.pass_rate) for group in outcomes.flows], label="Outcome pass rate per flow",
                     empty="not graded")
    tools = "".join(f"<tr><td><code>{escape(tool)}</code></td><td>{score.recall.total}</td><td>{score.precision.total}"
                    f"</td><td>{score.precision.count}</td>{_score_cells(score)}</tr>"
                    for tool, score in outcomes.tools.items())
    return (
        f'<section class="panel" id="outcomes"><h2>Outcome grade</h2>{intro}'
        f'<p class="outcome-figures">{" · ".join(figures)}</p>'
        '<div class="grid two"><div>'
        f'<h3 class="sub">Per flow</h3>{bars}'
        '<table class="compact"><thead><tr><th>Flow</th><th>Reward</th><th>95% CI</th><th>P</th><th>R</th><th>F1</th>'
        f"</tr></thead><tbody>{flows}</tbody></table>"
        f'<h3 class="sub">Per tool</h3><table class="compact"><thead><tr><th>Tool</th><th>Expected</th>'
        "<th>Made</th><th>Matched</th><th>P</th><th>R</th><th>F1</th></tr></thead>"
        f'<tbody>{tools or "<tr><td colspan=7>no call expected or made</td></tr>"}</tbody></table></div>'
        f'<div><h3 class="sub">Against challenge level</h3><p class="hint">Graded dialogs at or above each level.</p>'
        f"{level_chart(outcomes.challenge_levels)}{_pass_k(outcomes)}</div></div>{_unverified(outcomes)}</section>"
    )


def _rate_cells(rate: Rate) -> str:
    if rate.rate is None:
        return '<td class="muted">not graded</td><td></td>'
    return (f"<td>{percent(rate.rate)} ({rate.passed}/{rate.total})</td>"
            f"<td>{percent(rate.low)}–{percent(rate.high)}</td>")


def _score_cells(score: CallScore) -> str:
    return "".join(f"<td>{'–' if value is None else f'{value:.2f}'}</td>"
                   for value in (score.precision.rate, score.recall.rate, score.f1))


def _pass_k(outcomes: Outcomes) -> str:
    if not outcomes.pass_k:
        return ""
    return (f'<h3 class="sub">Repeated trials: pass^k over the rewards</h3><p class="hint">The chance that all k '
            "graded trials of an event reach the expected outcome (τ-bench's estimate, averaged over events).</p>"
            f"{pass_k_chart(outcomes.pass_k)}")


def _unverified(outcomes: Outcomes) -> str:
    if not outcomes.unverified:
        return ""
    items = "".join(f'<li><a href="#dialog-{escape(event.id)}"><code>{escape(event.id)}</code></a> '
                    f"{escape(one_line(event.reason, 300))}</li>" for event in outcomes.unverified)
    return (f'<h3 class="sub">Events without a verified outcome</h3><p class="hint">Their dialogs are judged by the '
            f'checks and the judge alone.</p><ul class="unverified">{items}</ul>')


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
