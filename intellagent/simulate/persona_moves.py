"""A persona's moves, put in the simulated user's messages (its prompt is `simulate.users.persona_text`).

A small model does not always make a persona's concrete moves; on the turn a move is scheduled for,
its words are added to the user's message unless the message already makes it (its cue matches), and
the message records the move either way (`Message.moves`), so that the persona's scripted words are
told apart from the model's own, and never taken for the simulated user's mistakes.
"""

from __future__ import annotations

import re

from intellagent.artifacts import Claim, Move, Persona, PlayedMove
from intellagent.artifacts.personas import CLAIM, CLAIMED


def with_moves(persona: Persona | None, claim: Claim | None, turn: int, message: str) -> tuple[str, list[PlayedMove]]:
    """The user's message on turn `turn` with the persona's moves of that turn, and the moves it holds.

    A move the message already makes (its cue matches, or its words are there) is recorded as the model's;
    one it does not make has its words added at the end and is recorded as injected. A move that states a
    claim is made only when the event has a claim to state.
    """
    if persona is None:
        return message, []
    played = []
    for move in (move for move in persona.moves if move.turn == turn):
        if move.states_claim and claim is None:
            continue
        words = move.say.replace(CLAIM, claim.statement if claim else "")
        made = _made(move, words, message, claim)
        if made is None:
            message = f"{message.rstrip()} {words}".strip()
        played.append(PlayedMove(persona=persona.name, text=made or words, injected=made is None,
                                 claim=move.states_claim))
    return message, played


def _made(move: Move, words: str, message: str, claim: Claim | None) -> str | None:
    """The part of `message` that makes the move, if the model made it."""
    if words.lower() in message.lower():
        return words
    cue = move.cue
    if cue is None or (CLAIMED in cue and (claim is None or claim.claimed is None)):
        return None
    if claim is not None and claim.claimed is not None:
        cue = cue.replace(CLAIMED, re.escape(claim.claimed).replace("_", "[_ ]"))
    found = re.search(cue, message, re.IGNORECASE)
    return _sentence(message, found.start()) if found else None


def _sentence(message: str, at: int) -> str:
    """The sentence of `message` around position `at`."""
    start = max(message.rfind(end, 0, at) for end in ".!?\n") + 1
    ends = [found for end in ".!?\n" if (found := message.find(end, at)) != -1]
    return message[start:min(ends) + 1 if ends else len(message)].strip()
