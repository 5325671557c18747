"""training/: the rollouts' paths as training data, in the formats trainers read, and its data card.

- `training/sft.jsonl` (`SftExample`): every positive path as a chat conversation with tool calls and their
  results, the run's policy document as the system prompt, in TRL's conversational format (a `messages`
  column, a `tools` column), which `SFTTrainer` reads: a tool call's arguments are an object, as chat templates
  read them. The assistant messages are the chatbot's own turns and calls, the ones trained; the user's
  messages and the tools' results are context.
- `training/openai-sft.jsonl` (`OpenAiSftExample`): the same conversations in OpenAI's chat fine-tuning format,
  ready to upload: a call's arguments are JSON text, as the Chat Completions API has them, and each assistant
  message says it is trained (`weight: 1`).
- `training/preferences.jsonl` (`PreferencePair`): where a turn of a positive path and a worse sibling part,
  the conversation up to there (`prompt`) and the chatbot's next message in each (`chosen`, `rejected`), as
  TRL's `DPOTrainer` reads them.
- `training/kto.jsonl` (`KtoExample`): the same messages unpaired, each with its label, as TRL's `KTOTrainer`
  reads them (`prompt`, `completion`, `label`).
- `training/README.md`: the data card: what the files hold, and what was left out and why.

Every record of the TRL files names where it comes from in `metadata` (event, path, policies, flows, reward).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class FunctionCall(BaseModel):
    """The function a tool call names, with its arguments as an object (as chat templates read them)."""

    name: str
    arguments: dict[str, Any]


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

    @property
    def trained(self) -> bool:
        """Whether a trainer learns it: the chatbot's own words and calls are; the system prompt, the user's words and
        the tools' results are context."""
        return self.role == "assistant"


class ExampleSource(BaseModel):
    """Where a training record comes from."""

    event: str
    path: str = Field(description="The turn of rollouts/<event>.json it ends with (a pair: the chosen turn).")
    policies: list[str] = Field(default_factory=list)
    flows: list[str] = Field(default_factory=list, description="The flows of those policies.")
    kind: Literal["delivery", "refusal"] | None = Field(
        default=None, description="The event's expected outcome: a change delivered, or only a refusal."
    )
    reward: float = Field(description="What its path scored: a positive path's outcome reward (sft.jsonl); the "
                          "partial reward at the turn, the share of the expected calls matched so far (preferences, "
                          "kto).")


class PairSource(ExampleSource):
    """Where a preference pair comes from: the chosen turn (`path`), the rejected one, and why it is worse."""

    rejected: str = Field(description="The rejected turn of rollouts/<event>.json.")
    rejected_reward: float = Field(description="The rejected path's partial reward at that turn.")
    evidence: Literal["margin", "outcome", "program"] = Field(
        description="Why the rejected turn is worse: its partial reward is lower by the margin or more (margin), "
        "its path ended there with its outcome failed (outcome), or a program found a breach in it (program)."
    )
    turn: int = Field(description="Chatbot turns before the two on their path.")


class SftExample(BaseModel):
    """A positive path, as a chat conversation to fine-tune on (TRL's conversational format)."""

    messages: list[ChatMessage]
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The domain's tools, as functions.")
    metadata: ExampleSource


class PreferencePair(BaseModel):
    """The chatbot's next message on a positive path and on a worse sibling, after the same conversation."""

    prompt: list[ChatMessage]
    chosen: list[ChatMessage]
    rejected: list[ChatMessage]
    tools: list[dict[str, Any]] = Field(default_factory=list)
    metadata: PairSource


class KtoExample(BaseModel):
    """The chatbot's next message after a conversation, labelled desirable (on a positive path) or not."""

    prompt: list[ChatMessage]
    completion: list[ChatMessage]
    label: bool
    tools: list[dict[str, Any]] = Field(default_factory=list)
    metadata: ExampleSource


class OpenAiFunctionCall(FunctionCall):
    """The function a tool call names, with its arguments as JSON text (as the Chat Completions API has them)."""

    arguments: str  # type: ignore[assignment]


class OpenAiToolCall(ChatToolCall):
    """An assistant's tool call, as OpenAI's fine-tuning reads it."""

    function: OpenAiFunctionCall  # type: ignore[assignment]


class OpenAiMessage(ChatMessage):
    """One message as OpenAI's fine-tuning reads it; dumped without its empty fields."""

    tool_calls: list[OpenAiToolCall] | None = None  # type: ignore[assignment]
    weight: Literal[0, 1] | None = Field(default=None, description="On an assistant message: 1, it is trained.")


class OpenAiSftExample(BaseModel):
    """A positive path in OpenAI's chat fine-tuning format: its keys only, so that the file uploads as it is."""

    messages: list[OpenAiMessage]
    tools: list[dict[str, Any]] = Field(default_factory=list)
