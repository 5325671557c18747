"""Transient errors are retried with backoff over real HTTP; permanent ones are not."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from intellagent.llm import DirectLLM, ModelSpec, PermanentLLMError, ProviderUnavailable, ResponseCache, Usage
from intellagent.llm.factory import build_chat_model, cache_identity


class Answer(BaseModel):
    text: str


def completion(content: str) -> dict:
    return {
        "id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


@pytest.fixture
def server():
    """A local server speaking the Chat Completions API that answers from a queue of (status, body), or of
    (status, body, seconds to wait before answering)."""
    queue: list[tuple] = []
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real providers do: the client pools its connections

        def do_POST(self):
            seen.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            status, body, *delay = queue.pop(0)
            time.sleep(delay[0] if delay else 0)
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            if status == 429:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", queue, seen
    httpd.shutdown()


def llm_for(base_url: str, tmp_path, retries: int) -> DirectLLM:
    spec = ModelSpec(provider="openai", model="gpt-test", base_url=base_url)
    return DirectLLM(
        role="user",
        spec=spec,
        model=build_chat_model(spec, role="user", seed=0, max_retries=retries),
        identity=cache_identity(spec, seed=0),
        cache=ResponseCache(tmp_path / "cache.sqlite"),
        usage=Usage(),
    )


def test_429_is_retried_then_succeeds(server, tmp_path):
    base_url, queue, seen = server
    queue += [(429, {"error": {"message": "slow down"}}), (200, completion('{"text": "hi"}'))]
    llm = llm_for(base_url, tmp_path, retries=2)
    answer = asyncio.run(llm.answer([HumanMessage("hello")], Answer, step="simulate/user"))
    assert answer.text == "hi"
    assert len(seen) == 2
    assert llm.usage.total.calls == 1 and llm.usage.total.input_tokens == 10


def test_bad_key_stops_at_once_without_retrying(server, tmp_path):
    base_url, queue, seen = server
    queue += [(401, {"error": {"message": "Incorrect API key provided"}})] * 3
    with pytest.raises(PermanentLLMError, match="Incorrect API key"):
        asyncio.run(llm_for(base_url, tmp_path, retries=2).answer([HumanMessage("x")], Answer, step="s/x"))
    assert len(seen) == 1


def test_a_second_run_in_the_same_process_gets_its_own_connections(server, tmp_path):
    """Each asyncio.run is a run (evaluate twice, freeze then evaluate); a client pooled by the first one
    belongs to a closed event loop."""
    base_url, queue, seen = server
    queue += [(200, completion('{"text": "first"}')), (200, completion('{"text": "second"}'))]
    answers = [
        asyncio.run(llm_for(base_url, tmp_path / str(run), retries=0).answer([HumanMessage(f"run {run}")], Answer,
                                                                            step="simulate/user"))
        for run in (1, 2)
    ]
    assert [answer.text for answer in answers] == ["first", "second"] and len(seen) == 2


def test_identical_requests_in_flight_are_sent_once(server, tmp_path):
    base_url, queue, seen = server
    queue += [(200, completion('{"text": "shared"}'), 0.3), (200, completion('{"text": "other"}'))]
    llm = llm_for(base_url, tmp_path, retries=0)

    async def both():
        return await asyncio.gather(*(llm.answer([HumanMessage("same")], Answer, step="simulate/user")
                                      for _ in range(2)))

    answers = asyncio.run(both())
    assert [answer.text for answer in answers] == ["shared", "shared"] and len(seen) == 1
    assert (llm.usage.total.calls, llm.usage.total.cached) == (1, 1)  # the second paid nothing


def test_a_provider_that_cannot_be_reached_is_an_outage_that_stops_the_run(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # nothing listens here once the probe is closed
    llm = llm_for(f"http://127.0.0.1:{closed}/v1", tmp_path, retries=0)
    with pytest.raises(ProviderUnavailable, match=r"is not answering .* run the same command again"):
        asyncio.run(llm.answer([HumanMessage("x")], Answer, step="s/x"))


def test_a_rate_limit_that_outlasts_the_retries_is_an_outage(server, tmp_path):
    base_url, queue, seen = server
    queue += [(429, {"error": {"message": "slow down"}})] * 2
    with pytest.raises(ProviderUnavailable, match="slow down"):
        asyncio.run(llm_for(base_url, tmp_path, retries=1).answer([HumanMessage("x")], Answer, step="s/x"))
    assert len(seen) == 2


def test_the_prompt_tokens_a_servers_prefix_cache_served_are_counted_per_step(server, tmp_path):
    base_url, queue, _ = server
    answer = completion('{"text": "hi"}')
    answer["usage"]["prompt_tokens_details"] = {"cached_tokens": 8}  # as llama.cpp's server and OpenAI report it
    queue += [(200, answer), (200, completion('{"text": "again"}'))]
    llm = llm_for(base_url, tmp_path, retries=0)

    async def two_calls():
        for text in ("hello", "other"):
            await llm.answer([HumanMessage(text)], Answer, step="populate/outcome")

    asyncio.run(two_calls())

    report = llm.usage.report()
    assert (report.total.input_tokens, report.total.cache_read_tokens) == (20, 8)
    assert report.steps["populate/outcome"].cache_read_tokens == 8 and report.stages["populate"].cache_read_tokens == 8
