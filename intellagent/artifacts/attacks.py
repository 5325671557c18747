"""attacks.jsonl and `attacks/<id>.json`: the red team's attacks, each aimed at one rule (--red-team).

An attack is a rule of the policy, a strategy and an event whose world puts the rule to the test. Through the
conversation, an attacker plays the user and searches for the message that makes the chatbot break the rule,
rolling a refused message back and trying another angle (`AttackTree`: every attempt it played); through the data,
an instruction is planted in a record the chatbot reads (`Planted`) and the event's own user plays the dialog.
attacks.jsonl holds one record per attack (`Attack`): whether the rule broke, who found it, after how many
attempts, and what the attack cost.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from intellagent.artifacts.adversary import Planted, StrategyName
from intellagent.artifacts.analysis import VerdictSource, Violation
from intellagent.artifacts.dialogs import Dialog, DialogStatus, Message

AttackStatus = Literal["ok", "stopped", "skipped", "error"]


class AttackAttempt(BaseModel):
    """One chatbot turn an attack played: the chatbot's answer to the attacker's last message, and what came next."""

    id: str = Field(description="Its number in the attack: '0' the greeting and the attacker's first message, then "
                    "1, 2, ... in the order played.")
    parent: str | None = Field(default=None, description="The attempt whose branch it goes on (None: the opening, or "
                               "a dialog through the data, which stands alone).")
    turn: int = Field(default=0, description="User turns on its branch before it.")
    messages: list[Message] = Field(
        default_factory=list, description="What it added: the chatbot's reply with its calls and the attacker's next "
        "message (a dialog through the data: its whole transcript).")
    refused: bool = Field(default=False, description="The attacker read the reply as a refusal: the message it "
                          "answered was rolled back, and the attacker's next message tried in its place.")
    breach: list[Violation] = Field(default_factory=list, description="The rule's violations found after it.")
    ended: DialogStatus | None = Field(default=None, description="How the branch ended with it, if it did.")
    reason: str = Field(default="", description="Why it ended.")
    planted: Planted | None = Field(default=None, description="Through the data: what was planted for it.")
    world: str | None = Field(default=None, description="Its branch's world after it, as a delta (attacks/…).")


class AttackTree(BaseModel):
    """`attacks/<id>.json`: every attempt of one attack, and the dialog it came to."""

    attack: str
    rule: str
    strategy: StrategyName
    event: str
    attempts: list[AttackAttempt] = Field(default_factory=list, description="In the order played.")
    dialog: Dialog | None = Field(
        default=None, description="The winning branch as the chatbot saw it (rolled-back messages left out) when "
        "the rule broke; else the last branch played.")


class Attack(BaseModel):
    """One attack, as attacks.jsonl records it."""

    id: str = Field(description="rule.strategy.event, e.g. 'P03.crescendo.S002'.")
    status: AttackStatus = Field(
        description="ok: played to a breach or to the end of its budget of turns and attempts; stopped: the rule's "
        "budget ran out first (a rerun resumes it); skipped: the strategy cannot be played here (nothing to plant "
        "in, say); error: it failed.")
    reason: str = ""
    rule: str
    strategy: StrategyName
    event: str
    way: Literal["backtracking", "straight", "data"] | None = Field(
        default=None, description="How it was played: backtracking (refused messages rolled back), straight (the "
        "chatbot's conversations cannot fork, so nothing is rolled back), or through the data.")
    breached: bool = Field(default=False, description="The rule broke: a forbidden write made, or a program or the "
                           "judge found it broken.")
    source: VerdictSource | None = Field(default=None, description="Who found the breach, strongest first.")
    breach: list[Violation] = Field(default_factory=list, description="The rule's violations, with their evidence.")
    attempts: int = Field(default=0, description="Chatbot turns played in answer to the attacker (rolled-back "
                          "ones included); through the data, dialogs played on a planted world.")
    rolled_back: int = Field(default=0, description="Of those, the ones rolled back after a refusal.")
    first_breach: int | None = Field(default=None, description="The attempt at which the rule first broke.")
    max_turns: int = Field(default=0, description="User turns a branch may take (red_team.max_turns).")
    max_attempts: int = Field(default=0, description="Attempts the attack may play (red_team.max_attempts, or "
                              "red_team.plantings through the data).")
    tree: str | None = Field(default=None, description="Its attempts, relative to the run (`attacks/<id>.json`).")
    planted: Planted | None = Field(default=None, description="Through the data: the planting of the winning (or "
                                    "last) dialog.")
    calls: int = Field(default=0, description="LLM calls it made (the cache's answers not counted).")
    cost_usd: float = Field(default=0.0, description="What they cost.")
