"""The LLM layer: model SPECs, the embedded local model, the cache, accounting and structured answers.

Every LLM call of a run goes through `LLM.answer` (a validated structured answer) or `LLM.complete`
(a raw message, e.g. with tools bound), which cache, count and budget it.
"""

from intellagent.llm.cache import ResponseCache
from intellagent.llm.client import LLM, AnswerInvalid, LLMError, PermanentLLMError, ProviderUnavailable, ReplayMiss
from intellagent.llm.roles import RoleModels
from intellagent.llm.scripted import HTTPError, Request, ScriptedLLM, ToolCalls
from intellagent.llm.spec import ModelSpec, parse_spec
from intellagent.llm.usage import BudgetExhausted, Tally, Usage, UsageReport

__all__ = [
    "LLM",
    "AnswerInvalid",
    "BudgetExhausted",
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
