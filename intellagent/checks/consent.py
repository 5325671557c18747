"""Whether the user agreed: an explicit lexicon where no model is asked, and the confirmation a rule wants.

A user's answer is **affirmative** when its first clause (up to the first `.`, `,`, `!`, `;` or `?`) holds
a word or phrase of `AFFIRMATIVE` and none of `NEGATIVE`, the clause is no question, and nowhere does the
answer hold back with a word of `HESITANT`:

- "Yes, please go ahead." / "Sure!" / "That's correct, do it." / "Sí, adelante." — affirmative;
- "Yes, that's not a problem." — affirmative: a "not" after the yes no longer cancels it;
- "No, don't." / "Not yet." / "Yes? What would it cost?" — not;
- "Yes, but change the date first." / "OK, wait — which card?" — not: the user holds back.

The lexicon covers English and a few words of Spanish, French, German, Portuguese and Italian; where a model
is there to ask, a run asks it instead, one question per answer, in any language (`Trace.agreed`).

A **confirmation** rule wants more than a yes: the user's last message before the call answers the chatbot
turn right before it, and that turn named the action (one of the rule's `words`, if it gives any) with the
value of each of its key `arguments`, so that an earlier yes to something else agrees to nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from intellagent.artifacts import Confirmation, Finding, Message
from intellagent.checks.terms import reached
from intellagent.checks.trace import Call, Trace
from intellagent.checks.values import plain

AFFIRMATIVE = ("yes", "yeah", "yep", "yup", "sure", "ok", "okay", "confirm", "confirmed", "i confirm", "correct",
               "that's right", "that is right", "right", "go ahead", "proceed", "please do", "do it", "absolutely",
               "of course", "sounds good", "agreed", "i agree", "affirmative", "definitely",
               "sí", "si", "claro", "de acuerdo", "adelante", "vale", "oui", "d'accord", "allez-y", "ja", "genau",
               "einverstanden", "sim", "certo", "va bene")
NEGATIVE = ("no", "nope", "not", "don't", "do not", "never", "non", "nein", "não", "nao")
HESITANT = ("but", "wait", "hold on", "actually", "instead", "pero", "espera", "mais", "attendez", "aber", "warte")

_CLAUSE = re.compile(r"[.,!;?]")


def _phrases(words: Sequence[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w'])(?:{alternatives})(?![\w'])", re.IGNORECASE)


_AFFIRMATIVE, _NEGATIVE, _HESITANT = _phrases(AFFIRMATIVE), _phrases(NEGATIVE), _phrases(HESITANT)


def affirmative(answer: str) -> bool:
    """Whether a user's answer agrees, by the lexicon (see the module)."""
    text = answer.strip().replace("’", "'")
    found = _CLAUSE.search(text)
    clause = text if found is None else text[:found.start()]
    asks = found is not None and found.group() == "?"
    return (bool(_AFFIRMATIVE.search(clause)) and not _NEGATIVE.search(clause) and not asks
            and not _HESITANT.search(text))


def explicit_yes(messages: Sequence[Message], index: int, agreed: dict[int, bool] | None = None) -> bool:
    """Whether the user message at `index` of a transcript agrees to what the chatbot said just before it (message 0,
    the chatbot's greeting, states nothing to agree to); `agreed` holds a model's readings, where one was asked."""
    reply = messages[index]
    stated = next((i for i in range(index - 1, -1, -1) if messages[i].role == "chatbot"), 0) > 0
    if reply.role != "user" or not stated:
        return False
    return agreed[index] if agreed and index in agreed else affirmative(reply.content)


def confirmation_breaches(rule: Confirmation, trace: Trace) -> Iterator[Finding]:
    """A finding for every call of the rule's tool not made right after the user agreed to a chatbot turn that
    named it (an attempt counts, even one the tool refused)."""
    for call in trace.calls:
        if call.name != rule.tool:
            continue
        replied = trace.last_before(call.turn, "user")
        if replied is None:
            yield Finding(message=f"{call.name} was called without an explicit yes: the customer had said nothing",
                          turn=call.turn, call=call.shown())
            continue
        asked = trace.last_before(replied, "chatbot")
        missing = _unnamed(rule, call, trace.messages[asked].content if asked else "")
        if missing:
            yield Finding(message=f"{call.name} was called, but the turn the user answered did not name "
                                  f"{missing}", turn=call.turn, call=call.shown())
        elif not explicit_yes(trace.messages, replied, dict(trace.agreed)):
            said = trace.messages[replied].content[:120]
            yield Finding(message=f'{call.name} was called without an explicit yes: the customer last said "{said}"',
                          turn=call.turn, call=call.shown())


def _unnamed(rule: Confirmation, call: Call, stated: str) -> str:
    """What of the action the chatbot's turn did not name: the action's words, or a key argument's value."""
    words = _said_words(stated)
    if rule.words and not any(word.lower()[:5] in " ".join(words) for word in rule.words):
        return "the action (" + " or ".join(rule.words) + ")"
    for name in rule.arguments:
        given = [value for value in reached(call.arguments.get(name), []) if not isinstance(value, dict)]
        if given and not all(_named(value, stated) for value in given):
            return f"its {name} ({', '.join(str(value) for value in given)})"
    return ""


def _said_words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower())


def _named(value: Any, text: str) -> bool:
    """Whether `text` names `value`: word for word, or, for a number, as any word of the same number."""
    shown = str(value).strip()
    if shown and re.search(rf"(?<!\w){re.escape(shown)}(?!\w)", text, re.IGNORECASE):
        return True
    wanted = plain(value)
    return any(plain(word) == wanted for word in re.findall(r"[\w.#$-]+", text) if word)
