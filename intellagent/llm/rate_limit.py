"""A model's per-minute quota (`rate:` in its SPEC block), kept by every worker of the run together.

Providers limit requests and tokens per minute; a large run with many workers goes past both, and a
stage that meets "rate limited" after every retry stops. Here every request to one model first takes
its place in a sliding one-minute window, so that the requests and tokens of any minute stay within
the quota; and a 429 the provider answers anyway (its own count differs, or another program shares
the key) pauses every worker of that model, for as long as the provider asks, or for a pause that
doubles with each 429 in a row.

A request's tokens are not known before it is answered: it is counted by an estimate (its text at four
characters a token, plus the most it may answer), then by what the provider reports.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx2
from langchain_core.messages import BaseMessage

from intellagent.llm.spec import RateLimit

WINDOW_S = 60.0

# The pause after a 429 that says nothing of when to come back, doubled with each 429 in a row up to the cap.
FIRST_PAUSE_S = 1.0
LONGEST_PAUSE_S = 60.0


@dataclass(slots=True)
class Slot:
    """One request's place in the window: when it started, and its tokens (estimated, then as reported)."""

    started: float
    tokens: int


class RateLimiter:
    """The sliding window of one model's requests, shared by every `LLM` of the run that calls that model.

    Args:
        rate: the quota.
        clock: seconds, monotonic (a test passes a fake one).
        sleep: waits that many seconds (a test passes its fake clock's).
    """

    def __init__(self, rate: RateLimit, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        self.rate = rate
        self._clock = clock
        self._sleep = sleep
        self._window: deque[Slot] = deque()
        self._turn = asyncio.Lock()  # one request waits for room at a time: first come, first sent
        self.paused_until = 0.0
        self._refusals = 0  # 429s in a row

    async def acquire(self, tokens: int) -> Slot:
        """Wait until a request of about `tokens` tokens fits in the last minute, then count it there."""
        async with self._turn:
            while (wait := self._wait(self._clock(), tokens)) > 0:
                await self._sleep(wait)
            slot = Slot(self._clock(), tokens)
            self._window.append(slot)
            return slot

    def _wait(self, now: float, tokens: int) -> float:
        """Seconds until a request of `tokens` may start: 0 if it may now."""
        while self._window and self._window[0].started <= now - WINDOW_S:
            self._window.popleft()
        if now < self.paused_until:
            return self.paused_until - now
        if not self._window:  # a request larger than the whole token quota goes alone, once the window is empty
            return 0.0
        requests, tokens_per_minute = self.rate.requests_per_minute, self.rate.tokens_per_minute
        too_many = requests is not None and len(self._window) + 1 > requests
        too_large = tokens_per_minute is not None and sum(s.tokens for s in self._window) + tokens > tokens_per_minute
        return self._window[0].started + WINDOW_S - now if too_many or too_large else 0.0

    def answered(self, slot: Slot, tokens: int | None) -> None:
        """The request of `slot` was answered, with `tokens` tokens in all as the provider reports them."""
        if tokens:
            slot.tokens = tokens
        self._refusals = 0

    def refused(self, retry_after: float | None) -> None:
        """The provider answered 429: no worker starts a request before it says, or before a pause that
        grows with each refusal in a row."""
        self._refusals += 1
        pause = retry_after if retry_after is not None else min(FIRST_PAUSE_S * 2 ** (self._refusals - 1),
                                                                LONGEST_PAUSE_S)
        self.paused_until = max(self.paused_until, self._clock() + pause)

    async def observe(self, response: httpx2.Response) -> None:
        """An HTTP client's response hook: a 429 the client will retry pauses every worker of this model."""
        if response.status_code == 429:
            self.refused(_retry_after(response.headers))


def estimated_tokens(messages: list[BaseMessage], options: dict[str, Any], *, max_tokens: int | None) -> int:
    """A request's tokens before it is sent: its text, tools and answer schema at four characters a token, plus
    the most it may answer, as providers count it against the quota."""
    text = sum(len(m.content) if isinstance(m.content, str) else len(json.dumps(m.content)) for m in messages)
    text += sum(len(json.dumps(options[key], default=str)) for key in ("tools", "response_format") if options.get(key))
    return math.ceil(text / 4) + (options.get("max_tokens") or max_tokens or 0)


def _retry_after(headers: httpx2.Headers) -> float | None:
    """The seconds a 429 asks to wait (Retry-After, or OpenAI's retry-after-ms), if it says."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return float(headers[name]) / scale
        except (KeyError, ValueError):
            continue
    return None
