"""The scripted test double: a Chat Completions endpoint answered in-process from rules.

It sits where the network would be (an httpx transport under the real OpenAI client), so a test
exercises the whole LLM layer — request building, structured answers, tool calls, retries, cache,
accounting — and gets deterministic answers chosen by the request: the role asking, the schema it
asks for, or any predicate on the messages. Every request is recorded for assertions.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
from pydantic import BaseModel

from intellagent.llm.chat_completions import ChatCompletions


@dataclass
class Request:
    """One request the double received."""

    role: str
    schema: str | None
    messages: list[dict[str, Any]]
    tools: list[str]
    body: dict[str, Any]

    @property
    def system(self) -> str:
        """The system prompt (empty if none)."""
        return next((m["content"] for m in self.messages if m["role"] == "system"), "")

    @property
    def last(self) -> str:
        """The text of the last message."""
        content = self.messages[-1].get("content") or ""
        return content if isinstance(content, str) else json.dumps(content)

    @property
    def text(self) -> str:
        """Every message's text, joined: handy for `'…' in request.text` checks."""
        return "\n".join(str(m.get("content") or "") for m in self.messages)


@dataclass
class ToolCalls:
    """An answer that calls tools: a list of (name, arguments); arguments given as a string are sent as they
    are (a careless model's text that is not JSON), anything else as its JSON."""

    calls: list[tuple[str, Any]]


@dataclass
class HTTPError:
    """An answer that fails with an HTTP status, e.g. 429 or 500."""

    status: int
    message: str = "scripted failure"


Answer = str | dict | BaseModel | ToolCalls | HTTPError
Reply = Answer | Callable[[Request], Answer]


@dataclass
class Rule:
    role: str | None
    schema: str | None
    when: Callable[[Request], bool] | None
    replies: list[Reply]
    repeat: bool
    used: int = 0

    def matches(self, request: Request) -> bool:
        if self.role is not None and self.role != request.role:
            return False
        if self.schema is not None and self.schema != request.schema:
            return False
        if self.when is not None and not self.when(request):
            return False
        return self.repeat or self.used < len(self.replies)

    def next_reply(self) -> Reply:
        reply = self.replies[min(self.used, len(self.replies) - 1)]
        self.used += 1
        return reply


@dataclass
class ScriptedLLM:
    """Rules of answers, matched in the order they were added (first match wins)."""

    rules: list[Rule] = field(default_factory=list)
    latency: float = 0.0
    """Seconds each asynchronous answer takes, as a remote model's would (the benchmarks set it)."""
    requests: list[Request] = field(default_factory=list)
    unmatched: list[Request] = field(default_factory=list)
    cpu_seconds: float = 0.0
    """CPU time this process spent answering, as the server would: the benchmarks leave it out of the
    framework's."""
    _ids: itertools.count = field(default_factory=itertools.count)

    def on(
        self,
        *,
        role: str | None = None,
        schema: str | None = None,
        when: Callable[[Request], bool] | None = None,
        reply: Reply | None = None,
        replies: Sequence[Reply] | None = None,
    ) -> ScriptedLLM:
        """Add a rule.

        Args:
            role: answer only this framework role (`user`, `chatbot`, `critique`, ...).
            schema: answer only requests for this response schema (the pydantic model's name).
            when: answer only requests for which this returns True.
            reply: one answer given every time the rule matches.
            replies: answers given one per match, in order; the rule is then used up.
        """
        if (reply is None) == (replies is None):
            raise ValueError("give exactly one of reply= or replies=")
        self.rules.append(Rule(role, schema, when, [reply] if replies is None else list(replies), replies is None))
        return self

    def calls(self, *, role: str | None = None, schema: str | None = None) -> list[Request]:
        """The recorded requests of a role and/or schema."""
        return [r for r in self.requests if (role in (None, r.role)) and (schema in (None, r.schema))]

    def chat_model(self, *, role: str, event_hooks: dict[str, list[Any]] | None = None,
                   **options: Any) -> ChatCompletions:
        """A real OpenAI chat model whose HTTP traffic this double answers (`event_hooks`: the async client's)."""
        def answer(http_request: httpx2.Request) -> httpx2.Response:
            started = time.thread_time()
            try:
                return self._answer(role, http_request)
            finally:
                self.cpu_seconds += time.thread_time() - started

        async def answer_later(http_request: httpx2.Request) -> httpx2.Response:
            await asyncio.sleep(self.latency)
            return answer(http_request)

        return ChatCompletions(
            model="scripted",
            api_key="scripted",
            base_url="http://scripted.invalid/v1",
            http_client=httpx2.Client(transport=httpx2.MockTransport(answer)),
            http_async_client=httpx2.AsyncClient(
                transport=httpx2.MockTransport(answer_later if self.latency else answer), event_hooks=event_hooks or {}
            ),
            **options,
        )

    def _answer(self, role: str, http_request: httpx2.Request) -> httpx2.Response:
        body = json.loads(http_request.content)
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        request = Request(role=role, schema=schema, messages=body["messages"], tools=tools, body=body)
        self.requests.append(request)
        rule = next((r for r in self.rules if r.matches(request)), None)
        if rule is None:
            self.unmatched.append(request)
            message = f"no scripted answer for role={role} schema={schema}"
            return httpx2.Response(400, json={"error": {"message": message, "type": "scripted"}})
        reply = rule.next_reply()
        answer = reply(request) if callable(reply) else reply
        if isinstance(answer, HTTPError):
            return httpx2.Response(answer.status, json={"error": {"message": answer.message, "type": "scripted"}})
        return httpx2.Response(200, json=self._completion(request, answer))

    def _completion(self, request: Request, answer: Answer) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if isinstance(answer, ToolCalls):
            message["tool_calls"] = [
                {"id": f"call_{next(self._ids)}", "type": "function",
                 "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                for name, args in answer.calls
            ]
        elif isinstance(answer, BaseModel):
            message["content"] = answer.model_dump_json()
        elif isinstance(answer, dict):
            message["content"] = json.dumps(answer)
        else:
            message["content"] = answer
        # Token counts are a rough length measure, so tests of accounting see non-zero figures.
        prompt_tokens = max(1, len(request.text) // 4)
        completion_tokens = max(1, len(json.dumps(message)) // 4)
        return {
            "id": f"scripted-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
