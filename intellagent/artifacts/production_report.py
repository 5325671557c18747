"""The report's production section: how the chatbot's real conversations hold each policy, beside the tests."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from intellagent.artifacts.analysis import VerdictSource
from intellagent.artifacts.rates import Rate

MASK = re.compile(r"\[(?:redacted|email|phone|card|iban|address)-\d+\]")
"""A masked value in a production conversation, as redaction writes it: its kind and its number in the conversation
(`[email-1]`); the report counts them by kind."""


class ProductionPolicy(BaseModel):
    """One policy in production: how often real conversations reached it, and how often it held there."""

    id: str
    seen: int = Field(description="Production conversations with a verdict that tested it.")
    frequency: float | None = Field(description="seen / production conversations with a verdict.")
    broken: int = Field(description="Production conversations that violated it.")
    pass_rate: Rate = Field(description="The conversations that tested it and kept it, with the 95% interval.")
    tested: int = Field(description="Test dialogs with a verdict that tested it.")


class ProductionPair(BaseModel):
    """A strongly linked pair of policies: how often production reached both in one conversation."""

    policies: tuple[str, str]
    weight: float
    seen: int = Field(description="Production conversations that tested both.")
    frequency: float | None
    tested_together: bool = Field(description="Whether a test dialog tested both.")


class ProductionBreach(BaseModel):
    """A policy a production conversation broke: where, why, and who found it."""

    policy: str
    turn: int | None = Field(description="Index of the message in the conversation's transcript.")
    reason: str
    source: VerdictSource


class ProductionFailure(BaseModel):
    """A production conversation that broke a policy, as the report shows it."""

    id: str = Field(description="Its dialog id (P + its number in the file's order).")
    conversation: str = Field(description="Its name and line in the transcripts file.")
    breaches: list[ProductionBreach]


class ConversationRead(BaseModel):
    """What was read of one conversation of the transcripts file (or of a record that held none), and its verdict."""

    id: str = Field(description="Its dialog id (P + its number in the file's order).")
    conversation: str = Field(description="Its name, format and place in the file; a record that held none, its "
                              "place.")
    status: str = Field(description="Its analysis status (pass, fail, error, ...).")
    reason: str | None = Field(default=None, description="Why it has no verdict (a record that could not be read, a "
                               "judge that failed).")
    turns: int = Field(default=0, description="The user's messages.")
    calls: int = Field(default=0, description="The chatbot's tool calls read.")
    results: int = Field(default=0, description="Those read with their result.")
    masked: dict[str, int] = Field(default_factory=dict, description="Values masked in it, per kind (email, phone, "
                                   "card, iban, address, redacted: what a field or a pattern marked).")


class ProductionFigures(BaseModel):
    """Production beside the tests: pass rates per policy, the worst, and coverage both ways on the policy graph."""

    conversations: int = Field(description="Conversations of the transcripts file, and records that held none.")
    by_status: dict[str, int] = Field(description="Conversations per analysis status.")
    skipped: list[str] = Field(default_factory=list, description="The records that held no conversation: where, and "
                               "why.")
    pass_rate: Rate = Field(description="Conversations with a verdict that broke no policy.")
    policies: list[ProductionPolicy] = Field(description="Every policy, the most frequent in production first.")
    worst: list[str] = Field(description="Policies production broke, the lowest pass rate first.")
    pairs: list[ProductionPair] = Field(description="The strong pairs, the most frequent in production first.")
    in_production_never_tested: list[str] = Field(description="Policies production reached that no test dialog did.")
    tested_never_in_production: list[str] = Field(
        description="Policies test dialogs tested that no production conversation reached."
    )
    pairs_in_production_never_tested: list[tuple[str, str]] = Field(
        description="Strong pairs production reached together that no test dialog did."
    )
    not_applicable: list[str] = Field(
        default_factory=list, description="Checks that need a world, which no production conversation has: not run."
    )
    failures: list[ProductionFailure] = Field(
        default_factory=list, description="The conversations that broke a policy, each breach with its evidence; they "
        "are kept as regression scenarios (regression/)."
    )
    read: list[ConversationRead] = Field(
        default_factory=list, description="Every conversation (and record that held none) in the file's order: what "
        "was read of it, what was masked, and its verdict."
    )

    @property
    def calls(self) -> int:
        """The tool calls read, over every conversation."""
        return sum(read.calls for read in self.read)

    @property
    def results(self) -> int:
        """The tool calls read with their result, over every conversation."""
        return sum(read.results for read in self.read)

    @property
    def regression(self) -> list[str]:
        """The ids of the failing conversations, the scenarios of the regression set."""
        return [failure.id for failure in self.failures]
