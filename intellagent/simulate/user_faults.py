"""What a program can tell of a simulated user's faults from its dialog: each fault with its turn and the words
that show it, with no model call.

- **invented**: a message states an id, code of the world, dollar amount or date (read as the chatbot's
  grounding check reads them, `checks.grounding`), or introduces the user by a name, that neither its
  scenario, the rows it knows, nor the chatbot's earlier messages hold (a date they spell out is held; a
  persona that gets its details wrong on purpose, `Persona.inexact`, may state one a slip away from a known
  one: a digit off, two swapped, a date's month and day mixed up);
- **contradicted_goal**: a message takes back what the scenario says the user wants ("I don't want to
  cancel it" from a user who wants to cancel), unless the same sentence still asks for it ("cancel R1 but
  don't cancel R2"), the words taken back are about another thing than the goal (an id the goal does not
  name), or they decline more of the same ("nothing else to cancel");
- **narrated**: a message tells of the customer in the third person ("The customer provides his name"),
  labels its speaker, or writes stage directions;
- **spoke_as_agent**: a message asks the agent's questions or offers the agent's help ("What's the ID you
  want to update?", "let me look that up for you", "is there anything else I can help you with?"); a
  customer's own question ("is there anything else I need to do?") is not one;
- **stopped_early**: the user ended the conversation before saying what it wanted, or while the chatbot's
  last message still asked it something or announced work under way, with no verdict the critique confirmed
  (a confirmed verdict is a stop the critique, reading the policy, found there was enough to judge: "Shall
  I cancel it?" is where a user testing confirmation stops);
- **gave_up**: the user could not write a turn of its own (it kept echoing the agent or itself, or its model's
  answer never fitted), and the dialog ended there.

Each message's faults are told before it is sent too (`simulate.drafts`, by the same detectors and `repeated`): a
draft at fault is drawn again, so these count what got through.

The words a persona's moves put in a message, whoever wrote them, are the persona's part and never read as a
fault. Each detector of one message is a public function over that message's text and what it needs of its
context (`narration`, `agent_speech`, `goal_reversal`, `inventions`, and `pending_request` on the chatbot's
last message), so that a message can be checked alone, before it is sent, by the same reading. The patterns
speak of roles (customer, user, agent), never of a domain.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from intellagent.artifacts import Dialog, Event, Message, UserFault, UserFaultKind
from intellagent.artifacts.dialogs import USER_CUT_SHORT
from intellagent.checks.builtin import UNDER_WAY
from intellagent.checks.grounding import NO_WORLD, Grounds, WorldFacts
from intellagent.checks.sentences import SENTENCE_END, first_sentence, sentence_at
from intellagent.simulate.users import ended_by_user

# A name the user gives itself: "my name is Ana Lopez", "I'm Ana". Capitalised words only, so that "I am
# ready" is no name.
_NAMED = re.compile(r"\b(?:my name is|I am|I'm|this is)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\b")

# What the scenario says the user wants to do: the verb after "wants to", "would like to", "needs to" ... and
# what it wants done, up to the end of the clause.
_WANTS = re.compile(r"\b(?:wants?|would like|needs?|wish(?:es)?|hopes?|plans?|intends?|tries|trying|going) to (\w+)"
                    r"([^.;,!?\n]*?)(?=\s+(?:and|but|or|then|because|so)\b|[.;,!?\n]|$)", re.IGNORECASE)
# Verbs too plain to name a goal: "wants to be sure" is no request.
_PLAIN = {"be", "have", "do", "get", "go", "make", "know", "see"}
# A want the scenario denies ("you do not want to fly before 11am"): saying so again is keeping to it.
_DENIED = re.compile(r"\b(?:not|never|no longer)\s+$|n't\s+$", re.IGNORECASE)
_TAKES_BACK = re.compile(
    r"\b(?:(?:do not|don'?t|no longer|not|never) (?:want|need|wish|plan|intend|mean|going|trying) to|"
    r"(?:please )?(?:do not|don'?t)) (\w+)([^.;,!?\n]*)",
    re.IGNORECASE,
)
# A negation just before a verb: "don't cancel", "not to cancel".
_NEGATED_BEFORE = re.compile(r"\b(?:not|never|no longer|n't)(?:\s+\w+){0,3}\s*$", re.IGNORECASE)
# Words taken back that decline more of the same, not the goal: "I don't need to cancel anything else".
_FURTHER = re.compile(r"^\s*(?:(?:anything|any|something) (?:else|more|other)|another|more)\b", re.IGNORECASE)
# What names one thing among others in the words taken back: a word with a digit ("R2", "ZFA04Y").
_NAMES_ONE = re.compile(r"\b(?=\w*\d)\w{2,}\b")
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
    r"\bwhat(?:'s| is) (?:the|your) [\w ]{0,30}?(?:id|number|name|code) (?:that )?you(?:'d| would)? "
    r"(?:want|like|need|wish)\b"
    r"|\b(?:what|which) [\w ]{0,30}?would you like to\b"
    r"|\b(?:provide|give|tell|confirm|share) (?:me )?(?:with )?your (?:\w+ ){0,2}(?:id|number|details|code|email)\b"
    r"|\blet me (?:check|look (?:that|it|this) up|look into|pull up|verify|find)(?: that| it| this)? for you\b"
    r"|\bI(?:'ll| will| can) (?:check|look (?:that|it|this) up|look into|pull up) (?:that |it |this )?for you\b"
    r"|\b(?:is there|do you have) anything else (?:you(?:'d| would) like|you want(?: me)? to|you need(?! from me))\b"
    r"|\bdo you have any (?:other|more|further) questions\b|\bhow else can I\b"
    r"|\bwhile I (?:pull up|look up|check|review|find|verify) your\b",
    re.IGNORECASE,
)
# A customer asking what is left for it to do: the same words as the agent's offer, in the customer's part.
_CUSTOMER_ASKS = re.compile(
    r"\banything else (?:I|we) (?:can|could|should|need to|have to|must) (?:do|bring|send|provide|give|know)"
    r"(?! for you)\b|\banything else you need from me\b",
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

# The courtesies that close a conversation: thanks, a farewell, good wishes, an acknowledgement.
_COURTESY = re.compile(
    r"^\W*(?:(?:you(?:'re| are) (?:very |most )?welcome|"
    r"(?:thank you|thanks)(?: (?:so|very) much)?(?: for [\w' ]{1,40})?|"
    r"(?:have|enjoy) (?:a|your) (?:\w+ ){0,2}\w+|good ?bye|bye|take care|cheers|all the best|"
    r"I (?:fully )?understand|understood|no problem|of course|certainly|sure|"
    r"(?:I'm |I am )?(?:glad|happy) (?:I could|to|that I could|to have) (?:help|assist)(?:ed)?(?: you)?)\W*)+$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Goal:
    """What a scenario has its user want, as `goal_reversal` reads it.

    Attributes:
        objects: each verb of what the user wants, with the words with a digit its object names ("cancel" →
            {"ZFA04Y"}); a verb the scenario also denies is left out.
        mind_may_change: the scenario has its user change its mind, so that doing so is its part.
    """

    objects: dict[str, frozenset[str]]
    mind_may_change: bool = False

    @classmethod
    def of(cls, scenario: str) -> Goal:
        """The goal a scenario gives its user. A verb it also denies is left out: "you want to fly to Seattle;
        you do not want to fly before 11am" makes "I don't want to fly before 11am" no reversal."""
        wanted: dict[str, set[str]] = {}
        denied: set[str] = set()
        for found in _WANTS.finditer(scenario):
            verb = found.group(1).lower()
            if _DENIED.search(scenario[max(0, found.start() - 12):found.start()]):
                denied.add(verb)
            else:
                wanted.setdefault(verb, set()).update(_NAMES_ONE.findall(found.group(2)))
        return cls(objects={verb: frozenset(names) for verb, names in wanted.items()
                            if verb not in denied and verb not in _PLAIN},
                   mind_may_change=bool(_MIND_MAY_CHANGE.search(scenario)))


def narration(text: str) -> str | None:
    """The sentence of a user message that tells of the customer instead of speaking as it, labels its speaker or
    writes a stage direction, quoted; None when it speaks for itself."""
    found = _NARRATION.search(text)
    return sentence_at(text, found.start()) if found else None


def agent_speech(text: str) -> str | None:
    """The sentence of a user message that asks the agent's questions or offers the agent's help, quoted; None when
    it speaks as a customer (a customer asking what is left for it to do is one)."""
    for pattern in (AGENT_SPEAK, _AGENT_PART):
        for found in pattern.finditer(text):
            sentence = sentence_at(text, found.start())
            if not _CUSTOMER_ASKS.search(sentence):
                return sentence
    return None


def voice_fault(text: str) -> tuple[UserFaultKind, str] | None:
    """The first way one message leaves the customer's voice (it narrates, or speaks as the agent), with the sentence
    that shows it; None when it speaks as the customer."""
    narrated = narration(text)
    if narrated is not None:
        return "narrated", narrated
    as_agent = agent_speech(text)
    return ("spoke_as_agent", as_agent) if as_agent is not None else None


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


def goal_reversal(text: str, goal: Goal) -> str | None:
    """The sentence of a user message that takes back what its scenario wants, quoted; None when it keeps to it.

    A negation is no reversal when the same sentence still asks for the goal ("cancel R1 but don't cancel R2"),
    when what it negates names a thing the goal does not ("don't cancel R2" from a user that wants R1
    cancelled), or when it declines more of the same ("I don't need to cancel anything else").
    """
    for found in _TAKES_BACK.finditer(text):
        verb = found.group(1).lower()
        if verb in goal.objects and not _scoped(text, found, goal.objects[verb]):
            return sentence_at(text, found.start())
    if not goal.mind_may_change:
        changed = _CHANGES_MIND.search(text)
        if changed:
            return sentence_at(text, changed.start())
    return None


def _scoped(text: str, negation: re.Match[str], wanted: frozenset[str]) -> bool:
    """Whether a negated goal verb is about part of the request only: it declines more of the same, its sentence
    asks for the verb elsewhere, or its object names something the goal does not."""
    if _FURTHER.match(negation.group(2)):
        return True
    named = {name.lower() for name in _NAMES_ONE.findall(negation.group(2))}
    if named and not named & {name.lower() for name in wanted}:
        return True
    start = max((end.end() for end in SENTENCE_END.finditer(text, 0, negation.start())), default=0)
    ends = [end.start() for end in SENTENCE_END.finditer(text, negation.end())]
    sentence_end = ends[0] if ends else len(text)
    verb = re.compile(rf"\b{re.escape(negation.group(1))}(?:s|e?d|l?ed|l?ing)?\b", re.IGNORECASE)
    return any(not (negation.start() <= asked.start() < negation.end())
               and not _NEGATED_BEFORE.search(text[start:asked.start()][-40:])
               for asked in verb.finditer(text, start, sentence_end))


def inventions(text: str, grounds: Grounds, world: WorldFacts = NO_WORLD, *, inexact: bool = False) -> list[str]:
    """The facts a user message states that its sources (`grounds`) do not hold, and the names it gives itself that
    they do not; a date the sources spell out ("May 20" for 2024-05-20) is held. `inexact`: the user's persona gets
    its details wrong on purpose, so a fact a slip away from one the sources hold is its part, not an invention."""
    found = [fact for fact in dict.fromkeys(_ungrounded(text, grounds, world)) if not _spelled_out(fact, grounds.text)]
    if not inexact:
        return found
    known = {token.lower() for token in _TOKEN.findall(grounds.text)}
    return [fact for fact in found if not any(_one_slip(fact.lower().lstrip("$"), token) for token in known)]


def _ungrounded(text: str, grounds: Grounds, world: WorldFacts) -> Iterator[str]:
    yield from grounds.ungrounded(text, world)
    known = grounds.text.lower()
    for name in _NAMED.findall(text):
        if not any(re.search(rf"\b{re.escape(word.lower())}\b", known) for word in name.split()):
            yield name


_ISO_DATE = re.compile(r"\d{4}-(\d{2})-(\d{2})")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _spelled_out(fact: str, sources: str) -> bool:
    """Whether an ISO date is in the sources in words: its month's name and its day ("May 20", "20 May")."""
    date = _ISO_DATE.fullmatch(fact)
    if date is None or not 1 <= int(date.group(1)) <= len(_MONTHS):
        return False
    month, day = _MONTHS[int(date.group(1)) - 1], int(date.group(2))
    return bool(re.search(rf"\b{month}\.? {day}(?:st|nd|rd|th)?\b|\b{day}(?:st|nd|rd|th)? (?:of )?{month}\b",
                          sources, re.IGNORECASE))


# A fact as the sources may hold it: an id, a number, an ISO date.
_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:[-.][A-Za-z0-9_]+)*")


def _one_slip(said: str, known: str) -> bool:
    """Whether `said` is `known` with one slip: a character changed, added or dropped, two side by side swapped, or
    an ISO date's month and day mixed up."""
    if said == known or abs(len(said) - len(known)) > 1:
        return False
    date = _ISO_DATE.fullmatch(known)
    if date is not None and said == f"{known[:4]}-{date.group(2)}-{date.group(1)}":
        return True
    if len(said) == len(known):
        differ = [i for i, (a, b) in enumerate(zip(said, known, strict=True)) if a != b]
        return len(differ) == 1 or (len(differ) == 2 and differ[1] == differ[0] + 1
                                    and said[differ[0]] == known[differ[1]] and said[differ[1]] == known[differ[0]])
    longer, shorter = (said, known) if len(said) > len(known) else (known, said)
    return any(longer[:i] + longer[i + 1:] == shorter for i in range(len(longer)))


def pending_request(chatbot_message: str) -> str | None:
    """The sentence of the chatbot's message that still asks the customer for something or announces work under
    way, quoted: a user that ends the conversation after it stops early. None when the message leaves nothing
    pending (an open offer of help, "anything else?", does not)."""
    return first_sentence(chatbot_message, _still_on_request)


def winding_down(chatbot_message: str) -> bool:
    """Whether a chatbot message only closes the conversation: thanks, farewells, an open offer of more help,
    every sentence of it, with nothing asked of the customer and no work announced."""
    sentences = [sentence for sentence in SENTENCE_END.split(chatbot_message) if sentence.strip()]
    return bool(sentences) and all(
        _COURTESY.match(sentence) or (_OPEN_OFFER.search(sentence) and not _ASKS.search(sentence)
                                      and not UNDER_WAY.search(sentence))
        for sentence in sentences)


def last_work(transcript: list[Message]) -> int:
    """The index of the chatbot's last message that worked on the request (called a tool, asked, answered), before
    the courtesies that close the conversation; the greeting counts as work, since none was done before it. -1:
    the chatbot never spoke."""
    first_user = next((turn for turn, message in enumerate(transcript) if message.role == "user"), len(transcript))
    for turn in range(len(transcript) - 1, -1, -1):
        message = transcript[turn]
        if message.role == "chatbot" and (message.tool_calls or turn < first_user
                                          or not winding_down(message.content)):
            return turn
    return -1


def program_faults(event: Event, dialog: Dialog, world: WorldFacts = NO_WORLD) -> list[UserFault]:
    """The faults a program can tell in a dialog's user, in transcript order.

    Args:
        event: what the user was given: its scenario, expected behaviour and known rows.
        dialog: the dialog played.
        world: what tells the facts of the event's world in the user's words.
    """
    given = [event.scenario, event.expected_behaviour, json.dumps(event.user_rows, ensure_ascii=False),
             *([event.claim.statement] if event.claim else [])]  # a false claim is the user's part, not an invention
    goal = Goal.of(event.scenario)
    persona = dialog.persona or event.persona  # the dialog's own, else the one its event was written for
    inexact = bool(persona and persona.inexact)
    faults: list[UserFault] = []
    told: list[str] = []  # what the chatbot said so far
    stated: set[str] = set()  # facts already counted: a repeated invention is one fault
    for turn, message in enumerate(dialog.transcript):
        if message.role == "chatbot":
            told.append(message.content)
            continue
        told += [call.result or "" for call in message.tool_calls]  # what its own tools showed it is known to it
        text = _own_words(message)
        invented = [fact for fact in inventions(text, Grounds([*given, *told]), world, inexact=inexact)
                    if fact not in stated]
        stated.update(invented)
        if invented:
            faults.append(UserFault(kind="invented", turn=turn, evidence=f"stated {', '.join(invented)}, which its "
                                    "scenario, its known rows, the chatbot's messages and its own tools do not hold"))
        faults += _message_faults(text, turn, goal)
    faults += _ending_faults(dialog)
    return faults


def _own_words(message: Message) -> str:
    """A user message without the words its persona's moves put in it, whether the framework added them (an
    injection persona's note to the agent, a pressing user's threat) or the model made the move itself: they are
    the persona's part, not a fault of the simulated user."""
    content = message.content
    for move in message.moves:
        content = content.replace(move.text, " ")
    return content.strip()


def _message_faults(text: str, turn: int, goal: Goal) -> list[UserFault]:
    """The faults of one user message besides invented facts: at most one of each kind."""
    found = (("contradicted_goal", goal_reversal(text, goal)), ("narrated", narration(text)),
             ("spoke_as_agent", agent_speech(text)))
    return [UserFault(kind=kind, turn=turn, evidence=evidence) for kind, evidence in found if evidence is not None]


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
    pending = pending_request(last.content) if last.role == "chatbot" else None
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
