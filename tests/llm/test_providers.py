"""Providers other than the Chat Completions ones, through LangChain: structured answers by the model's own
`with_structured_output`, tools by its `bind_tools`, cached and counted like any answer."""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field

from intellagent.errors import UsageError
from intellagent.llm import AnswerInvalid, ModelSpec, ResponseCache, Usage, parse_spec
from intellagent.llm.client import DirectLLM
from intellagent.llm.factory import build_chat_model, cache_identity

ASK = [HumanMessage("Which flows does the policy describe?")]


class Flows(BaseModel):
    flows: list[str] = Field(min_length=1)


class ToolCallingModel(BaseChatModel):
    """A provider that answers only in tool calls (as Anthropic's structured output does), from a script."""

    answers: list[dict[str, Any]]
    requests: list[tuple[list[BaseMessage], dict[str, Any]]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "tool-calling-test"

    def bind_tools(self, tools: list[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, **({"tool_choice": tool_choice} if tool_choice else {}), **kwargs)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.requests.append((messages, kwargs))
        name = kwargs["tools"][0]["function"]["name"]
        message = AIMessage(content="", tool_calls=[{"name": name, "args": self.answers.pop(0), "id": "call_1"}],
                            usage_metadata={"input_tokens": 40, "output_tokens": 7, "total_tokens": 47})
        return ChatResult(generations=[ChatGeneration(message=message)])


@pytest.fixture
def provider_llm(tmp_path):
    caches = []

    def make(model: BaseChatModel, usage: Usage | None = None) -> DirectLLM:
        spec = parse_spec("anthropic:claude-test")
        caches.append(ResponseCache(tmp_path / f"cache{len(caches)}.sqlite"))  # one per model: no shared answers
        return DirectLLM(role="policies", spec=spec, model=model, identity=cache_identity(spec, seed=1),
                         cache=caches[-1], usage=usage or Usage())

    yield make
    for cache in caches:
        cache.close()


def test_a_structured_answer_comes_through_the_models_own_structured_output(provider_llm):
    model = ToolCallingModel(answers=[{"flows": ["Booking", "Refunds"]}])
    usage = Usage()
    llm = provider_llm(model, usage).with_options(seed=7)

    answer = asyncio.run(llm.answer(ASK, Flows, step="describe/flows"))
    again = asyncio.run(llm.answer(ASK, Flows, step="describe/flows"))  # from the cache: the script is spent

    assert answer == again == Flows(flows=["Booking", "Refunds"])
    (_, sent), = model.requests
    assert sent["tools"][0]["function"]["name"] == "Flows" and "seed" not in sent and "max_tokens" not in sent
    tally = usage.report().total
    assert (tally.calls, tally.cached, tally.input_tokens, tally.output_tokens) == (1, 1, 40, 7)


def test_an_answer_its_schema_rejects_is_sent_back_and_a_lasting_one_fails_the_step(provider_llm):
    model = ToolCallingModel(answers=[{"flows": []}, {"flows": ["Booking"]}])
    assert asyncio.run(provider_llm(model).answer(ASK, Flows, step="describe/flows")) == Flows(flows=["Booking"])
    resent, _ = model.requests[1]
    assert "flows: List should have at least 1 item" in resent[-1].content

    stubborn = ToolCallingModel(answers=[{"flows": []}] * 3)
    with pytest.raises(AnswerInvalid):
        asyncio.run(provider_llm(stubborn).answer(ASK, Flows, step="describe/flows"))


def test_tools_are_bound_the_providers_way_and_tool_choice_none_is_not_sent(provider_llm):
    model = ToolCallingModel(answers=[{"reservation_id": "ZFA04Y"}])
    tool = {"type": "function", "function": {"name": "cancel_reservation", "description": "Cancel one.",
                                             "parameters": {"type": "object",
                                                            "properties": {"reservation_id": {"type": "string"}}}}}

    message = asyncio.run(provider_llm(model).complete(ASK, step="simulate/chatbot", tools=[tool], tool_choice="none"))

    assert message.tool_calls[0]["name"] == "cancel_reservation"
    assert message.tool_calls[0]["args"] == {"reservation_id": "ZFA04Y"}
    (_, sent), = model.requests
    assert "tool_choice" not in sent


@pytest.mark.skipif(importlib.util.find_spec("langchain_anthropic") is not None, reason="the integration is installed")
def test_a_provider_whose_integration_is_missing_names_the_package_to_install():
    spec = ModelSpec(provider="anthropic", model="claude-sonnet-4-5")
    with pytest.raises(UsageError, match="langchain-anthropic"):
        build_chat_model(spec, role="policies", seed=1, max_retries=0)


def test_a_provider_langchain_does_not_know_is_a_clear_error():
    with pytest.raises(UsageError, match="Unsupported provider='nosuch'"):
        build_chat_model(parse_spec("nosuch:model"), role="policies", seed=1, max_retries=0)
