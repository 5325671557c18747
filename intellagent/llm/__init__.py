"""The LLM layer: model SPECs, the embedded local model, the cache, accounting and structured answers.

Every LLM call of a run goes through `LLM.answer` (a validated structured answer) or `LLM.complete`
(a raw message, e.g. with tools bound), which cache, count and budget it.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from intellagent.llm.accounting import BudgetExhausted, Tally, Usage, UsageReport
    from intellagent.llm.cache import ResponseCache
    from intellagent.llm.client import (
        LLM,
        AnswerInvalid,
        DirectLLM,
        LLMError,
        PermanentLLMError,
        ProviderUnavailable,
        ReplayMiss,
    )
    from intellagent.llm.roles import RoleModels
    from intellagent.llm.scripted import HTTPError, Request, ScriptedLLM, ToolCalls
    from intellagent.llm.spec import ModelSpec, parse_spec

__all__ = [
    "LLM",
    "AnswerInvalid",
    "BudgetExhausted",
    "DirectLLM",
    "HTTPError",
    "LLMError",
    "ModelSpec",
    "PermanentLLMError",
    "ProviderUnavailable",
    "ReplayMiss",
    "Request",
    "ResponseCache",
    "RoleModels",
    "ScriptedLLM",
    "Tally",
    "ToolCalls",
    "Usage",
    "UsageReport",
    "parse_spec",
]

# Where each name lives: imported on first use, so that a module needing only the accounting or the
# SPECs (the config, `run.py --help`) does not load LangChain and the OpenAI client.
_EXPORTS = {
    "ResponseCache": "cache",
    "LLM": "client", "AnswerInvalid": "client", "DirectLLM": "client", "LLMError": "client",
    "PermanentLLMError": "client", "ProviderUnavailable": "client", "ReplayMiss": "client",
    "RoleModels": "roles",
    "HTTPError": "scripted", "Request": "scripted", "ScriptedLLM": "scripted", "ToolCalls": "scripted",
    "ModelSpec": "spec", "parse_spec": "spec",
    "BudgetExhausted": "accounting", "Tally": "accounting", "Usage": "accounting", "UsageReport": "accounting",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'intellagent.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"intellagent.llm.{_EXPORTS[name]}"), name)
