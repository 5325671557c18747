"""Models in a worker process of a scaled-out run: every request is answered by the run's own process.

A worker has no cache, budget or rate limit of its own. It sends each request, with exactly the options
it carries, to the run's process, where the role's `DirectLLM` answers it as it would answer the same
request made there: from the one cache, within the one budget and rate limit, counted in the run's
totals. The worker counts the answer again in its own accounting (a dialog's share), so a dialog records
the same usage wherever it was played.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from intellagent.llm.accounting import Usage
from intellagent.llm.client import LLM
from intellagent.llm.roles import ModelsByRole, ModelSettings
from intellagent.llm.spec import ModelSpec


@dataclass(frozen=True)
class ModelRequest:
    """One request of a worker's model, as the run's process needs it to answer."""

    role: str
    spec: ModelSpec
    messages: list[BaseMessage]
    step: str
    headers: dict[str, str] | None
    options: dict[str, Any]


# What the run's process sends back: the answer and whether the cache gave it, or the error it raised.
Outcome = tuple[AIMessage, bool] | BaseException
Ask = Callable[[ModelRequest], Awaitable[Outcome]]


class RelayedLLM(LLM):
    """A role's model in a worker: `ask` carries each request to the run's process and brings back its outcome."""

    def __init__(self, *, role: str, spec: ModelSpec, ask: Ask, usage: Usage, parse_retries: int = 2) -> None:
        super().__init__(role=role, spec=spec, usage=usage, parse_retries=parse_retries)
        self._ask = ask

    async def fetch(
        self, messages: list[BaseMessage], *, step: str, headers: dict[str, str] | None, options: dict[str, Any]
    ) -> tuple[AIMessage, bool]:
        outcome = await self._ask(ModelRequest(role=self.role, spec=self.spec, messages=messages, step=step,
                                               headers=headers, options=options))
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


class RelayedModels(ModelsByRole):
    """A worker's models: the same roles and SPECs as the run's, each a `RelayedLLM`."""

    def __init__(self, config: ModelSettings, *, ask: Ask, usage: Usage) -> None:
        super().__init__(config)
        self.usage = usage
        self._ask = ask

    def build(self, role: str, spec: ModelSpec) -> LLM:
        """A `RelayedLLM` for `role` on `spec`."""
        return RelayedLLM(role=role, spec=spec, ask=self._ask, usage=self.usage,
                          parse_retries=self.config.parse_retries)


async def answer(models: ModelsByRole, request: ModelRequest) -> Outcome:
    """A worker's request answered by the run's own model of that role and SPEC (counted in the run's totals);
    the error it raises is the outcome instead."""
    try:
        return await models.model(request.role, request.spec).exchange(
            request.messages, step=request.step, headers=request.headers, options=request.options)
    except Exception as error:  # the worker raises it where its item asked, as the run's process would
        return error
