"""A simulated user's message checked before it is sent: what the audit would find at fault in it, drawn again.

The audit (`user_faults`) reads a finished dialog for its user's faults, and a dialog whose user was at fault is
kept out of the chatbot's figures. Most of those faults can be told in one draft, before the chatbot ever sees it:
a message that repeats the agent's words or the user's own, pastes its private instruction, narrates or speaks as
the agent, and a stop while the agent is still on the request (it asked something, or said it is working on it)
or before the user said what it wants. One more is not the audit's: a first message that names none of the records
its request is about, where the user knows their ids (`outcomes.facts.request_ids`), leaves a chatbot nothing to
look up, and the dialog tests nothing of it. Such a draft is sent back with its fault named, a bounded number of times
(the dialog graph's user node). Past the bound, a draft that only repeats what was said ends the dialog, its user
unable to go on (sent, it could not move the conversation); any other is sent as it is, and the audit counts what
got through.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from intellagent.artifacts import Event
from intellagent.prompt_files import prompt_text
from intellagent.simulate.turns import TaskUserTurn, UserTurn
from intellagent.simulate.user_faults import pending_request, repeated, voice_fault
from intellagent.value_shapes import named_in

COPIED_WORDS = 12
"""Words in a row a message may share with the user's private instruction before it is pasting it: a τ-bench user
names the same airports and dates, but not in the instruction's own sentences."""

VOICE_WORDS = {"narrated": "narrates instead of speaking as the customer",
               "spoke_as_agent": "speaks as the agent, not as the customer"}


@dataclass(frozen=True)
class DraftFault:
    """What is wrong with a draft.

    Attributes:
        problem: in words addressed to the user, as its redraft note quotes them.
        repeats: it only repeats what was said (the agent's words, the user's own, its private instruction).
        added: what a program adds to the draft instead of drawing it again, where the fault is only something left
            out that the event knows (the record's id).
    """

    problem: str
    repeats: bool = False
    added: str = ""


def draft_fault(turn: UserTurn | TaskUserTurn, *, agent_said: Sequence[str], user_said: Sequence[str] = (),
                private: str = "", may_go_on: bool = True, request_ids: Sequence[str] = ()) -> DraftFault | None:
    """What is wrong with a user's draft, or None.

    Args:
        turn: the draft.
        agent_said: the agent's messages so far.
        user_said: the messages the user sent so far.
        private: what only the user knows, which its messages must not paste.
        may_go_on: the conversation may go on past this turn (it is not the user's last, and the chatbot did not
            end it): only then is a stop early.
        request_ids: the ids of the records the user's request is about, one of which its first message names (none:
            the first message is not asked for one).
    """
    if turn.stops:
        early = _early(agent_said, user_said) if may_go_on else None
        return DraftFault(early) if early else None
    voice = voice_fault(turn.message)
    if voice is not None:
        kind, evidence = voice
        return DraftFault(f'{VOICE_WORDS[kind]} ("{evidence}")')
    again = repeated(turn.message, agent_said=agent_said, user_said=user_said)
    if again is None and private and _runs(_words(turn.message)) & _runs(_words(private)):
        again = "copies your private instruction word for word"
    if again is not None:
        return DraftFault(again, repeats=True)
    return _unnamed(turn.message, request_ids) if not user_said else None


def _early(agent_said: Sequence[str], user_said: Sequence[str]) -> str | None:
    """Why a stop comes too early, if it does."""
    if not user_said:
        return "ends the conversation before you said what you want"
    pending = pending_request(agent_said[-1]) if agent_said else None
    if pending is not None:
        return f'ends the conversation while the agent is still on your request ("{pending}"): answer it first'
    return None


def _unnamed(message: str, request_ids: Sequence[str]) -> DraftFault | None:
    """A first message that names none of `request_ids` (case aside, each a whole token), with the one to give."""
    if not request_ids or any(named_in(message, found) for found in request_ids):
        return None
    # Added, not asked for: told twice to name it, the embedded model left it out of both redraws.
    return DraftFault(f"does not name the record your request is about ({request_ids[0]})",
                      added=_reference(request_ids))


def restatement(event: Event, request_ids: Sequence[str], *, user_said: Sequence[str]) -> str | None:
    """The user's request said again in its own words, for a user whose every draft only repeated what was said:
    once a dialog, and only where the event says what the user is entitled to (else None: it cannot go on)."""
    if event.entitled is None:
        return None
    request = event.entitled.request.strip().rstrip(".") + "."
    # "Cancel order A1" needs no reference after it.
    named = not request_ids or any(named_in(request, found) for found in request_ids)
    message = " ".join([prompt_text("simulate/user_restated", request=request),
                        *([] if named else [_reference(request_ids)])])
    # Sent, a persona's move may have been added to it: it counts as said when a message holds it.
    return None if any(message in said for said in user_said) else message


def _reference(request_ids: Sequence[str]) -> str:
    return prompt_text("simulate/user_reference", reference=request_ids[0])


def _runs(words: str) -> set[tuple[str, ...]]:
    """Every run of `COPIED_WORDS` words in a row."""
    tokens = words.split()
    return {tuple(tokens[i:i + COPIED_WORDS]) for i in range(len(tokens) - COPIED_WORDS + 1)}


def _words(text: str) -> str:
    return " ".join(text.lower().split())
