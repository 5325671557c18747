"""Models of the providers that do not speak the Chat Completions API: any that LangChain's
`init_chat_model` knows (`anthropic:MODEL`, `ollama:MODEL`, `google_genai:MODEL`, `bedrock:MODEL`, ...).

The client builds its requests in Chat Completions terms; here they are put in the model's own: a JSON
schema answer goes through its `with_structured_output`, tools through its `bind_tools`. The options
only that API has (a dialog's seed, the warmer temperature and token bound of a re-ask) are not sent:
these models sample with the SPEC's own settings, and retry transient errors as their integration does.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig

from intellagent.errors import UsageError
from intellagent.llm.spec import ModelSpec, required_env

CHAT_COMPLETIONS = ("local", "openai", "azure", "scripted")
"""The providers the client speaks to directly, in the Chat Completions API."""


def speaks_chat_completions(spec: ModelSpec) -> bool:
    """Whether the model takes Chat Completions requests as they are (a JSON schema, tools, a seed)."""
    return spec.provider in CHAT_COMPLETIONS


def provider_chat_model(spec: ModelSpec) -> BaseChatModel:
    """The provider's LangChain chat model, through `init_chat_model`.

    Raises:
        UsageError: the provider is unknown to LangChain, or its integration package is not installed
            (the message names the package to install).
    """
    from langchain.chat_models import init_chat_model  # imports the integration package, on first use only

    settings: dict[str, Any] = {"temperature": spec.temperature}
    if spec.max_tokens:
        settings["max_tokens"] = spec.max_tokens
    if spec.base_url:  # a self-hosted server (ollama's, say)
        settings["base_url"] = spec.base_url
    if spec.api_key_env:  # else the integration reads its own variable (ANTHROPIC_API_KEY, ...)
        settings["api_key"] = required_env(spec.api_key_env, spec)
    try:
        return init_chat_model(spec.model, model_provider=spec.provider, **settings)
    except (ImportError, ValueError) as error:  # LangChain's message names the package to install
        raise UsageError(f"{spec.label}: {' '.join(str(error).split())}") from None


async def provider_answer(
    model: BaseChatModel, messages: list[BaseMessage], options: dict[str, Any], config: RunnableConfig
) -> AIMessage:
    """The model's answer to a request built for Chat Completions (`options`: response_format, tools,
    tool_choice; the rest is not sent), as an `AIMessage` the client caches and counts like any other.

    A structured answer comes back as its JSON text, whatever the provider's way of giving it (a tool
    call, a JSON mode), so the client validates it as it does every answer.
    """
    wanted = options.get("response_format")
    if wanted is not None:
        schema = {"title": wanted["json_schema"]["name"], **wanted["json_schema"]["schema"]}
        result = await model.with_structured_output(schema, include_raw=True).ainvoke(messages, config=config)
        raw: AIMessage = result["raw"]
        parsed = result["parsed"]
        if parsed is None and raw.tool_calls:  # arguments its parser refused: still the model's answer
            parsed = raw.tool_calls[0]["args"]
        text = raw.text if parsed is None else json.dumps(parsed, ensure_ascii=False)
        return AIMessage(content=text, usage_metadata=raw.usage_metadata)
    if "tools" in options:
        # "none" is not every provider's choice: the tools stay bound (the history holds their calls) and
        # the caller refuses a call made anyway.
        choice = options.get("tool_choice")
        model = model.bind_tools(options["tools"], **({"tool_choice": choice} if choice not in (None, "none") else {}))
    return await model.ainvoke(messages, config=config)  # type: ignore[return-value]  # a chat model's message
