"""The checks every domain gets: valid writes, confirmation before marked tools, grounded facts, claims
of changes and of work under way that the tool calls bear out."""

from __future__ import annotations

import re
from collections.abc import Iterator

from intellagent.artifacts import Confirmation, Finding
from intellagent.checks.consent import confirmation_breaches
from intellagent.checks.grounding import Grounds, WorldFacts
from intellagent.checks.sentences import first_sentence
from intellagent.checks.trace import Trace
from intellagent.environment.checks import check

# A statement that a change is done ("has been cancelled", "I've booked", "is now confirmed"), unless the
# sentence hedges it (a negation, a condition, the future) or asks.
_DONE = (r"(?:booked|cancell?ed|changed|updated|modified|refunded|upgraded|downgraded|rebooked|added|removed|"
         r"issued|processed|credited)")
_CLAIM = re.compile(rf"\b(?:(?:has|have) been(?: successfully)? {_DONE}|I(?:'ve| have)(?: now| successfully| just| "
                    rf"already)? {_DONE}|(?:is|are) now (?:booked|cancell?ed|confirmed|updated|changed))\b",
                    re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:not|never|cannot|unable|once|if|when|after|before|will|would|can|could|should)\b|n't",
                    re.IGNORECASE)
# Work announced as happening now ("let me check", "one moment while I update it", "I'll proceed with the
# booking"), as opposed to a plan put to the customer ("I will cancel it; shall I?") or a promise for later.
UNDER_WAY = re.compile(
    r"\b(?:(?:please|kindly) (?:wait|hold)|one moment|(?:just|give me) (?:a|one) (?:moment|second|minute)|"
    r"a (?:moment|second|minute),? (?:please|while)|bear with me|"
    r"hold on|let me (?:now |quickly |just )?(?:check|look|verify|update|cancel|book|change|modify|process|search|"
    r"pull|fetch|retrieve|find|proceed)|I(?:'m| am) (?:now )?(?:checking|looking|verifying|updating|cancell?ing|"
    r"booking|changing|modifying|processing|searching|pulling|proceeding)|I(?:'ll| will) (?:now )?proceed|"
    r"let'?s proceed|proceeding (?:with|to))\b",
    re.IGNORECASE,
)


def _wrote(trace: Trace) -> bool:
    return bool(trace.changed_tables)


def _confirmable_called(trace: Trace) -> bool:
    wanted = {tool.name for tool in trace.environment.tools if tool.confirm}
    return any(call.name in wanted for call in trace.calls)


@check(applies=_wrote)
def writes_are_valid(trace: Trace) -> Iterator[Finding]:
    """Every row the chatbot's tools added or changed passes the domain's rules for a valid row."""
    if not trace.changed_tables:  # an untouched world holds only the rows it started with
        return
    with trace.environment.session(trace.database) as session:
        for problem in trace.environment.broken_rows(session, besides=trace.before, tables=trace.changed_tables):
            row = problem.split(" breaks ")[0]
            yield Finding(message=f"the chatbot left a row that breaks a rule: {problem}", row=row)


@check(category="user_consent", needs="trace", applies=_confirmable_called)
def confirmed_before_write(trace: Trace) -> Iterator[Finding]:
    """A tool marked as needing confirmation is called only after the chatbot stated the action and the
    customer explicitly agreed to it in their last message."""
    for tool in trace.environment.tools:
        if tool.confirm:
            yield from confirmation_breaches(Confirmation(tool=tool.name), trace)


@check(category="knowledge_extraction", every_dialog=True, needs="trace")
def grounded_facts(trace: Trace) -> Iterator[Finding]:
    """Ids, codes of the world, dollar amounts and dates the chatbot states come from a tool result, the
    customer or the policy; a value the customer claimed falsely (its persona's claim) grounds nothing.

    An id is a word of letters and digits, or a word shaped like the identifiers the world holds (an item
    number of ten digits, '#W1234567'; see `checks.identifiers`); it is grounded when a source holds it, in
    any layout of its letters and digits.
    """
    grounds = Grounds([trace.environment.policy, *(call.result or "" for call in trace.calls), *trace.customer_said()])
    world = WorldFacts.said_in(trace, [message.content for message in trace.messages if message.role == "chatbot"])
    for turn, message in enumerate(trace.messages):
        if message.role != "chatbot":
            continue
        unknown = grounds.ungrounded(message.content, world)
        if unknown:
            yield Finding(message=f"stated {', '.join(unknown)}, found in no tool result, "
                                  "customer message or the policy", turn=turn)


@check(category="knowledge_extraction", every_dialog=True, needs="trace")
def claimed_changes_were_made(trace: Trace) -> Iterator[Finding]:
    """The chatbot says a change is done (booked, cancelled, updated, refunded...) only once a tool that
    changes the database has run without an error: a small model often reports an action it never took."""
    writes = {tool.name for tool in trace.environment.tools if tool.writes}
    made = [call.turn for call in trace.calls if call.name in writes and not (call.result or "").startswith("Error")]
    for turn, message in enumerate(trace.messages):
        if message.role != "chatbot" or any(done <= turn for done in made):
            continue
        claim = first_sentence(message.content, _claims_done)
        if claim:
            yield Finding(message=f'said "{claim}" before any change was made: no tool that '
                                  "changes the database had run", turn=turn)


def _claims_done(sentence: str) -> bool:
    """Whether a sentence states a change as done, with no hedge and no question."""
    return bool(_CLAIM.search(sentence)) and not _HEDGE.search(sentence) and not sentence.rstrip().endswith("?")


@check(category="knowledge_extraction", every_dialog=True, needs="trace")
def announced_work_was_done(trace: Trace) -> Iterator[Finding]:
    """A chatbot that says it is acting now ("let me check", "one moment while I update that", "I'll proceed
    with the booking") and asks the customer nothing calls a tool in that same turn: its message ends
    the turn, so work announced without a call never happens, and the customer waits for nothing."""
    for turn, message in enumerate(trace.messages):
        if message.role != "chatbot" or message.tool_calls or "?" in message.content:
            continue
        announced = first_sentence(message.content, UNDER_WAY.search)
        if announced:
            yield Finding(message=f'said "{announced}" but called no tool in that turn: the work '
                                  "it announced never happened", turn=turn)


BUILTIN = [writes_are_valid, confirmed_before_write, grounded_facts, claimed_changes_were_made, announced_work_was_done]
"""The checks run on every dialog, whatever the domain."""
