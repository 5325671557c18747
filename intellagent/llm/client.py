"""`LLM`: one role's model behind the single door every call goes through.

Each call is looked up in the cache, refused under `--replay` if the cache cannot answer it, checked
against the budget, sent, counted, and stored (`DirectLLM`; in a worker of a scaled-out run, the run's
own process does all of this for it, see `RelayedLLM`). Structured answers are validated by their pydantic
model; an answer that does not validate is sent back with the validation error, a bounded number of
times and at a warmer temperature, before the step fails with `AnswerInvalid`.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from collections.abc import Callable
from typing import Any, Protocol, TypeVar
from weakref import WeakKeyDictionary

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from pydantic import ValidationError

from intellagent.errors import IntellAgentError, RunAborted
from intellagent.llm.accounting import Usage, price_per_token, price_provider
from intellagent.llm.cache import ResponseCache, request_key
from intellagent.llm.factory import answer_cap
from intellagent.llm.providers import provider_answer, speaks_chat_completions
from intellagent.llm.rate_limit import RateLimiter, estimated_tokens
from intellagent.llm.spec import ModelSpec
from intellagent.llm.token_bound import token_bound

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class AnswerSchema(Protocol[T_co]):
    """What `LLM.answer` needs of an answer's shape: its name and JSON schema, and a check that returns the answer.

    A pydantic model class is one; so is a schema put together per request from parts made once (populate's
    `ValuesSchema`), where a model class made per request would cost more than the rest of the call.
    """

    __name__: str

    def model_json_schema(self) -> dict[str, Any]:
        """The JSON schema the model is asked to follow."""
        ...

    def model_validate_json(self, json_data: str, /) -> T_co:
        """The answer in `json_data`; raises pydantic's `ValidationError` where it does not fit."""
        ...

# A re-ask of an invalid answer is sampled at least this warm: at temperature 0 a model tends to give
# the same invalid answer again, whatever the feedback says. The server's seed keeps it reproducible.
RETRY_TEMPERATURE = 0.7

# Errors that no retry can fix: a bad key, a model that does not exist, no permission.
PERMANENT = (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)


class LLMError(IntellAgentError):
    """A call failed after its retries; the item that needed it is recorded as an error."""


class AnswerInvalid(LLMError):
    """The model kept answering something its schema rejects."""


class ReplayMiss(RunAborted):
    """--replay is on and the cache holds no answer for a request."""


class PermanentLLMError(RunAborted):
    """The provider refused in a way retries cannot fix (bad key, unknown model)."""


class ProviderUnavailable(RunAborted):
    """The provider could not be reached, or kept refusing for its rate limit, through every retry: an outage.

    The stage stops here instead of recording every item still to do as an error; the same command
    resumes once the provider is back.
    """


class LLM:
    """A framework role's model, with accounting and validated answers; where a request is answered is up to
    the kind of LLM (`DirectLLM` in the run's own process, `RelayedLLM` in a worker of a scaled-out run)."""

    def __init__(self, *, role: str, spec: ModelSpec, usage: Usage, parse_retries: int = 2) -> None:
        self.role = role
        self.spec = spec
        self.usage = usage
        self.parse_retries = parse_retries
        self._prices = _prices(spec)
        self.options: dict[str, Any] = {}  # request options every call carries (see `with_options`)

    def with_options(self, **options: Any) -> LLM:
        """The same model, cache and accounting, with these request options (seed, temperature) on every call;
        they are part of each request, so of its cache key."""
        view = copy.copy(self)
        view.options = {**self.options, **options}
        return view

    async def answer(self, messages: list[BaseMessage], schema: AnswerSchema[T], *, step: str,
                     warmer: bool = False) -> T:
        """A structured answer: an instance of `schema`, validated.

        The request's `max_tokens` is the most a valid answer can need (see `token_bound`), within
        the model's own cap, so a model that loses its way stops early instead of writing on.

        Args:
            messages: the conversation to answer.
            schema: what the answer must satisfy, e.g. a pydantic model (constrained by JSON schema).
            step: 'stage/step' for accounting, e.g. 'describe/policies'.
            warmer: sample at `RETRY_TEMPERATURE` from the first try, as for a re-ask: the caller is
                asking again for something the last answer got wrong.
        """
        response_format, bound = _response_format(schema)
        cap = answer_cap(self.spec)
        max_tokens = min(bound, cap) if cap else bound
        conversation = list(messages)
        for attempt in range(self.parse_retries + 1):
            warm = (warmer or attempt > 0) and self.spec.temperature < RETRY_TEMPERATURE
            sampling = {"temperature": RETRY_TEMPERATURE} if warm else {}
            reply = await self.complete(conversation, step=step, response_format=response_format,
                                        max_tokens=max_tokens, **sampling)
            try:
                return schema.model_validate_json(_json_text(reply.content))
            except ValidationError as error:
                problem = _describe(error)
            conversation += [reply, HumanMessage(_feedback(problem))]
        raise AnswerInvalid(
            f"{self.role} ({step}): the answer did not match {schema.__name__} after "
            f"{self.parse_retries + 1} tries: {problem}"
        )

    async def complete(
        self, messages: list[BaseMessage], *, step: str, headers: dict[str, str] | None = None, **options: Any
    ) -> AIMessage:
        """A raw answer, e.g. with `tools=[...]` bound for native tool calls.

        Args:
            messages: the conversation to answer.
            step: 'stage/step' for accounting.
            headers: HTTP headers sent with the request but not part of its cache key (an address that
                changes from run to run must not make a recorded answer unreachable).
            **options: request options bound to the model (tools, tool_choice, response_format).
        """
        reply, _ = await self.exchange(messages, step=step, headers=headers, options={**self.options, **options})
        return reply

    async def exchange(
        self, messages: list[BaseMessage], *, step: str, headers: dict[str, str] | None, options: dict[str, Any]
    ) -> tuple[AIMessage, bool]:
        """The answer to a request with exactly these options, counted here, and whether the cache gave it."""
        reply, cached = await self.fetch(messages, step=step, headers=headers, options=options)
        self._count(reply, step, cached=cached)
        return reply, cached

    async def fetch(
        self, messages: list[BaseMessage], *, step: str, headers: dict[str, str] | None, options: dict[str, Any]
    ) -> tuple[AIMessage, bool]:
        """The answer to a request, and whether the cache gave it, not counted yet."""
        raise NotImplementedError

    def _count(self, reply: AIMessage, step: str, *, cached: bool) -> None:
        tokens = reply.usage_metadata or {}
        self.usage.record(
            step=step,
            role=self.role,
            input_tokens=tokens.get("input_tokens", 0),
            output_tokens=tokens.get("output_tokens", 0),
            cache_read_tokens=(tokens.get("input_token_details") or {}).get("cache_read") or 0,
            cached=cached,
            prices=self._prices,
            unpriced_model=None if self._prices or self.spec.provider in ("local", "scripted") else self.spec.model,
        )


class DirectLLM(LLM):
    """A role's model answered from this process: each request is looked up in the run's cache, refused under
    `--replay` if the cache cannot answer it, checked against the budget, paced by the model's rate limit,
    sent, and stored."""

    def __init__(
        self,
        *,
        role: str,
        spec: ModelSpec,
        model: BaseChatModel | Callable[[], BaseChatModel],
        identity: dict[str, Any],
        cache: ResponseCache,
        usage: Usage,
        replay: bool = False,
        parse_retries: int = 2,
        limiter: RateLimiter | None = None,
    ) -> None:
        super().__init__(role=role, spec=spec, usage=usage, parse_retries=parse_retries)
        self._model = model
        self.identity = identity
        self.cache = cache
        self.replay = replay
        self.limiter = limiter

    @property
    def model(self) -> BaseChatModel:
        """The chat model, built on first use: an embedded server starts only for a call the cache lacks."""
        if not isinstance(self._model, BaseChatModel):
            self._model = self._model()
        return self._model

    async def fetch(
        self, messages: list[BaseMessage], *, step: str, headers: dict[str, str] | None, options: dict[str, Any]
    ) -> tuple[AIMessage, bool]:
        key, request = request_key(self.identity, messages, options)
        cached = self.cache.get(key)
        if cached is None and key in self.cache.in_flight:  # the same request is on its way: share its answer
            cached = await asyncio.shield(self.cache.in_flight[key])
        if cached is not None:
            return cached, True
        if self.replay:
            raise ReplayMiss(
                f"--replay: no recorded answer for {self.role} at {step}; "
                "run once without --replay to record it"
            )
        self.usage.check_budget()
        answered: asyncio.Future[AIMessage] = asyncio.get_running_loop().create_future()
        self.cache.in_flight[key] = answered
        try:
            reply = await self._paced_send(messages, step=step, headers=headers, options=options)
        except BaseException as error:
            answered.set_exception(error)
            answered.exception()  # retrieved here: the waiters, if any, get it raised too
            raise
        finally:
            del self.cache.in_flight[key]
        answered.set_result(reply)
        self.cache.put(key, role=self.role, step=step, request=request, answer=reply)
        return reply, False

    async def _paced_send(
        self, messages: list[BaseMessage], *, step: str, headers: dict[str, str] | None, options: dict[str, Any]
    ) -> AIMessage:
        """`_send`, once the model's quota has room for the request (when its SPEC sets a `rate`)."""
        if self.limiter is None:
            return await self._send(messages, step=step, headers=headers, options=options)
        slot = await self.limiter.acquire(estimated_tokens(messages, options, max_tokens=answer_cap(self.spec)))
        reply = await self._send(messages, step=step, headers=headers, options=options)
        self.limiter.answered(slot, (reply.usage_metadata or {}).get("total_tokens"))
        return reply

    async def _send(
        self, messages: list[BaseMessage], *, step: str, headers: dict[str, str] | None, options: dict[str, Any]
    ) -> AIMessage:
        # Named by step and tagged by role, for a tracer the user turned on (LangSmith); nothing is sent
        # anywhere otherwise.
        config: RunnableConfig = {"run_name": step, "tags": [self.role], "metadata": {"role": self.role, "step": step}}
        if not speaks_chat_completions(self.spec):
            try:
                return await provider_answer(self.model, messages, options, config)
            except Exception as error:  # each integration raises its own errors; none can be told apart here
                raise self._failed(step, error) from error
        sent = {**options, "extra_headers": headers} if headers else options
        try:
            # The options go with the call, as `bind` would pass them, without a binding built per call.
            return await self.model.ainvoke(messages, config=config, **sent)
        except PERMANENT as error:
            raise PermanentLLMError(f"{self.spec.label} refused the request: {_api_message(error)}") from error
        except (openai.APIConnectionError, openai.RateLimitError) as error:
            # The provider itself is out, still after the retries: an outage, not this item's failure. Not
            # a timeout (a slow model can stall on one request while the others go on), nor a 5xx (some
            # servers answer a request they cannot handle with one).
            if isinstance(error, openai.APITimeoutError):
                raise self._failed(step, error) from error
            raise ProviderUnavailable(
                f"{self.spec.label} is not answering ({_api_message(error)}) after its retries (llm_retries); "
                "what is finished is kept: run the same command again once it is back"
            ) from error
        except (openai.OpenAIError, ValueError) as error:
            raise self._failed(step, error) from error

    def _failed(self, step: str, error: Exception) -> LLMError:
        return LLMError(f"{self.role} ({step}): {self.spec.label} failed: {_api_message(error)}")


# Per answer schema: its response format and the most tokens a valid answer needs. Working them out took
# about 10 ms a call; weakly keyed, so a schema made for one event is not kept alive here.
_FORMATS: WeakKeyDictionary[AnswerSchema[Any], tuple[dict[str, Any], int]] = WeakKeyDictionary()


def _response_format(schema: AnswerSchema[Any]) -> tuple[dict[str, Any], int]:
    if schema not in _FORMATS:
        json_schema = schema.model_json_schema()
        response_format = {"type": "json_schema",
                           "json_schema": {"name": schema.__name__, "schema": json_schema, "strict": False}}
        _FORMATS[schema] = (response_format, token_bound(json_schema))
    return _FORMATS[schema]


def _prices(spec: ModelSpec) -> tuple[float, float] | None:
    if spec.prices:
        return spec.prices[0] / 1e6, spec.prices[1] / 1e6
    if spec.provider in ("local", "scripted"):  # the embedded model and the test double cost nothing
        return None
    # Looked up under the provider itself, never guessed from the name: a model an OpenAI-compatible server
    # runs here has no list price, even if another provider sells one of that name.
    listed = price_provider(spec.provider)
    return price_per_token(spec.model, provider=listed) if listed else None


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def _json_text(content: Any) -> str:
    """The JSON in an answer, without the Markdown fence some models wrap it in."""
    text = content if isinstance(content, str) else json.dumps(content)
    match = _FENCE.match(text.strip())
    return match.group(1) if match else text


def _describe(error: ValidationError) -> str:
    problems = []
    for item in error.errors()[:5]:
        where = ".".join(str(part) for part in item["loc"]) or "the answer"
        problems.append(f"{where}: {item['msg']}")
    return "; ".join(problems)


def _feedback(problem: str) -> str:
    return (
        f"Your answer could not be used: {problem}. "
        "Answer again with one JSON object that follows the schema exactly."
    )


def _api_message(error: Exception) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return str(error) or type(error).__name__
