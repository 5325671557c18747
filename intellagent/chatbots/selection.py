"""Which chatbot a run tests: the object given through the Python API, else the config's `chatbot:`."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from langgraph.pregel import Pregel

from intellagent.chatbots.http_endpoint import HTTPChatbot
from intellagent.chatbots.langgraph_app import LangGraphChatbot
from intellagent.chatbots.llm_agent import LLMAgent
from intellagent.chatbots.openai_chat import OpenAIChatbot
from intellagent.chatbots.protocol import Chatbot, SamplingChatbot
from intellagent.chatbots.python_callable import PythonChatbot, parameters
from intellagent.config import ChatbotConfig, Config
from intellagent.errors import UsageError
from intellagent.imports import import_user_module
from intellagent.llm import LLM, ModelSpec

if TYPE_CHECKING:
    from intellagent.context import RunContext

# Providers whose chat APIs take tools natively; the embedded model is asked for a JSON choice instead.
NATIVE_TOOL_PROVIDERS = ("openai", "azure")


def select_chatbot(ctx: RunContext) -> Chatbot:
    """The chatbot under test, ready to open one conversation per dialog.

    Raises:
        UsageError: the configured target cannot be imported or is not a chatbot, or a key is missing.
    """
    if ctx.chatbot is not None:
        return adapt(ctx.chatbot)
    return configured_chatbot(ctx, ctx.config.chatbot)


def check_chatbot(config: Config, chatbot: Any) -> None:
    """Before the run starts: a chatbot target that does not import fails now, not after an hour of describe
    and populate (a chatbot object given through the API replaces the config's).

    Raises:
        UsageError: the target is malformed, or its module or attribute cannot be imported.
    """
    if chatbot is None and config.chatbot.type in ("python", "langgraph"):
        import_target(config.chatbot.target or "")


SAMPLING_TYPES = ("llm_agent", "openai")
"""The configured chatbots whose replies the run can sample (see `SamplingChatbot`)."""


def check_sampling(config: Config, chatbot: Any) -> None:
    """Before the run starts, when it rolls out: a chatbot that cannot sample its replies fails now, before any call
    (a chatbot object given through the API replaces the config's).

    Raises:
        UsageError: the chatbot cannot be sampled.
    """
    if chatbot is not None:
        if not isinstance(adapt(chatbot), SamplingChatbot):
            raise UsageError(f"--rollouts samples the chatbot's replies, and the {type(chatbot).__name__} given cannot "
                             "be sampled; give an adapter with sampling() and forking conversations (see "
                             "SamplingChatbot), or test an llm_agent or openai chatbot")
        return
    if config.chatbot.type not in SAMPLING_TYPES:
        raise UsageError(f"--rollouts samples the chatbot's replies, and a chatbot of type {config.chatbot.type!r} "
                         f"cannot be sampled; roll out a chatbot of type {' or '.join(SAMPLING_TYPES)}")


def configured_chatbot(ctx: RunContext, config: ChatbotConfig, *, where: str = "chatbot") -> Chatbot:
    """The chatbot a config section describes (`chatbot:`, or a mutant's under `calibrate.mutants`).

    Args:
        where: the section's key, named in errors.

    Raises:
        UsageError: the target cannot be imported or is not a chatbot, or a key is missing.
    """
    if config.type == "python":
        function = import_target(config.target or "", where=f"{where}.target")
        if not callable(function):
            raise UsageError(f"{where}.target: {config.target} is a {type(function).__name__}, not a callable")
        return PythonChatbot(function, name=config.target or "")
    if config.type == "langgraph":
        graph = import_target(config.target or "", where=f"{where}.target")
        if not (hasattr(graph, "ainvoke") or callable(graph)):
            raise UsageError(
                f"{where}.target: {config.target} is a {type(graph).__name__}, not a compiled graph; point it "
                "at the result of StateGraph(...).compile(), or at a function build(tools) that returns one"
            )
        return LangGraphChatbot(graph, name=config.target or "")
    if config.type == "http":
        return HTTPChatbot(url=config.url or "", timeout=config.timeout, api_key_env=config.api_key_env)
    if config.type == "openai":
        return OpenAIChatbot(endpoint_llm(ctx, config), seed=ctx.config.seed)
    return llm_agent(ctx, config)


def llm_agent(ctx: RunContext, config: ChatbotConfig, *, policy: str | None = None) -> LLMAgent:
    """The `llm_agent` chatbot of a config section, on the domain's policy or on the `policy` text given."""
    spec = config.llm or ctx.config.chatbot_llm()
    llm = ctx.llms.model("chatbot", spec)
    return LLMAgent(
        llm=llm,
        environment=ctx.environment,
        native_tools=uses_native_tools(config, llm.spec),
        max_tool_steps=ctx.config.simulate.max_tool_steps,
        policy=policy,
        seed=ctx.config.seed,
    )


def adapt(chatbot: Any) -> Chatbot:
    """A chatbot object given through the Python API: an adapter, a compiled LangGraph graph, a graph factory
    (a callable whose first parameter is named `tools`), or a chatbot callable.

    Raises:
        UsageError: it is none of these.
    """
    if isinstance(chatbot, Chatbot):
        return chatbot
    if isinstance(chatbot, Pregel):
        return LangGraphChatbot(chatbot, name=chatbot.name or "the LangGraph chatbot")
    if callable(chatbot):
        name = getattr(chatbot, "__qualname__", None) or repr(chatbot)
        if [p.name for p in parameters(chatbot)][:1] == ["tools"]:
            return LangGraphChatbot(chatbot, name=name)
        return PythonChatbot(chatbot, name=name)
    raise UsageError(
        f"chatbot= got a {type(chatbot).__name__}; pass a callable, a compiled LangGraph graph, "
        "or an object with an open(session) method"
    )


def uses_native_tools(config: ChatbotConfig, spec: ModelSpec) -> bool:
    """Whether the llm_agent sends its tools to the API (`auto`: for OpenAI and Azure models)."""
    if config.native_tools == "auto":
        return spec.provider in NATIVE_TOOL_PROVIDERS
    return config.native_tools == "yes"


def endpoint_llm(ctx: RunContext, config: ChatbotConfig) -> LLM:
    """An `openai` chatbot's endpoint as an LLM of the run: cached, counted and budgeted like any role."""
    spec = ModelSpec(
        provider="openai",
        model=config.model,
        base_url=config.base_url,
        api_key_env=config.api_key_env,
        timeout=config.timeout,
    )
    return ctx.llms.model("chatbot", spec)


def import_target(target: str, *, where: str = "chatbot.target") -> Any:
    """The object named by `package.module:attribute`, importable from the current folder too.

    Raises:
        UsageError: the target is malformed, its module cannot be imported, or lacks the attribute.
    """
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise UsageError(f"{where} {target!r}: write it as package.module:attribute")
    if os.getcwd() not in sys.path:  # like uvicorn: the user's own modules are found from where they run
        sys.path.insert(0, os.getcwd())
    module = import_user_module(
        module_name, where=where,
        not_found="run from the folder that holds it or add that folder to PYTHONPATH",
    )
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise UsageError(f"{where}: {module_name} has no attribute {attribute}; check the name")
        value = getattr(value, part)
    return value
