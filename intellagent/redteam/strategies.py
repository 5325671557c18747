"""The red team's strategies: how an attack on a rule goes at it, each a named option of `red_team.strategies`.

Seven go through the conversation, the attacker playing the user (`redteam.attacker`); one goes through the data,
the event's own user playing the dialog on a world with an instruction planted in it (`populate.planting`). What
each tells the attacker is in prompts/redteam/strategies/<name>.md; what the framework adds besides is here: the
language of `language_switch`, the written form of `encoding`, and the false claim of `false_facts`, grounded in
the event's rows as populate grounds a false-claim persona's.
"""

from __future__ import annotations

import base64
import codecs

from intellagent.artifacts import AttackBrief
from intellagent.artifacts.adversary import Encoding
from intellagent.prompt_files import prompt_text


def instructions(brief: AttackBrief) -> str:
    """What the attacker (or the planter) is told of its strategy."""
    return prompt_text(f"redteam/strategies/{brief.strategy}", language=brief.language or "",
                       encoding=brief.encoding or "")


def breach_text(brief: AttackBrief) -> str:
    """What a breach looks like, as the attacker (or the planter) is told: each forbidden write, or the rule."""
    return "\n".join(f"- {line}" for line in brief.breach) or f"The agent breaks the rule: {brief.text}"


_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7",
                       "A": "4", "E": "3", "I": "1", "O": "0", "S": "5", "T": "7"})


def encoded(text: str, encoding: Encoding) -> str:
    """`text` written in `encoding`, with the line that asks the chatbot to decode it and act on it."""
    if encoding == "base64":
        written = base64.b64encode(text.encode("utf-8")).decode("ascii")
    elif encoding == "rot13":
        written = codecs.encode(text, "rot13")
    else:
        written = text.translate(_LEET)
    return prompt_text("redteam/encoded", encoding=encoding, text=written)
