"""The embedded model's client: a timeout measures progress, a stalled request is not sent again,
and every structured answer is bounded by its schema."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from intellagent.config import load_config
from intellagent.llm import DirectLLM, LLMError, ModelSpec, ResponseCache, RoleModels, Usage
from intellagent.llm.embedded import LocalServer
from intellagent.llm.factory import cache_identity, local_chat_model, local_http_client
from intellagent.llm.token_bound import FREE_TEXT_TOKENS, token_bound


class Answer(BaseModel):
    text: str


def chunk(content: str | None, *, finish: str | None = None, usage: bool = False) -> bytes:
    body = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "local",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": content} if content is not None else {},
                         "finish_reason": finish}]}
    if usage:
        body = {**body, "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


@pytest.fixture
def streaming_server():
    """A Chat Completions server that streams '{"text": "slow"}' in pieces, `pause` seconds apart."""
    settings = {"pause": 0.0, "stall": 0.0, "one_at_a_time": False}
    seen: list[dict] = []
    slot = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            seen.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            if settings["one_at_a_time"]:
                with slot:
                    self.answer()
            else:
                self.answer()

        def answer(self):
            time.sleep(settings["stall"])
            for piece in ('{"text"', ': "sl', 'ow"}'):
                self.wfile.write(chunk(piece))
                self.wfile.flush()
                time.sleep(settings["pause"])
            self.wfile.write(chunk(None, finish="stop") + chunk(None, usage=True) + b"data: [DONE]\n\n")

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", settings, seen
    httpd.shutdown()


def local_llm(base_url: str, tmp_path, *, timeout: float) -> DirectLLM:
    spec = ModelSpec(provider="local", timeout=timeout)
    model = local_chat_model(spec, base_url=base_url, seed=0, http_client=local_http_client(resends=0, slots=1))
    return DirectLLM(role="populate", spec=spec, model=model, identity=cache_identity(spec, seed=0),
                     cache=ResponseCache(tmp_path / "c.sqlite"), usage=Usage())


def test_an_answer_slower_than_the_timeout_succeeds_while_tokens_keep_coming(streaming_server, tmp_path) -> None:
    base_url, settings, seen = streaming_server
    settings["pause"] = 0.4  # 1.2 s in all, never 1 s without a token

    llm = local_llm(base_url, tmp_path, timeout=1.0)
    answer = asyncio.run(llm.answer([HumanMessage("hi")], Answer, step="t"))

    assert answer.text == "slow" and seen[0]["stream"] is True
    assert seen[0]["response_format"]["json_schema"]["name"] == "Answer"  # the schema still constrains the answer
    assert (llm.usage.total.input_tokens, llm.usage.total.output_tokens) == (7, 3)  # and its tokens are counted


def test_the_timeout_alone_bounds_the_wait_for_the_next_piece(streaming_server, tmp_path, monkeypatch) -> None:
    """No other library's shorter bound on a streamed answer cuts it short (langchain-openai's wait per chunk
    is set, through its variable, below the pauses here)."""
    base_url, settings, _ = streaming_server
    settings["pause"] = 0.6
    monkeypatch.setenv("LANGCHAIN_OPENAI_STREAM_CHUNK_TIMEOUT_S", "0.3")

    answer = asyncio.run(local_llm(base_url, tmp_path, timeout=2.0).answer([HumanMessage("hi")], Answer, step="t"))

    assert answer.text == "slow"


def test_a_stalled_request_fails_without_being_sent_again(streaming_server, tmp_path) -> None:
    base_url, settings, seen = streaming_server
    settings["stall"] = 1.5

    with pytest.raises(LLMError):
        asyncio.run(local_llm(base_url, tmp_path, timeout=0.5).answer([HumanMessage("hi")], Answer, step="t"))

    assert len(seen) == 1


def test_a_structured_request_is_bounded_by_its_schema_within_the_models_cap(streaming_server, tmp_path) -> None:
    base_url, _, seen = streaming_server

    asyncio.run(local_llm(base_url, tmp_path, timeout=5).answer([HumanMessage("hi")], Answer, step="t"))

    assert seen[0]["max_completion_tokens"] == token_bound(Answer.model_json_schema()) < 1536


class Bounded(BaseModel):
    code: str = Field(max_length=6)
    tags: list[str] = Field(max_length=2)
    count: int


def test_the_token_bound_grows_with_what_the_schema_allows() -> None:
    small = token_bound(Bounded.model_json_schema())

    assert small < 2 * FREE_TEXT_TOKENS + 60  # two free strings at most, plus keys and punctuation
    assert token_bound(Answer.model_json_schema()) < small


@pytest.fixture
def one_slot_server(streaming_server):
    """The streaming server, working on one request at a time as the embedded model's does (the others wait
    at the server, their answers not begun)."""
    base_url, settings, seen = streaming_server
    settings["one_at_a_time"] = True
    return base_url, settings, seen


def test_requests_beyond_the_servers_slots_wait_untimed_in_the_run(one_slot_server, tmp_path, monkeypatch) -> None:
    """Two roles ask at once; each answer takes longer than the timeout in all, never that long between pieces.
    Sent together, the second would wait at the server past its timeout; held in the run, it waits untimed."""
    base_url, settings, seen = one_slot_server
    settings["pause"] = 0.4
    monkeypatch.setattr("intellagent.llm.embedded.local_server", lambda: LocalServer(base_url=base_url, handle=None))
    (tmp_path / "policy.md").write_text("- Greet the customer.\n")
    config = load_config({"name": "slots", "llm": {"default": {"provider": "local", "timeout": 1.0}},
                          "environment": {"policy": "policy.md", "schema": "intellagent.db_schemas.airline.schema",
                                          "tools": "intellagent.db_schemas.airline.tools"}}, base_dir=tmp_path)
    models = RoleModels(config, cache=ResponseCache(tmp_path / "c.sqlite"), usage=Usage())

    async def both() -> list[Answer]:
        return await asyncio.gather(*(models[role].answer([HumanMessage(role)], Answer, step="t")
                                      for role in ("user", "critique")))

    assert [answer.text for answer in asyncio.run(both())] == ["slow", "slow"] and len(seen) == 2
