"""A model's quota: any minute's requests and tokens stay within it, whatever the number of workers, and a
429 pauses every worker of that model. The clock is a fake one: no test waits."""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from pydantic import BaseModel

from intellagent.config import load_config
from intellagent.llm import ResponseCache, ScriptedLLM, Usage
from intellagent.llm.rate_limit import RateLimiter, estimated_tokens
from intellagent.llm.roles import RoleModels
from intellagent.llm.scripted import HTTPError
from intellagent.llm.spec import RateLimit


class FakeClock:
    """Time that passes only when a waiter sleeps: a sleeper wakes at the time it asked for, or later."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        wake = self.now + seconds
        await asyncio.sleep(0)
        self.now = max(self.now, wake)


def most_in_any_minute(starts: list[tuple[float, int]]) -> tuple[int, int]:
    """The most requests, and the most tokens, started within any 60 seconds."""
    windows = [[(t, n) for t, n in starts if start <= t < start + 60] for start, _ in starts]
    return max(len(w) for w in windows), max(sum(n for _, n in w) for w in windows)


def run_workers(limiter: RateLimiter, clock: FakeClock, *, workers: int, requests: int,
                tokens: int) -> list[tuple[float, int]]:
    starts: list[tuple[float, int]] = []

    async def worker() -> None:
        for _ in range(requests):
            slot = await limiter.acquire(tokens)
            starts.append((clock(), tokens))
            await clock.sleep(0.2)  # the model answers
            limiter.answered(slot, tokens)

    async def all_workers() -> None:
        await asyncio.gather(*(worker() for _ in range(workers)))

    asyncio.run(all_workers())
    return starts


@pytest.mark.parametrize("workers", [1, 4, 16, 64])
def test_no_minute_holds_more_requests_than_the_quota_and_the_quota_is_used(workers):
    clock = FakeClock()
    limiter = RateLimiter(RateLimit(requests_per_minute=30), clock=clock, sleep=clock.sleep)
    starts = run_workers(limiter, clock, workers=workers, requests=128 // workers, tokens=10)
    assert len(starts) == 128
    assert most_in_any_minute(starts)[0] == 30
    assert max(t for t, _ in starts) < 5 * 60  # 128 requests at 30 a minute: the fifth minute, not later


def test_no_minute_holds_more_tokens_than_the_quota():
    clock = FakeClock()
    limiter = RateLimiter(RateLimit(tokens_per_minute=1000), clock=clock, sleep=clock.sleep)
    starts = run_workers(limiter, clock, workers=8, requests=10, tokens=150)
    assert most_in_any_minute(starts)[1] == 900  # six requests of 150 fit, a seventh would not
    assert max(t for t, _ in starts) < 14 * 60


def test_a_request_larger_than_the_token_quota_goes_alone():
    clock = FakeClock()
    limiter = RateLimiter(RateLimit(tokens_per_minute=100), clock=clock, sleep=clock.sleep)
    starts = run_workers(limiter, clock, workers=2, requests=2, tokens=500)
    assert [t for t, _ in starts] == [0.0, 60.0, 120.0, 180.0]


def test_a_429_pauses_every_worker_for_as_long_as_it_asks_and_a_silent_one_for_a_doubling_pause():
    clock = FakeClock()
    limiter = RateLimiter(RateLimit(requests_per_minute=1000), clock=clock, sleep=clock.sleep)

    slots = []

    async def start() -> float:
        slots.append(await limiter.acquire(1))
        return clock()

    async def observe(headers: dict[str, str]) -> None:
        await limiter.observe(httpx2.Response(429, headers=headers))

    for pause in (1.0, 2.0, 4.0):  # no header: 1 s, then twice as long with each 429 in a row
        began = clock()
        asyncio.run(observe({}))
        assert asyncio.run(start()) == began + pause
    limiter.answered(slots[-1], 1)  # an answer ends the streak
    began = clock()
    asyncio.run(observe({"retry-after": "soon"}))  # unreadable: as if it said nothing
    assert asyncio.run(start()) == began + 1.0
    began = clock()
    asyncio.run(observe({"retry-after-ms": "2500"}))  # what the provider asks for, whatever the streak
    assert asyncio.run(start()) == began + 2.5
    asyncio.run(observe({"retry-after": "0"}))
    assert asyncio.run(start()) == began + 2.5


def test_the_estimate_counts_the_text_the_tools_and_the_longest_answer():
    from langchain_core.messages import HumanMessage

    assert estimated_tokens([HumanMessage("x" * 400)], {}, max_tokens=None) == 100
    assert estimated_tokens([HumanMessage("x" * 400)], {"max_tokens": 50}, max_tokens=1000) == 150
    assert estimated_tokens([HumanMessage("x" * 400)], {}, max_tokens=1000) == 1100
    assert estimated_tokens([HumanMessage("")], {"tools": [{"name": "x" * 396}]}, max_tokens=None) > 100
    assert estimated_tokens([HumanMessage("")], {"response_format": {"schema": "x" * 396}}, max_tokens=None) > 100


class Answer(BaseModel):
    text: str


def test_the_roles_of_one_model_share_its_quota_and_its_429s_reach_it(tmp_path):
    (tmp_path / "p.md").write_text("Be kind.")
    config = load_config(base_dir=tmp_path, source={
        "environment": {"policy": "p.md", "schema": "s", "tools": "t"},
        "llm": {"default": {"provider": "scripted", "rate": {"requests_per_minute": 600}},
                "critique": {"provider": "scripted", "temperature": 0.5}},
        "llm_retries": 1,
    })
    script = ScriptedLLM().on(role="user", replies=[HTTPError(429, "slow down"), {"text": "hello"}])
    models = RoleModels(config, cache=ResponseCache(tmp_path / "cache.sqlite"), usage=Usage(), script=script)
    assert models["user"].limiter is models["analysis"].limiter is not None
    assert models["critique"].limiter is None  # a model of its own, with no rate

    from langchain_core.messages import HumanMessage

    answer = asyncio.run(models["user"].answer([HumanMessage("hi")], Answer, step="simulate/user"))
    assert answer.text == "hello" and len(script.requests) == 2  # retried by the client
    assert models["user"].limiter.paused_until > 0  # the 429 paused every worker of the model


def test_a_rate_needs_a_limit_and_does_not_stop_a_resume(tmp_path):
    from intellagent.runner import _fingerprint

    with pytest.raises(ValueError, match="requests_per_minute, tokens_per_minute"):
        RateLimit()
    (tmp_path / "p.md").write_text("Be kind.")
    base = {"environment": {"policy": "p.md", "schema": "s", "tools": "t"}, "llm": {"default": "openai:gpt-4o"}}
    paced = {**base, "llm": {"default": {"provider": "openai", "model": "gpt-4o",
                                         "rate": {"tokens_per_minute": 30000}}}}
    other = {**base, "llm": {"default": "openai:gpt-4o-mini"}}
    fingerprints = [_fingerprint(load_config(c, base_dir=tmp_path)) for c in (base, paced, other)]
    assert fingerprints[0] == fingerprints[1] != fingerprints[2]
