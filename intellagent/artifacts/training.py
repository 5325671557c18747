"""training/*.jsonl: the rollouts' paths as training data, in the formats trainers read.

- `training/sft.jsonl` (`SftExample`): every rewarded path as a chat conversation with tool calls and their
  results, the run's policy document as the system prompt: OpenAI's chat fine-tuning format, which TRL's
  `SFTTrainer` reads too (a `messages` column, a `tools` column).
- `training/preferences.jsonl` (`PreferencePair`): per branching turn, the rewarded continuation and an
  unrewarded one of the same prefix, as DPO trainers read them (`prompt`, `chosen`, `rejected`).
- `training/kto.jsonl` (`KtoExample`): the same turns unpaired, each with its label, as KTO trainers read them
  (`prompt`, `completion`, `label`).

Every record names where it comes from in `metadata` (event, path, policies, flows, reward).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class FunctionCall(BaseModel):
    """The function a tool call names, with its arguments as JSON text (as the Chat Completions API has them)."""

    name: str
    arguments: str


class ChatToolCall(BaseModel):
    """An assistant's tool call."""

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class ChatMessage(BaseModel):
    """One message of a chat conversation; dumped without its empty fields."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ChatToolCall] | None = None
    tool_call_id: str | None = None


class ExampleSource(BaseModel):
    """Where a training record comes from."""

    event: str
    path: str = Field(description="The turn of rollouts/<event>.json it ends with (a pair: the chosen turn).")
    policies: list[str] = Field(default_factory=list)
    flows: list[str] = Field(default_factory=list, description="The flows of those policies.")
    reward: float = Field(description="The outcome reward of the path (a pair, a KTO record: of the chosen's).")


class PairSource(ExampleSource):
    """Where a preference pair comes from: the chosen turn (`path`) and the rejected one."""

    rejected: str = Field(description="The rejected turn of rollouts/<event>.json.")
    rejected_reward: float = Field(description="The best outcome reward of any path through the rejected turn.")
    turn: int = Field(description="Chatbot turns before the two on their path.")


class SftExample(BaseModel):
    """A rewarded path, as a chat conversation to fine-tune on."""

    messages: list[ChatMessage]
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The domain's tools, as functions.")
    metadata: ExampleSource


class PreferencePair(BaseModel):
    """A rewarded and an unrewarded chatbot turn after the same conversation."""

    prompt: list[ChatMessage]
    chosen: list[ChatMessage]
    rejected: list[ChatMessage]
    tools: list[dict[str, Any]] = Field(default_factory=list)
    metadata: PairSource


class KtoExample(BaseModel):
    """One chatbot turn after a conversation, labelled desirable (on a rewarded path) or not."""

    prompt: list[ChatMessage]
    completion: list[ChatMessage]
    label: bool
    tools: list[dict[str, Any]] = Field(default_factory=list)
    metadata: ExampleSource
