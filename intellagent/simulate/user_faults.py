"""What a program can tell of a simulated user's faults from its dialog: each fault with its turn and the words
that show it, with no model call.

- **invented**: a message states an id, code of the world, dollar amount or date (read as the chatbot's
  grounding check reads them, `checks.grounding`), or introduces the user by a name, that neither its
  scenario, the rows it knows, nor the chatbot's earlier messages hold; a user whose persona is inexact
  (`Persona.inexact`: it gets a detail of its own wrong on purpose) may state one of its own details slightly
  wrong (`MISREMEMBERED`), which is its part;
- **contradicted_goal**: a message takes back what the scenario says the user wants ("I don't want to
  cancel it" from a user who wants to cancel);
- **narrated**: a message tells of the customer in the third person ("The customer provides his name"),
  labels its speaker, or writes stage directions;
- **spoke_as_agent**: a message asks the agent's questions or offers the agent's help ("What's the ID you
  want to update?", "let me look that up for you");
- **stopped_early**: the user ended the conversation before saying what it wanted, or while the chatbot's
  last message still asked it something or announced work under way, with no verdict the critique confirmed
  (a confirmed verdict is a stop the critique, reading the policy, found there was enough to judge: "Shall
  I cancel it?" is where a user testing confirmation stops);
- **gave_up**: the user could not write a turn of its own (it kept echoing the agent or itself, or its model's
  answer never fitted), and the dialog ended there.

Each message's faults are told before it is sent too (`simulate.drafts`): a draft at fault is drawn again, so
these count what got through.

The patterns speak of roles (customer, user, agent), never of a domain.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

from intellagent.artifacts import Dialog, Event, Message, UserFault, UserFaultKind
from intellagent.artifacts.dialogs import USER_CUT_SHORT
from intellagent.checks.builtin import UNDER_WAY
from intellagent.checks.grounding import NO_WORLD, Grounds, WorldFacts, stated_facts
from intellagent.checks.sentences import first_sentence, sentence_at
from intellagent.simulate.users import ended_by_user

MISREMEMBERED = 2
"""Characters by which a detail of the user's own may differ, in a detail as long, when its persona states its
details inexactly: a digit off, two digits swapped, a date's month and day mixed up."""

# A name the user gives itself: "my name is Ana Lopez", "I'm Ana". Capitalised words only, so that "I am
# ready" is no name.
_NAMED = re.compile(r"\b(?:my name is|I am|I'm|this is)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\b")

# What the scenario says the user wants to do: the verb after "wants to", "would like to", "needs to" ...
_WANTS = re.compile(r"\b(?:wants?|would like|needs?|wish(?:es)?|hopes?|plans?|intends?|tries|trying|going) to (\w+)",
                    re.IGNORECASE)
# Verbs too plain to name a goal: "wants to be sure" is no request.
_PLAIN = {"be", "have", "do", "get", "go", "make", "know", "see"}
# A want the scenario denies ("you do not want to fly before 11am"): saying so again is keeping to it.
_DENIED = re.compile(r"\b(?:not|never|no longer)\s+$|n't\s+$", re.IGNORECASE)
_TAKES_BACK = re.compile(
    r"\b(?:(?:do not|don'?t|no longer|not|never) (?:want|need|wish|plan|intend|mean|going|trying) to|"
    r"(?:please )?(?:do not|don'?t)) (\w+)",
    re.IGNORECASE,
)
_CHANGES_MIND = re.compile(r"\bchanged my mind\b", re.IGNORECASE)
# A scenario that has its user change its mind: then doing so is its part.
_MIND_MAY_CHANGE = re.compile(r"\bchange[sd]? (?:my|his|her|their|your) mind\b|\bno longer\b|\bdecides? not\b",
                              re.IGNORECASE)

_NARRATION = re.compile(
    r"\b(?:the|this) (?:customer|user|client|caller)(?:'s)? (?:(?:then|now|also|again|still|just) )?"
    r"(?:says|said|asks|asked|provides|provided|gives|gave|wants|wanted|replies|replied|responds|responded|"
    r"confirms|confirmed|explains|explained|states|stated|mentions|mentioned|thanks|agrees|requests|needs|"
    r"would|will|is|has|had|decides|tells|shares|answers|continues|repeats|insists|writes|types|waits|tries)\b"
    r"|^\s*(?:customer|user|client|agent|assistant|chatbot)\s*:"
    r"|[(\[*]\s*(?:smiles|sighs|nods|pauses|waits|laughs|frowns|thinks|shrugs|typing|types|hesitates|looks)\b",
    re.IGNORECASE | re.MULTILINE,
)

# What only the agent says: offering help, declining to assist, inviting more questions, asking the
# customer for their own records or doing the work on them. A small model playing the customer slips
# into the agent's part ("I'm sorry, but I don't have your user profile. Can you provide it?"), and a
# dialog in which both sides serve never reaches the customer's request.
AGENT_SPEAK = re.compile(
    r"\b(?:how (?:can|may) I (?:help|assist)|I(?:'m| am) here to (?:help|assist)|I can(?:not|'t)? assist|"
    r"(?:anything|something) else I can (?:help|do|assist)|feel free to (?:ask|reach out|contact)|"
    r"(?:happy|glad) to (?:help|assist) you|I (?:do not|don'?t) have your|"
    r"so (?:that )?I can (?:update|change|book|cancel|process|modify) (?:it|your|the)|"
    r"provide me with (?:the|your) (?:user|reservation|booking|account|profile))\b",
    re.IGNORECASE,
)

_AGENT_PART = re.compile(
    r"\bwhat(?:'s| is) (?:the|your) [\w ]{0,30}?(?:id|number|name|code) (?:that )?you\b"
    r"|\b(?:what|which) [\w ]{0,30}?would you like (?:me )?to\b"
    r"|\b(?:provide|give|tell|confirm|share) (?:me )?(?:with )?your (?:\w+ ){0,2}(?:id|number|details|code|email)\b"
    r"|\blet me (?:check|look (?:that|it|this) up|look into|pull up|verify|find)(?: that| it| this)? for you\b"
    r"|\bI(?:'ll| will| can) (?:check|look (?:that|it|this) up|look into|pull up) (?:that |it |this )?for you\b"
    r"|\b(?:is there|do you have) anything else\b|\bhow else can I\b",
    re.IGNORECASE,
)

# The chatbot still on the request: it asks the customer for something, or says it is working on it.
_ASKS = re.compile(
    r"\b(?:please|kindly) (?:provide|give|confirm|share|tell|send|specify|let me know)\b"
    r"|\bI(?:'ll| will)? need (?:your|the|you to)\b"
    r"|\b(?:could|can|would) you (?:please )?(?:provide|give|confirm|share|tell|send|specify)\b",
    re.IGNORECASE,
)
# A question that offers help in general ("anything else?", "what would you like to do?") rather than asks for
# what the request needs.
_OPEN_OFFER = re.compile(
    r"\b(?:anything else|something else|any other|any more|further (?:help|assist|questions?))\b"
    r"|\bhow (?:else )?(?:can|may) I (?:help|assist)\b"
    r"|\bwhat (?:else )?(?:would you like|can I do for you|do you (?:want|need))(?: (?:me )?to do)?(?: today)?\s*\?",
    re.IGNORECASE,
)


def program_faults(event: Event, dialog: Dialog, world: WorldFacts = NO_WORLD) -> list[UserFault]:
    """The faults a program can tell in a dialog's user, in transcript order.

    Args:
        event: what the user was given: its scenario, expected behaviour and known rows.
        dialog: the dialog played.
        world: what tells the facts of the event's world in the user's words.
    """
    given = [event.scenario, event.expected_behaviour, json.dumps(event.user_rows, ensure_ascii=False),
             *([event.claim.statement] if event.claim else [])]  # a false claim is the user's part, not an invention
    own_details = stated_facts("\n".join(given), world) if event.persona and event.persona.inexact else []
    goals = _goals(event.scenario)
    mind_may_change = bool(_MIND_MAY_CHANGE.search(event.scenario))
    faults: list[UserFault] = []
    told: list[str] = []  # what the chatbot said so far
    stated: set[str] = set()  # facts already counted: a repeated invention is one fault
    for turn, message in enumerate(dialog.transcript):
        if message.role == "chatbot":
            told.append(message.content)
            continue
        told += [call.result or "" for call in message.tool_calls]  # what its own tools showed it is known to it
        message = _own_words(message)
        invented = [fact for fact in _invented(message.content, Grounds([*given, *told]), world)
                    if fact not in stated and not _misremembered(fact, own_details)]
        stated.update(invented)
        if invented:
            faults.append(UserFault(kind="invented", turn=turn, evidence=f"stated {', '.join(invented)}, which its "
                                    "scenario, its known rows, the chatbot's messages and its own tools do not hold"))
        faults += _message_faults(message, turn, goals, mind_may_change=mind_may_change)
    faults += _ending_faults(dialog)
    return faults


def _own_words(message: Message) -> Message:
    """A user message without the words its persona's moves added to it: the framework wrote them (an injection
    persona's note to the agent, a pressing user's threat), so they are no fault of the simulated user."""
    content = message.content
    for move in message.moves:
        if move.injected:
            content = content.replace(move.text, " ")
    return message if content == message.content else message.model_copy(update={"content": content.strip()})


def _misremembered(fact: str, details: list[str]) -> bool:
    """Whether `fact` is one of `details` stated slightly wrong: as long, and `MISREMEMBERED` characters apart at
    most."""
    return any(len(fact) == len(detail) and sum(a != b for a, b in zip(fact.lower(), detail.lower(), strict=True))
               <= MISREMEMBERED for detail in details)


def _goals(scenario: str) -> set[str]:
    """The verbs of what the scenario says its user wants. A verb it also denies is left out: "you want to fly to
    Seattle; you do not want to fly before 11am" makes "I don't want to fly before 11am" no reversal."""
    wanted: set[str] = set()
    denied: set[str] = set()
    for found in _WANTS.finditer(scenario):
        negated = _DENIED.search(scenario[max(0, found.start() - 12):found.start()])
        (denied if negated else wanted).add(found.group(1).lower())
    return wanted - denied - _PLAIN


def _invented(message: str, grounds: Grounds, world: WorldFacts) -> Iterator[str]:
    yield from grounds.ungrounded(message, world)
    known = grounds.text.lower()
    for name in _NAMED.findall(message):
        if not any(re.search(rf"\b{re.escape(word.lower())}\b", known) for word in name.split()):
            yield name


def _message_faults(message: Message, turn: int, goals: set[str], *, mind_may_change: bool) -> list[UserFault]:
    """The faults of one user message besides invented facts: at most one of each kind."""
    text = message.content
    faults = []
    taken_back = next((m for m in _TAKES_BACK.finditer(text) if m.group(1).lower() in goals), None)
    if taken_back is None and not mind_may_change:
        taken_back = _CHANGES_MIND.search(text)
    if taken_back is not None:
        faults.append(UserFault(kind="contradicted_goal", turn=turn, evidence=sentence_at(text, taken_back.start())))
    for kind, evidence in _voice_faults(text):
        if not any(fault.kind == kind for fault in faults):
            faults.append(UserFault(kind=kind, turn=turn, evidence=evidence))
    return faults


_VOICE: tuple[tuple[UserFaultKind, re.Pattern[str]], ...] = (
    ("narrated", _NARRATION), ("spoke_as_agent", AGENT_SPEAK), ("spoke_as_agent", _AGENT_PART))
"""The ways a message leaves the customer's voice, and the patterns that tell them."""


def _voice_faults(text: str) -> Iterator[tuple[UserFaultKind, str]]:
    for kind, pattern in _VOICE:
        found = pattern.search(text)
        if found:
            yield kind, sentence_at(text, found.start())


ECHO_LENGTH = 20
"""Characters under which a message may well recur in the agent's words ("yes", "thank you") without being an echo."""


def repeated(text: str, *, agent_said: Sequence[str], user_said: Sequence[str]) -> str | None:
    """How one message repeats what was said before it, if it does: "repeats the agent's words" (it is contained in
    one of the agent's messages) or "repeats a message you already sent"."""
    message = _words(text)
    if len(message) < ECHO_LENGTH:
        return None
    if any(message in _words(said) for said in agent_said):
        return "repeats the agent's words"
    if message in {_words(said) for said in user_said}:
        return "repeats a message you already sent"
    return None


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def voice_fault(text: str) -> tuple[UserFaultKind, str] | None:
    """The first way one message leaves the customer's voice (it narrates, or speaks as the agent), with the sentence
    that shows it; None when it speaks as the customer."""
    return next(_voice_faults(text), None)


def still_on_request(chatbot_message: str) -> str | None:
    """The sentence of a chatbot's message that asks the customer for something or announces work under way, if one
    does: a customer that ends the conversation there leaves before the chatbot could finish."""
    return first_sentence(chatbot_message, _still_on_request)


def _ending_faults(dialog: Dialog) -> list[UserFault]:
    """A user that could not go on, or that ended the conversation while the chatbot was still on its request."""
    end = len(dialog.transcript)
    if dialog.reason.startswith(USER_CUT_SHORT):
        return [UserFault(kind="gave_up", turn=end, evidence=dialog.reason)]
    if not ended_by_user(dialog.status, dialog.reason) or _vetted(dialog):
        return []
    if not any(message.role == "user" for message in dialog.transcript):
        return [UserFault(kind="stopped_early", turn=end, evidence="ended the conversation before saying what it "
                          "wanted")]
    last = dialog.transcript[-1]
    pending = first_sentence(last.content, _still_on_request) if last.role == "chatbot" else None
    if pending is None:
        return []
    return [UserFault(kind="stopped_early", turn=end, evidence=f'ended the conversation while the chatbot was still '
                      f'on its request: "{pending}"')]


def _vetted(dialog: Dialog) -> bool:
    """Whether the user's last stop was a verdict the critique checked and let stand."""
    last = dialog.critiques[-1] if dialog.critiques else None
    return last is not None and last.confirmed and last.checked


def _still_on_request(sentence: str) -> bool:
    """Whether a sentence of the chatbot asks the customer for something or announces work under way (an open
    offer of help, "anything else?", does not)."""
    asks = sentence.rstrip().endswith("?") and not _OPEN_OFFER.search(sentence)
    return asks or bool(_ASKS.search(sentence) or UNDER_WAY.search(sentence))
