"""What LLM calls consumed, as run.json, dialogs.jsonl and report.json record it."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Tally(BaseModel):
    """What a group of calls consumed. Cached answers are counted apart: they cost nothing."""

    calls: int = 0
    cached: int = 0
    input_tokens: int = 0
    cache_read_tokens: int = Field(default=0, description="Of the input tokens, those the provider's prompt cache "
                                   "served (a prefix it had already read): the share a stage's prompt order saves.")
    output_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, other: Tally) -> None:
        self.calls += other.calls
        self.cached += other.cached
        self.input_tokens += other.input_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.output_tokens += other.output_tokens
        self.cost_usd = round(self.cost_usd + other.cost_usd, 6)


class UsageReport(BaseModel):
    """The accounting as stored in run.json and shown in reports."""

    total: Tally = Field(default_factory=Tally)
    stages: dict[str, Tally] = Field(default_factory=dict)
    steps: dict[str, Tally] = Field(default_factory=dict)
    roles: dict[str, Tally] = Field(default_factory=dict)
    unpriced_models: list[str] = Field(default_factory=list)
