"""The expected outcome's verdicts on a dialog's policies: the strongest of the three sources.

An event's expected outcome names the sampled policies behind each write a rule-keeping chatbot makes
(`ExpectedCall.policies`) and behind each write it must not make (`ForbiddenCall.policies`); the dialog's
grade (`Dialog.grade`) says what the chatbot did instead. For each policy of the dialog's scenario that
requires or forbids a write:

- **a forbidden write made** breaks the policies that forbid it, with the call at fault and its turn,
  however the dialog ended: the write happened;
- **an expected write made with other arguments** (the chatbot called the same tool, the call ran, and
  the world did not end as expected) breaks the policies that require it, with the call made and the
  records that differ, however the dialog ended;
- **an expected write never made** breaks them, with the expected call and the records that differ,
  but only where the outcome speaks (below);
- an expected write missed while the world ended as expected all the same (the same change by another
  path) breaks nothing: the end state is the outcome's evidence;
- where the outcome speaks and none of the above happened, the policy held.

The outcome **speaks** where the chatbot had its chance: in a dialog that ran (not `error`), in which the
simulated user spoke and was not cut short by its own failure. A user that cannot write a usable turn
ends the dialog `incomplete` ("the simulated user could not go on"); it may never have asked for what
the outcome expects, so a write not made there is neither a breach nor a hold, while what the chatbot
did do still counts. Every other ending speaks: the user's verdict, the chatbot's close, τ-bench's stop,
and running out of turns (`simulate.max_turns`), as τ-bench grades an episode that reached its step limit.

Reads are never decided here: a look-up missed never costs the reward, and a chatbot may know what it
needs another way; the judge rules on the policies behind them. Outputs not said cost the dialog its
reward in the outcome figures, but name no policy, so they decide none.
"""

from __future__ import annotations

from typing import NamedTuple

from intellagent.artifacts import Dialog, ExpectedOutcome, OutcomeGrade, ToolCall, Violation
from intellagent.artifacts.dialogs import USER_CUT_SHORT
from intellagent.artifacts.outcomes import call_text
from intellagent.reports.text import one_line

# Records that differ, as a violation cites them: the first few, enough to see where to look.
DIFF_SHOWN = 3
REASON_CHARS = 400


class OutcomeRuling(NamedTuple):
    """What the expected outcome decided in a dialog: the policies it ruled on, and those it found broken."""

    decided: list[str]
    violations: list[Violation]


def outcome_speaks(dialog: Dialog) -> bool:
    """Whether the chatbot had its chance in the dialog, so that a write it did not make is its own doing."""
    if dialog.status == "error" or not any(message.role == "user" for message in dialog.transcript):
        return False
    return not (dialog.status == "incomplete" and dialog.reason.startswith(USER_CUT_SHORT))


def outcome_ruling(dialog: Dialog, expected: ExpectedOutcome | None) -> OutcomeRuling:
    """The outcome's verdicts on the dialog's sampled policies (none when the event has no verified outcome or the
    dialog no grade), one violation per policy, in the dialog's policy order."""
    grade = dialog.grade
    if expected is None or grade is None:
        return OutcomeRuling([], [])
    speaks = outcome_speaks(dialog)
    ran = calls_that_ran(dialog)
    found: dict[str, Violation] = {}
    for policy, violation in [*_forbidden_made(grade, expected, dialog), *_writes_missed(grade, expected, ran, speaks)]:
        if policy in dialog.policies:
            found.setdefault(policy, violation)
    behind = {p for call in expected.calls if call.writes for p in call.policies}
    behind |= {p for call in expected.forbidden for p in call.policies}
    decided = [p for p in dialog.policies if p in found or (speaks and p in behind)]
    return OutcomeRuling(decided, [found[p] for p in dialog.policies if p in found])


def calls_that_ran(dialog: Dialog) -> list[tuple[int, ToolCall]]:
    """The calls that ran on the dialog's world without an error (the chatbot's, and the user's own where it has
    tools), with their transcript index."""
    return [(turn, call) for turn, message in enumerate(dialog.transcript) for call in message.tool_calls
            if not call.reported and not call.failed]


def _forbidden_made(
    grade: OutcomeGrade, expected: ExpectedOutcome, dialog: Dialog
) -> list[tuple[str, Violation]]:
    """A violation of each policy that forbids a write the chatbot made, as its grade found them."""
    calls = [(turn, call) for turn, message in enumerate(dialog.transcript) for call in message.tool_calls]
    broken = []
    for position, numbers in grade.breaking.items():
        turn, call = calls[position] if position < len(calls) else (None, None)
        made = call_text(call.name, call.arguments) if call is not None else "a forbidden write"
        for number in numbers:
            forbidden = expected.forbidden[number]
            why = f": {forbidden.reason}" if forbidden.reason else ""
            reason = one_line(f"made {made}, a write the expected outcome forbids{why}", REASON_CHARS)
            broken += [(policy, Violation(policy=policy, turn=turn, reason=reason, source="outcome", call=made))
                       for policy in forbidden.policies]
    return broken


def _writes_missed(
    grade: OutcomeGrade, expected: ExpectedOutcome, ran: list[tuple[int, ToolCall]], speaks: bool
) -> list[tuple[str, Violation]]:
    """A violation of each policy that requires an expected write the chatbot made otherwise, or (where the outcome
    speaks) never made; none when the world ended as expected all the same."""
    if grade.state_match:
        return []
    writes = {call.text(): call for call in expected.calls if call.writes}
    differs = _differs(grade.diff)
    broken = []
    for missed in grade.missed:
        call = writes.get(missed)
        if call is None:
            continue
        instead = [(turn, made) for turn, made in ran
                   if made.name == call.tool and call_text(made.name, made.arguments) in grade.unexpected]
        if instead:
            turn, made = instead[0]
            shown = call_text(made.name, made.arguments)
            reason, at, evidence = f"made {shown} where the expected outcome makes {missed}", turn, shown
        elif speaks:
            reason, at, evidence = f"never made {missed}, which the expected outcome makes", None, missed
        else:
            continue
        if differs:
            reason += f"; the world differs in {differs}"
        broken += [(policy, Violation(policy=policy, turn=at, reason=one_line(reason, REASON_CHARS), source="outcome",
                                      call=evidence, row=differs or None)) for policy in call.policies]
    return broken


def _differs(diff: list[str]) -> str:
    """The records that differ from the expected end state, the first few."""
    more = f" and {len(diff) - DIFF_SHOWN} more" if len(diff) > DIFF_SHOWN else ""
    return "; ".join(diff[:DIFF_SHOWN]) + more
